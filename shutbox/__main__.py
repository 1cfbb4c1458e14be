"""``python -m shutbox`` runs the command-line interface."""

from shutbox.entry import main

raise SystemExit(main())
