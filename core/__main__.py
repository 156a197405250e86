"""``python -m evalmc``, the same as the ``evalmc`` command."""

import sys

from evalmc.cli import main

if __name__ == "__main__":  # not when a spawned worker process imports the main module
    sys.exit(main())
