"""plan-executor: drive AI coding agents through a written plan, session by session.

The public API is what `__all__` names; everything else is internal.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
