"""``python -m cronlapse`` is the ``cronlapse`` command."""

import sys

from cronlapse.cli.entry import main

sys.exit(main())
