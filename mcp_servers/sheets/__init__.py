"""`sheets`: cloud spreadsheets (Google-Sheets-like) with cells stored in `sheets_*` tables."""
