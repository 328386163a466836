"""A run's attempts: the worker each ran on, from when, and how it ended or how long it has run.

The other sections say why a run waited, failed or was cancelled; this one says where it ran,
the first thing asked of a run that is running or has succeeded. It reads the run's events: each
``AttemptStarted`` and the event that ended the same attempt number, which names the outcome
(succeeded, failed, timed out, lost, terminated).
"""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev

_ENDINGS: dict[type, tuple[str, Tag]] = {
    ev.AttemptSucceeded: ("succeeded", Tag.FACT),
    ev.AttemptFailed: ("failed", Tag.WARN),
    ev.AttemptTimedOut: ("timed out", Tag.WARN),
    ev.AttemptLost: ("lost", Tag.WARN),
    ev.AttemptTerminated: ("terminated", Tag.WARN),
}
"""How each ending reads, and whether it is a thing that went wrong."""


def attempts(context: Context, job_id: str, scheduled: int) -> Line | None:
    """One line per attempt of the run, in order; None if it has not started."""
    run = context.run_events(job_id, scheduled)
    ends = {event.attempt: event for event in run if type(event) in _ENDINGS}
    rows = []
    for event in run:
        if not isinstance(event, ev.AttemptStarted):
            continue
        start = f"attempt {event.attempt} on {event.worker_id} from {context.at(event.tick)}"
        end = ends.get(event.attempt)
        if end is None:
            so_far = context.ticks(context.now - event.tick)
            rows.append(line(f"{start}: running, {so_far} so far"))
            continue
        word, tag = _ENDINGS[type(end)]
        after = context.ticks(end.tick - event.tick)
        rows.append(line(f"{start}: {word} at {context.at(end.tick)}, after {after}", tag=tag))
    return section("Attempts", rows) if rows else None
