"""Exporting the attempts shown: a Chrome trace (Perfetto, chrome://tracing) or a CSV.

The formats are the scenario package's (:mod:`cronlapse.exports.timeline`, the same files
``cronlapse export`` writes); the dashboard writes them for the run *as far as the current tick*,
so what is exported is what is on screen.
"""

from __future__ import annotations

from pathlib import Path

from cronlapse.exports.timeline import write_csv, write_trace
from engine.core import Engine
from engine.schedules.clock import Clock


def default_export_path(source: Path | None, name: str) -> Path:
    """Next to the scenario file: ``demo.yaml`` -> ``demo.trace.json``."""
    if source is None:
        stem = "".join(char if char.isalnum() or char in "-_" else "-" for char in name)
        return Path(f"{stem or 'cronlapse'}.trace.json")
    return source.with_name(f"{source.stem}.trace.json")


def export(engine: Engine, path: Path, name: str, clock: Clock | None) -> int:
    """Write the attempts up to the engine's tick to ``path``: CSV when it ends in ``.csv``,
    else a Chrome trace. Returns the number of attempts; OSError when it cannot be written."""
    events = list(engine.log)
    with path.open("w", encoding="utf-8", newline="") as out:
        if path.suffix.lower() == ".csv":
            return write_csv(events, out, clock)
        tick_seconds = clock.tick_seconds if clock is not None else 1
        return write_trace(events, engine.now, tick_seconds, name, out)
