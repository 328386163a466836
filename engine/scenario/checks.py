"""What a scenario expects: answers of timeline commands, and checks of the engine's state.

Each answer or check compares itself with the engine and returns a :class:`Mismatch` (the expected
and the actual value, as the user would write them) or None. They are values, so a scenario that
holds them stays a pure description.
"""

from __future__ import annotations

import json

from engine.core import Assignment, Engine
from engine.model import events as ev
from engine.model.commands import Outcome, Result
from engine.model.records import OccurrenceState, WorkerState
from engine.model.values import value
from engine.scenario.errors import Position

OUTCOME_NAMES = {outcome.name.lower(): outcome for outcome in Outcome}
"""``created``, ``ok``, ``not_found``, ``conflict``, ``invalid``: how answers are written."""


def event_types() -> dict[str, type[ev.Event]]:
    """Every concrete event type by class name, read from :mod:`engine.model.events` so new ones
    count."""
    return {
        name: value
        for name, value in vars(ev).items()
        if isinstance(value, type)
        and issubclass(value, ev.Event)
        and value.__module__ == ev.__name__
        and value not in (ev.Event, ev.OccurrenceEvent, ev.NotificationEvent)
    }


COUNTABLE_STATES = {
    state.name: state
    for state in OccurrenceState
    if state not in (OccurrenceState.SCHEDULED, OccurrenceState.QUEUED)
}
"""States a scenario may count (runs kept as ranges, BLOCKED or CANCELLED, count one each). QUEUED
is left out (check a waiting run with ``status``), and SCHEDULED is infinite for a recurring job."""


@value
class Mismatch:
    expected: str
    actual: str


@value
class StatusQuery:
    """Seed 000's ``getJobStatus`` as a timeline entry: reads, changes nothing."""

    job_id: str
    scheduled: int

    def answer(self, engine: Engine) -> Result:
        return Result(Outcome.OK, engine.query.run_state(self.job_id, self.scheduled))


# ------------------------------------------------------------------ answers


def _outcome_text(result: Result) -> str:
    text = result.outcome.name.lower()
    return f"{text} ({result.message})" if result.message else text


@value
class Accepted:
    """``expect: true`` / ``false``: whether the engine accepted the command (seed 000's)."""

    value: bool

    def verify(self, result: Result) -> Mismatch | None:
        if result.accepted is self.value:
            return None
        actual = "true" if result.accepted else "false"
        return Mismatch(str(self.value).lower(), f"{actual} ({_outcome_text(result)})")


@value
class OutcomeIs:
    """``expect: conflict`` (or its HTTP status, 409)."""

    outcome: Outcome

    def verify(self, result: Result) -> Mismatch | None:
        if result.outcome is self.outcome:
            return None
        return Mismatch(self.outcome.name.lower(), _outcome_text(result))


def assignment_line(assignment: Assignment) -> str:
    """Seed 000's ``jobId,scheduledTime,attemptNumber,workerId``."""
    a = assignment
    return f"{a.job_id},{a.scheduled},{a.attempt},{a.worker_id}"


@value
class Assignments:
    """``expect: ["job,10,1,w-a"]``: the attempts a dispatch started, in order."""

    lines: tuple[str, ...]

    def verify(self, result: Result) -> Mismatch | None:
        if not isinstance(result.value, list):
            return Mismatch(json.dumps(list(self.lines)), _outcome_text(result))
        actual = tuple(assignment_line(a) for a in result.value)
        if actual == self.lines:
            return None
        return Mismatch(json.dumps(list(self.lines)), json.dumps(list(actual)))


@value
class StateIs:
    """The answer of a status query; None is seed 000's ``""`` (no such occurrence)."""

    state: OccurrenceState | None

    def verify(self, result: Result) -> Mismatch | None:
        if result.value is self.state:
            return None
        return Mismatch(_state_text(self.state), _state_text(result.value))


def _state_text(state: object) -> str:
    return state.name if isinstance(state, OccurrenceState) else '""'


Answer = Accepted | OutcomeIs | Assignments | StateIs


# ------------------------------------------------------------------- checks


@value
class OccurrenceStatus:
    job_id: str
    scheduled: int
    state: OccurrenceState

    def verify(self, engine: Engine) -> Mismatch | None:
        actual = engine.query.run_state(self.job_id, self.scheduled)
        if actual is self.state:
            return None
        subject = f"{self.job_id}@{self.scheduled}"
        shown = "no such occurrence" if actual is None else actual.name
        return Mismatch(f"{subject} {self.state.name}", shown)


@value
class AttemptCount:
    job_id: str
    scheduled: int
    attempts: int

    def verify(self, engine: Engine) -> Mismatch | None:
        actual = len(engine.query.attempts(self.job_id, self.scheduled))
        if actual == self.attempts:
            return None
        return Mismatch(
            f"{self.job_id}@{self.scheduled} with {self.attempts} attempts", str(actual)
        )


@value
class StateCount:
    """How many occurrences (of one job, or of all) are in ``state``."""

    job_id: str | None
    state: OccurrenceState
    count: int

    def verify(self, engine: Engine) -> Mismatch | None:
        actual = engine.query.count_runs(state=self.state, job_id=self.job_id)
        if actual == self.count:
            return None
        scope = "" if self.job_id is None else f" of {self.job_id}"
        return Mismatch(f"{self.count} {self.state.name} occurrences{scope}", str(actual))


@value
class EventCount:
    """How many events of one type (about one job, or any) the log holds so far."""

    job_id: str | None
    event_type: str
    count: int

    def verify(self, engine: Engine) -> Mismatch | None:
        kind = event_types()[self.event_type]
        if self.job_id is None:
            actual = engine.log.count(kind)
        else:
            selected = engine.log.select((kind,))
            actual = sum(1 for _, event in selected if event_job(event) == self.job_id)
        if actual == self.count:
            return None
        scope = "" if self.job_id is None else f" about {self.job_id}"
        return Mismatch(f"{self.count} {self.event_type} events{scope}", str(actual))


def event_job(event: ev.Event) -> str | None:
    """The job an event is about, if any (a notification's key starts with it)."""
    if isinstance(event, ev.NotificationEvent):
        return event.key[0]
    return getattr(event, "job_id", None)


@value
class WorkerStateIs:
    worker_id: str
    state: WorkerState

    def verify(self, engine: Engine) -> Mismatch | None:
        worker = engine.query.worker(self.worker_id)
        if worker is not None and worker.state is self.state:
            return None
        actual = "no such worker" if worker is None else worker.state.name
        return Mismatch(f"worker {self.worker_id} {self.state.name}", actual)


Check = OccurrenceStatus | AttemptCount | StateCount | EventCount | WorkerStateIs


@value
class Expectation:
    """A check of the state at ``tick``, after everything of that tick (see the tick order)."""

    tick: int
    check: Check
    pos: Position
    """Where the checked value is written."""
