"""The limits of a job definition, in one place: every entry point refuses the same values with
the same message.

The engine checks a :class:`JobSpec` against these limits when a job is scheduled or modified
(:func:`spec_problem`). The scenario format and the dashboard read their values through the same
:class:`Limit` objects, so they refuse a value before it reaches the engine, with the engine's
words, at the key that holds it.

Why these numbers:

- **priority** is a 32-bit signed integer, from -2147483648 to 2147483647. Seed 001's protocol
  takes "an integer base priority" and the seeds' signatures are Java ones (``int``), so this is
  every priority a seed can give; seed 003's levels are 0, 1 and 2. The scenario format used to
  stop at ±1000, a bound of its own that refused priorities the protocol and the dashboard took.
- **duration** and **timeout** are 1 to 10**12 ticks: seed 000's largest time, far beyond any run.
- **max_attempts** is 1 to 1001 (``max_retries`` 0 to 1000): more retries than any backoff lets
  happen within a run, and attempt numbers stay short enough to read in a table.
- **failure_rate** is a probability, 0 to 1.
- **max_active** is 1 to a million: a job with more runs active at once than that has no limit
  worth the name.
- **run_timeout** is 1 to 10**12 ticks, as **timeout**: a run's limit, where timeout is an
  attempt's.
"""

from __future__ import annotations

import math

from engine.model.problems import Code, Problem, refusal
from engine.model.records import JobSpec
from engine.model.values import value

MAX_DURATION = 10**12
MAX_ATTEMPTS = 1001


@value
class Limit:
    """The values a field takes: whole numbers (or any finite number) from ``low`` to ``high``."""

    low: int | float
    high: int | float
    whole: bool = True

    @property
    def expected(self) -> str:
        """What the field takes, for messages: ``a whole number from 1 to 1001``."""
        kind = "a whole number" if self.whole else "a number"
        return f"{kind} from {self.low} to {self.high}"

    def problem(self, value: object) -> str | None:
        """What is wrong with ``value`` for this field, or None."""
        if type(value) is int and self.low <= value <= self.high:
            return None  # the common case, checked first: every job passes here
        if isinstance(value, bool) or not isinstance(value, int if self.whole else int | float):
            return f"expected {self.expected}, got {value!r}"
        if not math.isfinite(value) or not self.low <= value <= self.high:
            return f"expected {self.expected}, got the number {value}"
        return None


PRIORITY = Limit(-(2**31), 2**31 - 1)
DURATION = Limit(1, MAX_DURATION)
TIMEOUT = Limit(1, MAX_DURATION)
ATTEMPTS = Limit(1, MAX_ATTEMPTS)
"""``max_attempts``: the first attempt and its retries."""
RETRIES = Limit(0, MAX_ATTEMPTS - 1)
"""``max_retries``, the form seed 000 gives: ``max_attempts - 1``."""
ATTEMPT = Limit(1, MAX_ATTEMPTS)
"""An attempt number: in ``fail``/``hang`` lists and in complete and fail commands."""
FAILURE_RATE = Limit(0.0, 1.0, whole=False)
DEADLINE = Limit(1, MAX_DURATION)
"""``deadline``: ticks after a run's scheduled tick by which it should have finished."""
CATCH_UP_WINDOW = Limit(0, MAX_DURATION)
"""``catch_up_window``: 0 runs only a run missed at the very tick of the resume."""
MAX_MISSED = Limit(0, 10**6)
"""``max_missed``: Kubernetes' rule is 100; counting stops one past it."""
MAX_ACTIVE = Limit(1, 10**6)
"""``max_active``: a job's active runs at once (its overlap rule's limit)."""
START_DEADLINE = Limit(0, MAX_DURATION)
"""``start_deadline``: 0 lets a run start only at its own tick."""
RUN_TIMEOUT = Limit(1, MAX_DURATION)
"""``run_timeout``: ticks from a run's first attempt's start by which it must be over."""
BACKFILL_RUNS = Limit(1, 10**6)
"""A backfill's ``max_runs``: the runs in its range it may take on (default 10,000)."""
DEFAULT_BACKFILL_RUNS = 10_000

LIMITS: dict[str, Limit] = {
    "priority": PRIORITY,
    "duration": DURATION,
    "timeout": TIMEOUT,
    "max_attempts": ATTEMPTS,
    "max_retries": RETRIES,
    "failure_rate": FAILURE_RATE,
    "max_active": MAX_ACTIVE,
    "deadline": DEADLINE,
    "catch_up_window": CATCH_UP_WINDOW,
    "max_missed": MAX_MISSED,
    "start_deadline": START_DEADLINE,
    "run_timeout": RUN_TIMEOUT,
}
"""The limited job fields by the name a file and the command line give them."""


def spec_problem(spec: JobSpec) -> Problem | None:
    """What is wrong with a job definition (the first field past its limit, its message
    ``field: what was expected``), or None."""
    if _plainly_valid(spec):
        return None
    fields: list[tuple[str, Limit, object]] = [
        ("priority", PRIORITY, spec.priority),
        ("duration", DURATION, spec.duration),
        ("max_attempts", ATTEMPTS, spec.max_attempts),
        ("failure_rate", FAILURE_RATE, spec.failure_rate),
    ]
    if spec.timeout is not None:
        fields.append(("timeout", TIMEOUT, spec.timeout))
    if spec.fail_attempts:
        fields += [("fail_attempts", ATTEMPT, n) for n in sorted(spec.fail_attempts)]
    if spec.hang_attempts:
        fields += [("hang_attempts", ATTEMPT, n) for n in sorted(spec.hang_attempts)]
    if spec.overlap is not None:
        fields.append(("max_active", MAX_ACTIVE, spec.overlap.limit))
    if spec.deadline is not None:
        fields.append(("deadline", DEADLINE, spec.deadline))
    if spec.catch_up_window is not None:
        fields.append(("catch_up_window", CATCH_UP_WINDOW, spec.catch_up_window))
    if spec.max_missed is not None:
        fields.append(("max_missed", MAX_MISSED, spec.max_missed))
    if spec.start_deadline is not None:
        fields.append(("start_deadline", START_DEADLINE, spec.start_deadline))
    if spec.run_timeout is not None:
        fields.append(("run_timeout", RUN_TIMEOUT, spec.run_timeout))
    for name, limit, given in fields:
        problem = limit.problem(given)
        if problem is not None:
            return refusal(Code.OUT_OF_RANGE, f"{name}: {problem}", name)
    return None


def _plainly_valid(spec: JobSpec) -> bool:
    """The common case at the cost of a few comparisons (every job scheduled passes here, and
    seed 000's workloads schedule a hundred thousand): plain values within the limits and no
    scripted attempts. Anything else takes the path that finds the message."""
    priority, duration, attempts = spec.priority, spec.duration, spec.max_attempts
    timeout, rate = spec.timeout, spec.failure_rate
    return (
        type(priority) is int
        and _PRIORITY_LOW <= priority <= _PRIORITY_HIGH
        and type(duration) is int
        and _DURATION_LOW <= duration <= _DURATION_HIGH
        and type(attempts) is int
        and _ATTEMPTS_LOW <= attempts <= _ATTEMPTS_HIGH
        and (type(rate) is float or type(rate) is int)
        and _RATE_LOW <= rate <= _RATE_HIGH
        and (timeout is None or (type(timeout) is int and _TIMEOUT_LOW <= timeout <= _TIMEOUT_HIGH))
        and (not spec.fail_attempts or _plain_attempts(spec.fail_attempts))
        and not spec.hang_attempts
        and spec.overlap is None
        and spec.deadline is None
        and spec.catch_up_window is None
        and spec.max_missed is None
        and spec.start_deadline is None
        and spec.run_timeout is None
    )


def _plain_attempts(numbers: frozenset[int]) -> bool:
    return all(type(n) is int and _ATTEMPT_LOW <= n <= _ATTEMPT_HIGH for n in numbers)


# The limits' bounds as module names for the check above: a global is read faster than an
# attribute of one, and every job is checked.
_PRIORITY_LOW, _PRIORITY_HIGH = PRIORITY.low, PRIORITY.high
_DURATION_LOW, _DURATION_HIGH = DURATION.low, DURATION.high
_ATTEMPTS_LOW, _ATTEMPTS_HIGH = ATTEMPTS.low, ATTEMPTS.high
_ATTEMPT_LOW, _ATTEMPT_HIGH = ATTEMPT.low, ATTEMPT.high
_RATE_LOW, _RATE_HIGH = FAILURE_RATE.low, FAILURE_RATE.high
_TIMEOUT_LOW, _TIMEOUT_HIGH = TIMEOUT.low, TIMEOUT.high
