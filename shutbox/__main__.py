"""``python -m shutbox`` runs the command-line interface."""

from shutbox.cli.entry import main

raise SystemExit(main())
