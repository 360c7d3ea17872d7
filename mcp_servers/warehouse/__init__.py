"""`warehouse`: an enterprise data warehouse (sales, HR, finance) queried with read-only SQL."""
