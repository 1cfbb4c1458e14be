"""The game history: the SQLite database (schema and opening; its per-game OS lock), its read-only archive, and
statistics across it."""
