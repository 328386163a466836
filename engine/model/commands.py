"""Commands: every change to the engine enters as one of these values.

Commands are plain frozen data so that a history can record and replay them, a scenario timeline
can hold them and the dashboard's command line can build them. Each answers with a :class:`Result`
whose outcome maps one-to-one onto an HTTP status, so an HTTP layer is a thin mapping.
"""

from __future__ import annotations

from enum import Enum

from engine.model.limits import DEFAULT_BACKFILL_RUNS
from engine.model.problems import Code, Problem, refusal
from engine.model.records import BackfillOrder, CatchUp, JobSpec
from engine.model.values import value


class Outcome(Enum):
    """How a command ended, with the HTTP status an API would answer."""

    CREATED = 201
    OK = 200
    NOT_FOUND = 404
    CONFLICT = 409
    INVALID = 422

    # Members are singletons: identity hashing is correct, and faster than Enum's name hash.
    __hash__ = object.__hash__

    @property
    def accepted(self) -> bool:
        return self in _ACCEPTED


_ACCEPTED = frozenset({Outcome.CREATED, Outcome.OK})
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook), and every command asks this."""


@value
class Result:
    """A command's answer: its outcome, what it made (a job's id, a dispatch's assignments),
    and for a refused command the :class:`~engine.model.problems.Problem` that says why."""

    outcome: Outcome
    value: object = None
    problem: Problem | None = None

    @property
    def accepted(self) -> bool:
        return self.outcome in _ACCEPTED

    @property
    def message(self) -> str:
        """Why the command was refused, for people; empty when it was not."""
        return "" if self.problem is None else self.problem.message


def refused(
    outcome: Outcome, code: Code, message: str, path: str = "", subject: str = ""
) -> Result:
    """The answer of a command the engine refuses: ``outcome`` (not found, conflict, invalid)
    and the problem, with its code and the field it concerns."""
    return Result(outcome, None, refusal(code, message, path, subject))


DONE = Result(Outcome.OK)
"""The answer of a command that succeeded with nothing to say: one value, shared."""


@value
class RegisterWorker:
    worker_id: str


@value
class ScheduleJob:
    spec: JobSpec


@value
class Dispatch:
    """Create every due occurrence and assign pending ones to idle workers (manual dispatch)."""


@value
class Complete:
    """A worker's report of how an attempt ended (reported completion)."""

    job_id: str
    scheduled: int
    attempt: int
    succeeded: bool


@value
class ReportDelivery:
    """How one delivery try of a notification ended, as whoever delivered it reports
    (reported delivery): ``key`` is the notification's idempotency key."""

    key: tuple[str, int, int, str, str, str]
    delivered: bool


@value
class Advance:
    """Move time to ``to``: every tick before it is processed, tick ``to`` is not yet."""

    to: int


@value
class ScriptFailure:
    """Script that attempt number ``attempt`` of each occurrence of ``job_id`` fails."""

    job_id: str
    attempt: int


MODIFIABLE_FIELDS = frozenset(
    {"schedule", "payload", "priority", "max_attempts", "timeout", "duration", "catch_up", "notify"}
)
"""What ModifyJob may change; anything else about a job needs a new job."""


@value
class ModifyJob:
    """Change a job's definition; occurrences created before keep the definition they had."""

    job_id: str
    changes: tuple[tuple[str, object], ...]

    @classmethod
    def of(cls, job_id: str, **changes: object) -> ModifyJob:
        return cls(job_id, tuple(sorted(changes.items())))


@value
class CancelOccurrence:
    """Cancel one occurrence: the one at ``scheduled``, or the job's next one when None."""

    job_id: str
    scheduled: int | None = None


@value
class DeleteJob:
    job_id: str


@value
class PauseJob:
    job_id: str


@value
class ResumeJob:
    """Resume a paused job; ``catch_up`` overrides the job's own choice for this resume."""

    job_id: str
    catch_up: CatchUp | None = None


@value
class BackfillJob:
    """Create the job's runs whose logical (scheduled) ticks fall in ``[first, last]`` and that
    do not exist, in ``order``; refused when the range holds more than ``max_runs`` runs."""

    job_id: str
    first: int
    last: int
    order: BackfillOrder = BackfillOrder.PARALLEL
    max_runs: int = DEFAULT_BACKFILL_RUNS


@value
class WorkerDown:
    """The worker crashes: its running attempt is LOST and retried elsewhere."""

    worker_id: str


@value
class WorkerUp:
    worker_id: str


@value
class DrainWorker:
    """The worker finishes its running attempt, then takes no more work until WorkerUp."""

    worker_id: str


Command = (
    RegisterWorker
    | ScheduleJob
    | Dispatch
    | Complete
    | ReportDelivery
    | Advance
    | ScriptFailure
    | ModifyJob
    | CancelOccurrence
    | DeleteJob
    | PauseJob
    | ResumeJob
    | BackfillJob
    | WorkerDown
    | WorkerUp
    | DrainWorker
)
