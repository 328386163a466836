"""``python -m cronlapse`` is the ``cronlapse`` command."""

import sys

from cronlapse.cli.main import main

sys.exit(main())
