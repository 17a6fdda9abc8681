"""`python -m executor`."""

from executor.cli import main

raise SystemExit(main())
