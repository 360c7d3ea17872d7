"""`pptx`: pptx slide decks in the episode workspace, via python-pptx."""
