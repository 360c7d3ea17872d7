"""`excel`: xlsx workbooks in the episode workspace, via openpyxl."""
