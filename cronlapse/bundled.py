"""Where the bundled scenarios are: ``cronlapse/scenarios``, package data in every install.

In a clone (and an editable install) it is a link to the repository's ``scenarios/``; ``pip
install .`` copies the files behind the link into the package. Either way one path finds them.
"""

from __future__ import annotations

from pathlib import Path

SCENARIOS = (Path(__file__).parent / "scenarios").resolve()
"""The bundled scenarios: the seeds' examples, the lessons, the demo fleet."""
DEMO = SCENARIOS / "demo.yaml"
"""The bundled demo fleet that ``cronlapse`` with no arguments opens."""
