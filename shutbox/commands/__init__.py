"""The ``shutbox`` subcommands, one module per command (see :mod:`shutbox.cli` for how they are found)."""
