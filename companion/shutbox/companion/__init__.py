"""The scorekeeper: rules engine, strategy solver and the live link to the box (``shutbox.companion``)."""
