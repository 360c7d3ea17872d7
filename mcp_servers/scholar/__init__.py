"""`scholar`: an academic research index (papers, authors, citations, full text in pages, reading lists)."""
