"""``python -m evalmc``, the same as the ``evalmc`` command."""

import sys

from evalmc.cli import main

sys.exit(main())
