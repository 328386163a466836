"""What happens next if nothing changes: found by playing the history on, not guessed.

The history plays forward from now with no new command (the scenario's own timeline still
applies: it is the world), event tick by event tick, until what is asked happens (a waiting
run's next attempt starts, or the run ends without one; a paused job is resumed; a run is
created), then returns to now. Because the engine is deterministic, that is exactly what will
happen unless someone issues a command; the ticks played are recorded as any forward move would
record them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from engine.model import events as ev
from engine.model.records import CancelReason, CatchUp, OccurrenceState
from engine.play.history import History

STEP_LIMIT = 20_000
"""Event ticks played at most before answering "not within the ticks played"."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RunEnd:
    """How a waiting run ends without starting again: a final state, or skipped."""

    tick: int
    state: OccurrenceState | None
    """CANCELLED (or another final state); None when a rule skipped it (it is no run then)."""
    reason: CancelReason | None = None
    cause: str | None = None
    """A cascade's root job, or a replacing overlap rule."""
    because: str | None = None
    """The rule that skipped it (``OccurrenceSkipped``), if one did."""


@dataclass(frozen=True, slots=True)
class Forecast:
    start: int | None
    """The tick its next attempt starts; None when it does not within the ticks played."""
    worker_id: str | None
    played_to: int
    """The last tick played to find out."""
    end: RunEnd | None = None
    """How it ends instead of starting, when it does within the ticks played."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The resume of a paused job found by playing on."""

    tick: int
    catch_up: CatchUp
    """The missed-run rule the resume applied (the job's own, or the command's)."""
    created: bool
    """Whether the run asked about exists after the resume's tick (its rule kept it, or it falls
    due later): False when the rule left it out."""


def next_start(history: History, job_id: str, scheduled: int, limit: int = STEP_LIMIT) -> Forecast:
    """Play on until the run has a new attempt started (or it ends, or ``limit`` steps)."""
    started_before = len(history.engine.query.attempts(job_id, scheduled))

    def look() -> Forecast | RunEnd | None:
        query = history.engine.query
        attempts = query.attempts(job_id, scheduled)
        if len(attempts) > started_before:
            attempt = attempts[started_before]
            return Forecast(attempt.started, attempt.worker_id, history.tick)
        state = query.run_state(job_id, scheduled)
        if state is None:
            return RunEnd(history.tick, None, because=_skip_rule(history, job_id, scheduled))
        if state.is_final:
            row = query.run(job_id, scheduled)
            reason = row.cancel_reason if row is not None else None
            cause = row.cancel_cause if row is not None else None
            return RunEnd(history.tick, state, reason, cause)
        return None

    found, played = play_until(history, look, limit)
    if isinstance(found, Forecast):
        return found
    return Forecast(None, None, played, found)


def next_resume(
    history: History, job_id: str, scheduled: int, limit: int = STEP_LIMIT
) -> tuple[Resume | None, int]:
    """Play on until the paused job is resumed: the resume (None if none comes) and the last
    tick played."""

    def look() -> Resume | None:
        job = history.engine.query.jobs()[job_id]
        if job.paused_through is not None:
            return None
        catch_up = next(
            (
                event.catch_up
                for event in history.events_at(history.tick)
                if isinstance(event, ev.JobResumed) and event.job_id == job_id
            ),
            job.spec.catch_up,
        )
        created = history.engine.query.run_state(job_id, scheduled) is not None
        return Resume(history.tick, catch_up, created)

    return play_until(history, look, limit)


def next_creation(
    history: History, job_id: str, scheduled: int, limit: int = STEP_LIMIT
) -> tuple[int | None, int]:
    """Play on until the run is created (under manual dispatch, by a dispatch): its tick (None
    if it is not) and the last tick played."""

    def look() -> int | None:
        state = history.engine.query.run_state(job_id, scheduled)
        return history.tick if state is not OccurrenceState.SCHEDULED else None

    return play_until(history, look, limit)


def play_until(history: History, look: Callable[[], T | None], limit: int) -> tuple[T | None, int]:
    """Play on, event tick by event tick, until ``look`` answers (read at each tick played),
    then come back to now: the answer (None if none came) and the last tick played."""
    now = history.tick
    played = now
    try:
        for _ in range(limit):
            if not history.step_forward():
                # No event before the end: the state holds to ``until`` (or for ever).
                return None, max(history.tick, history.until or history.tick)
            found = look()
            if found is not None:
                return found, history.tick
        played = max(played, history.tick)
    finally:
        history.seek(now)
    return None, played


def _skip_rule(history: History, job_id: str, scheduled: int) -> str | None:
    """The rule an ``OccurrenceSkipped`` of this tick names for the run, if one does."""
    return next(
        (
            event.because
            for event in history.events_at(history.tick)
            if isinstance(event, ev.OccurrenceSkipped)
            and (event.job_id, event.scheduled) == (job_id, scheduled)
        ),
        None,
    )
