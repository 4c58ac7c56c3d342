import sys

from medeventgraph.evaluation import main

sys.exit(main())
