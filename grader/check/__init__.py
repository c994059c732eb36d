"""Students' self-check: the visible tests only."""
