"""Meeting rooms."""
