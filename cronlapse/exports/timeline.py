"""Exports of a run's worker timeline: Chrome trace-event JSON (Perfetto, chrome://tracing) and CSV.

Both list attempts, one per row or slice, from :func:`~cronlapse.analyses.stats.attempt_records`.
In the trace each worker is a thread of process 1 named after it; an attempt is a complete
("X") event whose timestamp and duration are its ticks times the tick length, in microseconds.
An attempt still running at the end of the run is drawn up to that tick.
"""

from __future__ import annotations

import csv
import json
from typing import TextIO

from cronlapse.analyses.stats import AttemptRecord, attempt_records
from engine.model import events as ev
from engine.schedules.clock import Clock

CSV_COLUMNS = ("job", "scheduled", "attempt", "worker", "start", "end", "outcome")
CSV_TIME_COLUMNS = ("scheduled_time", "start_time", "end_time")
"""Added when the run has a clock."""


def write_trace(
    events: list[ev.Event], now: int, tick_seconds: int, title: str, out: TextIO
) -> int:
    """Write the trace of ``events`` (a run settled at tick ``now``); returns the slice count."""
    scale = tick_seconds * 1_000_000
    threads: dict[str, int] = {}
    for event in events:
        if isinstance(event, ev.WorkerRegistered):
            threads.setdefault(event.worker_id, len(threads) + 1)
    records = attempt_records(events)
    for record in records:
        threads.setdefault(record.worker_id, len(threads) + 1)
    trace: list[dict[str, object]] = [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": title}}
    ]
    for worker_id, tid in threads.items():
        trace.append(
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": worker_id}}
        )
        trace.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": 1,
                "tid": tid,
                "args": {"sort_index": tid},
            }
        )
    for record in records:
        end = now if record.end is None else record.end
        trace.append(
            {
                "name": record.job_id,
                "cat": record.outcome.value.lower(),
                "ph": "X",
                "pid": 1,
                "tid": threads[record.worker_id],
                "ts": record.start * scale,
                "dur": (end - record.start) * scale,
                "args": {
                    "scheduled": record.scheduled,
                    "attempt": record.attempt,
                    "outcome": record.outcome.value,
                },
            }
        )
    json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, out, ensure_ascii=False)
    out.write("\n")
    return len(records)


def write_csv(events: list[ev.Event], out: TextIO, clock: Clock | None = None) -> int:
    """One row per attempt, in start order; returns the row count. With a clock, the ticks'
    wall-clock times follow (ISO 8601 with UTC offset): ``scheduled_time``, ``start_time`` and
    ``end_time``."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS + (CSV_TIME_COLUMNS if clock is not None else ()))
    records = attempt_records(events)
    for record in records:
        row = _row(record)
        if clock is not None:
            ticks = (record.scheduled, record.start, record.end)
            row += ["" if tick is None else clock.format(tick) for tick in ticks]
        writer.writerow(row)
    return len(records)


def _row(record: AttemptRecord) -> list[object]:
    end = "" if record.end is None else record.end
    return [
        record.job_id,
        record.scheduled,
        record.attempt,
        record.worker_id,
        record.start,
        end,
        record.outcome.value,
    ]
