"""The yardstick tests reuse the engine tests' generators (tests/engine/*.py are top-level modules
there, found through their own directory), so that directory goes on the import path here too."""

from __future__ import annotations

import sys
from pathlib import Path

ENGINE_TESTS = str(Path(__file__).resolve().parents[1] / "engine")
if ENGINE_TESTS not in sys.path:
    sys.path.insert(0, ENGINE_TESTS)
