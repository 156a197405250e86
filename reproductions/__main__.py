"""``python -m reproductions SPEC [...]``, the same as ``evalmc reproduce SPEC [...]``."""

import sys

from core.cli import main

sys.exit(main(["reproduce", *sys.argv[1:]]))
