"""`word`: docx documents in the episode workspace, via python-docx."""
