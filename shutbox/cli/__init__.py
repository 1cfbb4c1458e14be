"""The top layer: the ``shutbox`` command line, its console script and one module per subcommand."""
