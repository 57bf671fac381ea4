"""``python -m dpsum_core`` entry point."""

import sys

from .cli import main

sys.exit(main())
