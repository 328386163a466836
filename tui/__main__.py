"""``python -m tui [FILE]``: the dashboard on a scenario or a script (the demo by default)."""

from __future__ import annotations

import sys

from engine.cli_tui import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
