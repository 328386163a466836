"""Workers as table rows: what each runs, since when, and how busy it has been."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.query.views import WorkerRow

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts


def worker_rows(parts: EngineParts) -> list[WorkerRow]:
    rows = []
    for worker in parts.workforce.workers.values():
        attempt = None
        if worker.running is not None:
            running = parts.occurrences[worker.running].running_attempt
            attempt = running.number if running is not None else None
        lifetime = parts.now - worker.registered
        busy = worker.busy_ticks_at(parts.now)
        rows.append(
            WorkerRow(
                worker.worker_id,
                worker.state,
                worker.running,
                attempt,
                worker.since,
                busy / lifetime if lifetime > 0 else 0.0,
            )
        )
    return rows
