"""``python -m dpsum_core`` entry point."""

import sys

from dpsum_core.cli import main

sys.exit(main())
