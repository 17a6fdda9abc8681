"""Track what is in the pantry and what to buy."""
