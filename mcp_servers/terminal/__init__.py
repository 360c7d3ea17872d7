"""`terminal`: a mock terminal over the episode workspace (ls, cat, grep, find, cp, mv, rm ...), no shell."""
