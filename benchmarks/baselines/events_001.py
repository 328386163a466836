"""An event-driven implementation of seed 001's line protocol: the engine's yardstick there.

The decided semantics are docs/protocol.md's. A TICK jumps from event to event (a completion, or
the end of a backoff when the worker is idle), so ``TICK 10**12`` costs what happens in it.

Picking the next job: with ``a = priority * step - runnable_since`` a job's effective priority at
tick ``t`` is ``(a + t) // step`` and never changes otherwise, so the best jobs are those with the
largest ``a`` and any other ``a`` whose floor is the same, which lie in a window ``step`` wide
below it. Ready jobs are grouped by ``a`` (each group a heap of submission orders, the tie-break);
a pick looks at the groups in that window only.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

MAX_PRIORITY = 2**31 - 1
MAX_DURATION = 10**12
MAX_ATTEMPTS = 1001
"""The engine's limits (engine/model/limits.py): a SUBMIT beyond them is an error."""

_INTEGER = re.compile(r"-?[0-9]+\Z")


class LineError(Exception):
    """A rejected line."""


@dataclass(slots=True)
class Job:
    id: str
    order: int
    priority: int
    duration: int
    max_attempts: int
    dependents: list[int] = field(default_factory=list)
    unmet: int = 0
    """Dependencies that have not succeeded yet."""
    state: str = "PENDING"
    attempts: int = 0
    a: int = 0
    """priority * step - runnable_since, once runnable; aging never resets, so it stays."""


def _integer(token: str, minimum: int | None = None) -> int:
    if not _INTEGER.match(token):
        raise LineError(token)
    value = int(token)
    if minimum is not None and value < minimum:
        raise LineError(token)
    return value


class Session:
    """One script: ``feed`` lines, read ``output`` and ``errors`` (1-based line numbers)."""

    def __init__(self) -> None:
        self.output: list[str] = []
        self.errors: list[int] = []
        self.step = 0
        """AGING_STEP; 0 until INIT."""
        self.base = 0
        self.clock = 0
        self.jobs: list[Job] = []
        self.by_id: dict[str, Job] = {}
        self.fails: dict[str, set[int]] = {}
        self.running: Job | None = None
        self.ends_at = 0
        self.groups: dict[int, list[int]] = {}
        """Ready jobs: a -> heap of submission orders."""
        self.tops: list[int] = []
        """Max-heap (negated) of the ``a`` values that have a group."""
        self.backoff: list[tuple[int, int, int]] = []
        """(eligible from, order, a) of jobs waiting out a backoff."""

    def feed(self, number: int, line: str) -> None:
        tokens = line.split()
        if not tokens:
            return
        try:
            self._command(tokens)
        except LineError:
            self.errors.append(number)

    def _command(self, tokens: list[str]) -> None:
        name = tokens[0]
        if name == "INIT":
            if self.step or len(tokens) != 3:
                raise LineError(name)
            step, base = _integer(tokens[1], 1), _integer(tokens[2], 0)
            self.step, self.base = step, base
            return
        if name not in ("SUBMIT", "FAIL", "TICK", "STATUS", "RUNNING") or not self.step:
            raise LineError(name)
        if name == "SUBMIT":
            self._submit(tokens)
            return
        if len(tokens) != {"FAIL": 3, "TICK": 2, "STATUS": 2, "RUNNING": 1}[name]:
            raise LineError(name)
        if name == "FAIL":
            self.fails.setdefault(tokens[1], set()).add(_integer(tokens[2], 1))
        elif name == "TICK":
            self._tick(_integer(tokens[1], 0))
        elif name == "STATUS":
            job = self.by_id.get(tokens[1])
            if job is None:
                self.output.append(f"{tokens[1]} UNKNOWN 0")
            else:
                self.output.append(f"{job.id} {job.state} {job.attempts}")
        else:
            self.output.append("IDLE" if self.running is None else self.running.id)

    def _submit(self, tokens: list[str]) -> None:
        if len(tokens) < 6:
            raise LineError("SUBMIT")
        job_id = tokens[1]
        priority = _integer(tokens[2])
        duration = _integer(tokens[3], 1)
        max_attempts = _integer(tokens[4], 1)
        if _integer(tokens[5], 0) != len(tokens) - 6 or job_id in self.by_id:
            raise LineError("SUBMIT")
        deps = list(dict.fromkeys(tokens[6:]))
        if any(dep not in self.by_id for dep in deps):
            self.output.append(f"BADDEP {job_id}")
            return
        if (
            not -MAX_PRIORITY - 1 <= priority <= MAX_PRIORITY
            or duration > MAX_DURATION
            or max_attempts > MAX_ATTEMPTS
            or max(self.fails.get(job_id, ()), default=1) > MAX_ATTEMPTS
        ):
            raise LineError("SUBMIT")
        job = Job(job_id, len(self.jobs), priority, duration, max_attempts)
        self.jobs.append(job)
        self.by_id[job_id] = job
        for dep in deps:
            dependency = self.by_id[dep]
            dependency.dependents.append(job.order)
            job.unmet += dependency.state != "SUCCEEDED"
        if not job.unmet:
            self._make_ready(job, self.clock)
        self.output.append(f"OK {job_id}")

    # ---- time ----------------------------------------------------------------------------

    def _tick(self, ticks: int) -> None:
        end = self.clock + ticks
        t = self.clock
        while True:
            if self.running is not None:
                t = self.ends_at
                if t >= end:
                    break
                self._complete(self.running, t)
            elif not self.tops:
                if not self.backoff:
                    break
                t = max(t, self.backoff[0][0])
            if t >= end:
                break
            self._start(t)
        self.clock = end

    def _make_ready(self, job: Job, since: int) -> None:
        job.a = job.priority * self.step - since
        self._push(job.a, job.order)

    def _push(self, a: int, order: int) -> None:
        group = self.groups.get(a)
        if group is None:
            self.groups[a] = [order]
            heapq.heappush(self.tops, -a)
        else:
            heapq.heappush(group, order)

    def _start(self, t: int) -> None:
        backoff = self.backoff
        while backoff and backoff[0][0] <= t:
            _, order, a = heapq.heappop(backoff)
            self._push(a, order)
        if not self.tops:
            return
        tops, groups, step = self.tops, self.groups, self.step
        threshold = (t - tops[0]) // step * step - t
        window = []
        while tops and -tops[0] >= threshold:
            window.append(-heapq.heappop(tops))
        best = min(window, key=lambda a: groups[a][0])
        group = groups[best]
        job = self.jobs[heapq.heappop(group)]
        if not group:
            del groups[best]
        for a in window:
            if a in groups:
                heapq.heappush(tops, -a)
        job.state = "RUNNING"
        job.attempts += 1
        self.running, self.ends_at = job, t + job.duration
        self.output.append(f"START {job.id} {t}")

    def _complete(self, job: Job, t: int) -> None:
        self.running = None
        attempt = job.attempts
        if attempt not in self.fails.get(job.id, ()):
            job.state = "SUCCEEDED"
            self.output.append(f"DONE {job.id} {t}")
            for order in job.dependents:
                dependent = self.jobs[order]
                dependent.unmet -= 1
                if not dependent.unmet:
                    self._make_ready(dependent, t)
            return
        self.output.append(f"FAILATTEMPT {job.id} {t} {attempt}")
        if attempt < job.max_attempts:
            job.state = "PENDING"
            eligible = t + self.base * 2 ** (attempt - 1)
            heapq.heappush(self.backoff, (eligible, job.order, job.a))
            return
        job.state = "FAILED"
        self.output.append(f"FAILED {job.id} {t}")
        seen = {job.order}
        level = [job]
        while level:
            following = sorted({o for other in level for o in other.dependents} - seen)
            seen.update(following)
            level = [self.jobs[order] for order in following]
            for other in level:
                if other.state == "PENDING":
                    other.state = "CANCELLED"
                    self.output.append(f"CANCEL {other.id} {t}")


def execute(lines: Iterable[str]) -> tuple[list[str], list[int]]:
    """Run a script: its output lines and the numbers of its rejected lines."""
    session = Session()
    for number, line in enumerate(lines, start=1):
        session.feed(number, line)
    return session.output, session.errors
