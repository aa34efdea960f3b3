"""``python -m fumarole`` runs the command line."""

from fumarole.cli import main

raise SystemExit(main())
