"""`local`: claim_done, the todo list, and python_execute in the episode workspace."""
