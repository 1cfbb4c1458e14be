"""``python -m shutbox`` runs the command-line interface."""

from shutbox.cli import main

raise SystemExit(main())
