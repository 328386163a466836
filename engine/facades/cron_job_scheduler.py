"""Seed 000's ``CronJobScheduler``: the engine with FIFO order, manual dispatch and reported
completion.

Everything here is argument checking and translation; the scheduling itself is the engine's.
Out-of-range arguments (beyond the specification's constraints) are rejected like any invalid call,
with the call's "rejected" answer (False, [] or ""); an argument of the wrong type raises TypeError
and a current time earlier than the scheduler's raises ValueError; neither changes anything.
"""

from __future__ import annotations

import re

from engine.core import Engine
from engine.model.commands import Command, Outcome, RegisterWorker, Result
from engine.model.ordering import JAVA_ASCII_WHITESPACE, java_is_blank, java_length
from engine.model.policies import CompletionMode, DispatchMode, DispatchOrder, Policy
from engine.model.records import JobSpec, OccurrenceState
from engine.play.ticks import TickDriver
from engine.schedules.kinds import Every, Once

MAX_ID_LENGTH = 100
MAX_TIME = 1_000_000_000_000
MAX_INTERVAL = 1_000_000_000
MAX_RETRIES = 10
MAX_ATTEMPT = MAX_RETRIES + 1

_OK = Outcome.OK
"""An accepted report's outcome, read once (an enum member read through its class is slow)."""

_STATUS: dict[OccurrenceState | None, str] = {None: ""} | {s: s.value for s in OccurrenceState}
"""A run's state as getJobStatus answers it ("" for no run): a dictionary's lookup where an enum
member's ``value`` is a property's call."""

SEED_000_POLICY = Policy(
    order=DispatchOrder.FIFO,
    dispatch=DispatchMode.MANUAL,
    completion=CompletionMode.REPORTED,
)


def _require_str(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def _require_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_id(value: str) -> bool:
    """Not blank, at most 100 UTF-16 code units (Java's length), no comma: the constraints.

    Surrogate code points are refused too: Python holds a surrogate pair and the character it
    encodes as two different strings, Java as one, so two ids Java cannot tell apart could exist."""
    if value.isascii():  # nearly every id: Java's length is the length, no surrogate can occur
        return len(value) <= MAX_ID_LENGTH and "," not in value and not java_is_blank(value)
    return (
        not java_is_blank(value)
        and java_length(value) <= MAX_ID_LENGTH
        and "," not in value
        and _SURROGATE.search(value) is None
    )


def _earlier(current_time: int, now: int) -> ValueError:
    return ValueError(
        f"current_time {current_time} is earlier than the scheduler's current time {now}"
    )


class CronJobScheduler:
    """Workers, one-time and fixed-interval jobs, retries and status queries (seed 000)."""

    def __init__(self) -> None:
        self._engine = engine = Engine(SEED_000_POLICY)
        self._driver = TickDriver(engine)
        self._now = engine.now
        """The engine's time, kept here as well: only this facade moves its engine, and every
        call compares its ``current_time`` with it (``Engine.now`` is a property's call)."""

    @property
    def engine(self) -> Engine:
        """The engine underneath, for views and tests; read it, do not drive it."""
        return self._engine

    def register_worker(self, worker_id: str) -> bool:
        _require_str("worker_id", worker_id)
        if not _valid_id(worker_id):
            return False
        return self._run(RegisterWorker(worker_id)).accepted

    def schedule_job(
        self,
        job_id: str,
        first_run_time: int,
        interval: int,
        max_retries: int,
        current_time: int,
    ) -> bool:
        if not (
            type(job_id) is str
            and type(first_run_time) is int
            and type(interval) is int
            and type(max_retries) is int
            and type(current_time) is int
        ):  # the common case checked at once; the checks below name the wrong argument
            _require_str("job_id", job_id)
            _require_int("first_run_time", first_run_time)
            _require_int("interval", interval)
            _require_int("max_retries", max_retries)
            _require_int("current_time", current_time)
        if not self._move_to(current_time):
            return False
        # ``_valid_id``'s common case written out: a hundred thousand calls.
        if job_id.isascii():
            if (
                len(job_id) > MAX_ID_LENGTH
                or "," in job_id
                or not job_id.strip(JAVA_ASCII_WHITESPACE)
            ):
                return False
        elif not _valid_id(job_id):
            return False
        if (
            not current_time <= first_run_time <= MAX_TIME
            or not 0 <= interval <= MAX_INTERVAL
            or not 0 <= max_retries <= MAX_RETRIES
        ):
            return False
        schedule = Every(first_run_time, interval) if interval else Once(first_run_time)
        spec = JobSpec(job_id, schedule, max_retries + 1)  # max_attempts: positional is cheaper
        # Checked above: within the engine's limits, no rules, the first run from now on.
        return self._engine.schedule_checked(spec, first_run_time)

    def dispatch_jobs(self, current_time: int) -> list[str]:
        if type(current_time) is not int:
            _require_int("current_time", current_time)
        if not self._move_to(current_time):
            return []
        # ``Engine.dispatch``: what the ``Dispatch`` command's route calls, without the command.
        assignments = self._engine.dispatch()
        return [f"{a.job_id},{a.scheduled},{a.attempt},{a.worker_id}" for a in assignments]

    def complete_job(
        self,
        job_id: str,
        scheduled_time: int,
        attempt_number: int,
        successful: bool,
        current_time: int,
    ) -> bool:
        if not (
            type(job_id) is str
            and type(scheduled_time) is int
            and type(attempt_number) is int
            and type(successful) is bool
            and type(current_time) is int
        ):
            _require_str("job_id", job_id)
            _require_int("scheduled_time", scheduled_time)
            _require_int("attempt_number", attempt_number)
            if not isinstance(successful, bool):
                raise TypeError(f"successful must be a bool, not {type(successful).__name__}")
            _require_int("current_time", current_time)
        if not self._move_to(current_time):
            return False
        if not 1 <= attempt_number <= MAX_ATTEMPT or not 0 <= scheduled_time <= MAX_TIME:
            return False
        # ``Engine.complete``: what the ``Complete`` command's route calls, without the command.
        result = self._engine.complete(job_id, scheduled_time, attempt_number, successful)
        return result.outcome is _OK

    def get_job_status(self, job_id: str, scheduled_time: int, current_time: int) -> str:
        if not (type(job_id) is str and type(scheduled_time) is int and type(current_time) is int):
            _require_str("job_id", job_id)
            _require_int("scheduled_time", scheduled_time)
            _require_int("current_time", current_time)
        if not self._move_to(current_time) or not 0 <= scheduled_time <= MAX_TIME:
            return ""
        return _STATUS[self._engine.query.run_state(job_id, scheduled_time)]

    def _move_to(self, current_time: int) -> bool:
        """Make ``current_time`` the scheduler's time; False if it is outside the allowed range.

        A later time is the engine's ``advance``, not the driver's ``start``: this facade only
        ever rests at the start of a tick (its calls run before the tick's events, and under
        manual dispatch and reported completion a tick has none), so ``start`` would only add a
        read of the time this facade keeps and a stage that never leaves the start: 1,300
        instructions on each of the calls that move time, nearly every one on seed 000's
        maximum workload."""
        if not 0 <= current_time <= MAX_TIME:
            return False
        now = self._now
        if current_time != now:
            if current_time < now:
                raise _earlier(current_time, now)
            self._engine.advance(current_time)
            self._now = current_time
        return True

    def _run(self, command: Command) -> Result:
        """Every call happens at the start of its ``current_time``, before that tick's own
        events (there are none under manual dispatch and reported completion)."""
        return self._driver.apply_now(command)

    registerWorker = register_worker
    scheduleJob = schedule_job
    dispatchJobs = dispatch_jobs
    completeJob = complete_job
    getJobStatus = get_job_status
