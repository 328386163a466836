"""A small reference model of the seed 001 script protocol, for tests only.

It is written for clarity, not speed: every tick it scans every job. It never imports the engine,
so the property tests in ``test_script_vs_model.py`` compare two independent implementations.

The semantics are those the team fixed where the specification is silent:

- The clock starts at 0. ``TICK n`` processes ticks clock .. clock+n-1 and leaves the clock at
  clock+n. At each tick the running attempt completes first (if it ends at that tick), then, if the
  worker is free, at most one job starts.
- An attempt started at tick s with duration d completes at tick s+d.
- ``attemptsUsed`` counts attempts that have started (the running attempt included).
- waitingTicks = tick - runnable_since, where runnable_since is the clock at submission if all
  dependencies had already succeeded then, else the tick at which the last dependency succeeded.
  Aging never resets. effective = priority + waitingTicks // AGING_STEP; the pick is the highest
  effective, then the earliest submission (ids never decide: submission order is unique).
- A failed attempt with attempts left makes the job PENDING and schedulable again from
  fail_tick + BACKOFF_BASE * 2 ** (attemptsUsed - 1).
- FAILATTEMPT is printed for every failed attempt (the last one included), then FAILED, then one
  CANCEL per unfinished transitive dependent, level by level (each level in submission order, a job
  at its shallowest level only).
- A job submitted while a dependency is FAILED or CANCELLED prints only OK (SUBMIT prints one
  line; the cascade runs only when a job *becomes* FAILED): it stays PENDING and is never
  runnable; a later permanent failure of another of its dependencies cancels it in that cascade.
- Errors print nothing; the line is skipped and its 1-based number recorded.

Two shortcuts keep large ``TICK`` values cheap without changing any outcome: while an attempt is
running and not yet due, nothing can happen, so those ticks are skipped; and when nothing is
running and no job is PENDING, nothing can happen until the next command, so the rest of the
``TICK`` is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ModelError", "ProtocolModel", "model_run"]

_INTEGER = re.compile(r"-?[0-9]+")


class ModelError(Exception):
    """A rejected line: the model records its number and skips it."""


@dataclass(slots=True)
class Job:
    """One submitted job and everything the model knows about it."""

    id: str
    order: int  # submission order, 0-based, unique
    priority: int
    duration: int
    max_attempts: int
    deps: list[str]
    submitted_at: int  # the clock when it was submitted
    state: str = "PENDING"  # PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED
    attempts: int = 0  # attempts started so far
    eligible_from: int = 0  # backoff: may not start before this tick
    ends_at: int = -1  # tick at which the running attempt completes
    succeeded_at: int = -1


def _int(token: str, what: str, minimum: int | None = None) -> int:
    if not _INTEGER.fullmatch(token):
        raise ModelError(f"{what} must be an integer, got {token!r}")
    try:
        value = int(token)
    except ValueError:  # more digits than int reads (4,300)
        raise ModelError(f"{what} has too many digits") from None
    if minimum is not None and value < minimum:
        raise ModelError(f"{what} must be at least {minimum}, got {value}")
    return value


def _arity(fields: list[str], count: int) -> None:
    if len(fields) != count:
        raise ModelError(f"{fields[0]} takes {count - 1} field(s), got {len(fields) - 1}")


class ProtocolModel:
    """Runs script lines one at a time; ``output`` and ``errors`` collect the results."""

    def __init__(self) -> None:
        self.initialized = False
        self.aging_step = 1
        self.backoff_base = 0
        self.clock = 0
        self.jobs: dict[str, Job] = {}  # insertion order is submission order
        self.fails: set[tuple[str, int]] = set()
        self.running: Job | None = None
        self.output: list[str] = []
        self.errors: list[tuple[int, str]] = []

    # ---- lines ----------------------------------------------------------------------------

    def feed(self, number: int, line: str) -> None:
        fields = line.split()
        if not fields:
            return  # blank lines are ignored
        try:
            self._command(fields)
        except ModelError as exc:
            self.errors.append((number, str(exc)))

    def _command(self, fields: list[str]) -> None:
        name = fields[0]
        handlers = {
            "INIT": self._init,
            "SUBMIT": self._submit,
            "FAIL": self._fail,
            "TICK": self._tick_command,
            "STATUS": self._status,
            "RUNNING": self._running,
        }
        if name not in handlers:
            raise ModelError(f"unknown command {name!r}")
        if name != "INIT" and not self.initialized:
            raise ModelError("INIT missing")
        handlers[name](fields)

    def _init(self, fields: list[str]) -> None:
        if self.initialized:
            raise ModelError("INIT repeated")
        _arity(fields, 3)
        aging_step = _int(fields[1], "AGING_STEP", 1)
        backoff_base = _int(fields[2], "BACKOFF_BASE", 0)
        self.aging_step, self.backoff_base = aging_step, backoff_base
        self.initialized = True

    def _submit(self, fields: list[str]) -> None:
        if len(fields) < 6:
            raise ModelError("SUBMIT needs id priority duration maxAttempts depCount [deps]")
        job_id = fields[1]
        priority = _int(fields[2], "priority")
        duration = _int(fields[3], "duration", 1)
        max_attempts = _int(fields[4], "maxAttempts", 1)
        dep_count = _int(fields[5], "depCount")
        deps = fields[6:]
        if dep_count != len(deps):
            raise ModelError(f"depCount {dep_count} but {len(deps)} dependencies listed")
        if job_id in self.jobs:
            raise ModelError(f"job {job_id!r} already submitted")
        if any(dep not in self.jobs for dep in deps):
            self.output.append(f"BADDEP {job_id}")
            return
        job = Job(
            id=job_id,
            order=len(self.jobs),
            priority=priority,
            duration=duration,
            max_attempts=max_attempts,
            deps=deps,
            submitted_at=self.clock,
        )
        self.jobs[job_id] = job
        self.output.append(f"OK {job_id}")

    def _fail(self, fields: list[str]) -> None:
        _arity(fields, 3)
        attempt = _int(fields[2], "attempt", 1)
        self.fails.add((fields[1], attempt))

    def _status(self, fields: list[str]) -> None:
        _arity(fields, 2)
        job = self.jobs.get(fields[1])
        if job is None:
            self.output.append(f"{fields[1]} UNKNOWN 0")
        else:
            self.output.append(f"{job.id} {job.state} {job.attempts}")

    def _running(self, fields: list[str]) -> None:
        _arity(fields, 1)
        self.output.append(self.running.id if self.running is not None else "IDLE")

    def _tick_command(self, fields: list[str]) -> None:
        _arity(fields, 2)
        n = _int(fields[1], "tick count", 0)
        end = self.clock + n
        t = self.clock
        while t < end:
            if self.running is not None and self.running.ends_at > t:
                t = min(self.running.ends_at, end)  # busy and not due: nothing happens
                continue
            if self.running is None and not any(self._may_run(j) for j in self.jobs.values()):
                break  # nothing can ever happen again until the next command
            self._tick(t)
            t += 1
        self.clock = end

    # ---- one tick -------------------------------------------------------------------------

    def _tick(self, t: int) -> None:
        if self.running is not None and self.running.ends_at == t:
            self._complete(self.running, t)
        if self.running is None:
            candidates = [job for job in self.jobs.values() if self._schedulable(job, t)]
            if candidates:
                best = min(candidates, key=lambda job: (-self._effective(job, t), job.order))
                best.state = "RUNNING"
                best.attempts += 1
                best.ends_at = t + best.duration
                self.running = best
                self.output.append(f"START {best.id} {t}")

    def _may_run(self, job: Job) -> bool:
        """PENDING and not stuck behind a dependency that can never succeed."""
        return job.state == "PENDING" and all(
            self.jobs[dep].state == "SUCCEEDED" or self._may_run(self.jobs[dep]) for dep in job.deps
        )

    def _schedulable(self, job: Job, t: int) -> bool:
        return (
            job.state == "PENDING"
            and all(self.jobs[dep].state == "SUCCEEDED" for dep in job.deps)
            and job.eligible_from <= t
        )

    def _runnable_since(self, job: Job) -> int:
        # Dependencies that succeeded before the submission did so at ticks < submitted_at.
        return max([job.submitted_at] + [self.jobs[dep].succeeded_at for dep in job.deps])

    def _effective(self, job: Job, t: int) -> int:
        return job.priority + (t - self._runnable_since(job)) // self.aging_step

    def _complete(self, job: Job, t: int) -> None:
        self.running = None
        attempt = job.attempts
        if (job.id, attempt) not in self.fails:
            job.state = "SUCCEEDED"
            job.succeeded_at = t
            self.output.append(f"DONE {job.id} {t}")
            return
        self.output.append(f"FAILATTEMPT {job.id} {t} {attempt}")
        if attempt < job.max_attempts:
            job.state = "PENDING"
            job.eligible_from = t + self.backoff_base * 2 ** (attempt - 1)
            return
        job.state = "FAILED"
        self.output.append(f"FAILED {job.id} {t}")
        seen = {job.id}
        level = [job.id]
        while level:
            following = [
                other
                for other in self.jobs.values()
                if other.id not in seen and any(dep in level for dep in other.deps)
            ]
            for other in following:
                seen.add(other.id)
                if other.state == "PENDING":
                    other.state = "CANCELLED"
                    self.output.append(f"CANCEL {other.id} {t}")
            level = [other.id for other in following]


def model_run(lines: Iterable[str]) -> tuple[list[str], list[int]]:
    """Run a whole script: the stdout lines and the 1-based numbers of the rejected lines."""
    model = ProtocolModel()
    for number, line in enumerate(lines, start=1):
        model.feed(number, line)
    return model.output, [number for number, _ in model.errors]
