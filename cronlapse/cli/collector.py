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


ACYCLIC_COMMANDS = frozenset({"script", "run", "check"})
"""The batch commands whose run makes no reference cycles for the collector to free: they run
with it off. Their engine, checker and readers stay alive until the command ends, and what they
drop on the way (finished runs, released events, replaced records) is freed by reference
counting: ``tests/test_cli_collector.py`` plays every bundled scenario as ``run`` and ``check``
do, and each read finds no cycle, and a seed 001 script with every command and rejected lines
leaves none. So the collector's passes over the records a run keeps find nothing: with
100,000 jobs they were 11% of a script's run (2.08 s against 1.84 s of CPU,
benchmarks/script_protocol.py's script); the demo's ``run``, which the batch thresholds left
two passes, 30 M instructions fewer (0.26%, callgrind). The other batch commands keep the
thresholds: their cycles were not measured."""


@contextmanager
def collector_tuned_for(command: str | None) -> Iterator[None]:
    """Run a batch command (``BATCH_COMMANDS``) with the collector's batch thresholds, or with
    the collector off (``ACYCLIC_COMMANDS``), and put the settings before back after it
    (``main`` is also called in-process, by tests)."""
    if command not in BATCH_COMMANDS:
        yield
        return
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(*BATCH_COLLECTOR_THRESHOLDS)
    if command in ACYCLIC_COMMANDS:
        gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if enabled:
            gc.enable()
