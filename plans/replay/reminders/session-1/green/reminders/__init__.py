"""A tiny reminders library."""
