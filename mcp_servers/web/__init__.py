"""`web`: a local corpus of web pages (search, read in chunks, list links); no network access."""
