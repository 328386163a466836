"""When a waiting run would start if nothing changed: found by playing the run on, not guessed.

The history plays forward from now with no new command (the scenario's own timeline still
applies: it is the world), event tick by event tick, until the run's first attempt starts, then
returns to now. Because the engine is deterministic, that is exactly what will happen unless
someone issues a command; the ticks played are recorded as any forward move would record them.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.history import History

STEP_LIMIT = 20_000
"""Event ticks played at most before answering "not within the ticks played"."""


@dataclass(frozen=True, slots=True)
class Forecast:
    start: int | None
    """The tick its next attempt starts; None when it does not within the ticks played."""
    worker_id: str | None
    played_to: int
    """The last tick played to find out."""


def next_start(history: History, job_id: str, scheduled: int, limit: int = STEP_LIMIT) -> Forecast:
    """Play on until the run has a new attempt started (or it ends, or ``limit`` steps)."""
    now = history.tick
    record = history.engine.occurrences.get((job_id, scheduled))
    started_before = len(record.attempts) if record is not None else 0
    found: Forecast | None = None
    played = now
    try:
        for _ in range(limit):
            if not history.step_forward():
                # No event before the end: the state holds to ``until`` (or for ever).
                played = max(history.tick, history.until or history.tick)
                break
            record = history.engine.occurrences.get((job_id, scheduled))
            if record is not None and len(record.attempts) > started_before:
                attempt = record.attempts[started_before]
                found = Forecast(attempt.started, attempt.worker_id, history.tick)
                break
            state = history.engine.occurrence_state(job_id, scheduled)
            if state is not None and state.is_final:
                break
        played = max(played, history.tick)
    finally:
        history.seek(now)
    return found or Forecast(None, None, played)
