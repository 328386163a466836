"""``python -m engine`` is the ``cronlapse`` command."""

import sys

from engine.cli import main

sys.exit(main())
