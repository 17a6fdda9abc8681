"""A tiny double-entry ledger."""
