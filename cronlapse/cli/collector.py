"""The cycle collector's settings for the commands that build a run and exit.

The collector is the application's policy, not the engine's: it affects the whole process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BATCH_COMMANDS = frozenset(
    {"script", "next", "run", "check", "export", "import", "sweep", "explain"}
    | {"backfill", "compare", "advise"}
)
"""The commands that play or read a run and exit: they run with the collector tuned for it."""

BATCH_COLLECTOR_THRESHOLDS = (200_000, 30, 30)
"""Python's cycle collector, for a command that builds a run and exits (the defaults are 700,
10, 10). A run keeps every record and event it makes, few of them in cycles, so the collector's
passes over them find almost nothing, and with the defaults they took a quarter of a month-long
fleet's play (benchmarks/run_fleet.py, docs/performance.md). mypy tunes its command the same
way, to the same values. The dashboard and the service keep the defaults: they run for hours,
and their pauses are the collector's too."""


@contextmanager
def collector_tuned_for(command: str | None) -> Iterator[None]:
    """Run a batch command (``BATCH_COMMANDS``) with the collector's batch thresholds, and put
    the ones before back after it (``main`` is also called in-process, by tests)."""
    if command not in BATCH_COMMANDS:
        yield
        return
    before = gc.get_threshold()
    gc.set_threshold(*BATCH_COLLECTOR_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
