"""What every server shares: the server spec, tool registration, workspace paths, databases."""
