"""The kit model: every setting a user chooses, declared once, and how settings are resolved from TOML and flags."""
