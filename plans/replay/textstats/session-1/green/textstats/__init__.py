"""Word counts and the most common words of a text (standard library only)."""
