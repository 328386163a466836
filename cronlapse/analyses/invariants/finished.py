"""The runs the log has finished, kept per job as arithmetic progressions of scheduled ticks.

The safety check must know, at every attempt started, whether the log already finished that run;
a month of a fleet finishes millions of runs. A set of keys costs about 150 bytes a run, a sorted
column of ticks 8. But a job's runs mostly finish in the order they were due, at its schedule's
steps: as progressions (first tick, step, count) they cost a few per job however long the run,
so the checker's memory follows the jobs, not the history. A run that finishes out of order
starts a progression of its own (or splits the one it falls inside).
"""

from __future__ import annotations

import bisect
from array import array


class _Progressions:
    """One job's finished ticks: progressions ``start + step * i`` for ``i < count``, disjoint
    and in order of their ticks; ``last`` is the latest tick held (None: none yet)."""

    __slots__ = ("counts", "last", "next", "starts", "steps")

    def __init__(self) -> None:
        self.starts = array("q")
        self.steps = array("q")
        self.counts = array("q")
        self.last: int | None = None
        self.next: int | None = None
        """The next term of the last progression, once it has two (None: it has one, or none
        is held): nearly every run a job finishes is that term, added here without a call."""

    def _last(self, at: int) -> int:
        return self.starts[at] + self.steps[at] * (self.counts[at] - 1)

    def _holding(self, tick: int) -> int:
        """The index of the last progression starting at or before ``tick`` (-1 if none)."""
        return bisect.bisect_right(self.starts, tick) - 1

    def __contains__(self, tick: int) -> bool:
        last = self.last
        if last is None or tick > last:  # the common question: a run after every one held
            return False
        at = self._holding(tick)
        if at < 0:
            return False
        offset, step = tick - self.starts[at], self.steps[at]
        return offset == 0 or (offset % step == 0 and offset // step < self.counts[at])

    def add(self, tick: int) -> None:
        if tick == self.next:
            self.counts[-1] += 1
            self.last, self.next = tick, tick + self.steps[-1]
            return
        last = self.last
        if last is None or tick > last:
            self._append(tick)
        elif tick not in self:
            self._insert(tick)

    def _append(self, tick: int) -> None:
        """After every tick held, and not the last progression's next term: its second term
        (the step is what lies between the two), or a new progression."""
        at, last = len(self.starts) - 1, self.last
        self.last = tick
        if at >= 0 and self.counts[at] == 1:
            step = tick - last  # type: ignore[operator]
            self.steps[at], self.counts[at] = step, 2
            self.next = tick + step
        else:
            self._put(at + 1, tick, 1, 1)
            self.next = None

    def _insert(self, tick: int) -> None:
        """Out of order: between two progressions, or inside one (split around ``tick``)."""
        at = self._holding(tick)
        if at < 0 or tick > self._last(at):
            self._put(at + 1, tick, 1, 1)
            return
        start, step, count = self.starts[at], self.steps[at], self.counts[at]
        before = (tick - start) // step + 1
        self.counts[at] = before
        self._put(at + 1, tick, 1, 1)
        self._put(at + 2, start + step * before, step, count - before)

    def _put(self, at: int, start: int, step: int, count: int) -> None:
        self.starts.insert(at, start)
        self.steps.insert(at, step)
        self.counts.insert(at, count)

    def __len__(self) -> int:
        return sum(self.counts)


class FinishedRuns:
    """A set of runs ``(job id, scheduled tick)``, compact per job. Asked and added to with a
    run's parts, not its key: a key built for each and ``in``'s call through a slot cost 1,200
    of the 1,500 instructions each of the demo's 78,323 attempts started spent asking."""

    __slots__ = ("_jobs",)

    def __init__(self) -> None:
        self._jobs: dict[str, _Progressions] = {}

    def add(self, job_id: str, scheduled: int) -> None:
        ticks = self._jobs.get(job_id)
        if ticks is None:
            ticks = self._jobs[job_id] = _Progressions()
        ticks.add(scheduled)

    def holds(self, job_id: str, scheduled: int) -> bool:
        """Whether the run was added (nearly always asked of one after every run its job
        finished: answered without a search)."""
        ticks = self._jobs.get(job_id)
        if ticks is None:
            return False
        last = ticks.last
        return last is not None and scheduled <= last and scheduled in ticks

    def __len__(self) -> int:
        return sum(map(len, self._jobs.values()))
