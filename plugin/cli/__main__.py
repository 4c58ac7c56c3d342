"""`python -m medeventgraph.cli.main`."""

from medeventgraph.cli.main import main

raise SystemExit(main())
