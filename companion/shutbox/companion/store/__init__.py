"""The game history: the SQLite database, its read-only archive, and statistics across it."""
