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
    and in order of their ticks. The latest is open, kept as plain attributes (its
    :attr:`first` and :attr:`last` ticks and its :attr:`step`), the ones before it closed, in
    columns: nearly every run a job finishes is the open one's next term, added by moving
    :attr:`last` (:meth:`FinishedRuns.add`), with no count to keep in a column."""

    __slots__ = ("counts", "first", "last", "starts", "step", "steps")

    def __init__(self, tick: int) -> None:
        self.starts = array("q")
        self.steps = array("q")
        self.counts = array("q")
        self.first = self.last = tick
        self.step = 0
        """The open progression's step; 0 while it holds one tick (its next term, ``last +
        step``, is then ``last`` itself: adding it again changes nothing)."""

    def _last(self, at: int) -> int:
        return self.starts[at] + self.steps[at] * (self.counts[at] - 1)

    def __contains__(self, tick: int) -> bool:
        first = self.first
        if tick >= first:
            return tick <= self.last and (tick == first or (tick - first) % self.step == 0)
        at = bisect.bisect_right(self.starts, tick) - 1
        if at < 0:
            return False
        offset, step = tick - self.starts[at], self.steps[at]
        return offset == 0 or (offset % step == 0 and offset // step < self.counts[at])

    def add(self, tick: int) -> None:
        """A tick that is not the open progression's next term: its second term (the step is
        what lies between the two), the first of a new open one, or one out of order."""
        last = self.last
        if tick > last:
            if self.step == 0:
                self.step = tick - last
            else:
                self._close(self.first, self.step, last)
                self.first, self.step = tick, 0
            self.last = tick
        elif tick not in self:
            self._insert(tick)

    def _close(self, first: int, step: int, last: int) -> None:
        """A progression from ``first`` to ``last`` (step 0: one tick) joins the columns, after
        every one there."""
        step = step or 1
        self._put(len(self.starts), first, step, (last - first) // step + 1)

    def _insert(self, tick: int) -> None:
        """Out of order: inside the open progression (split around ``tick``: what lies before
        it is closed), between two closed ones, or inside one (split around ``tick``)."""
        first, step = self.first, self.step
        if tick > first:
            before = (tick - first) // step + 1
            self._close(first, step, first + step * (before - 1))
            self._close(tick, 0, tick)
            self.first = first + step * before
            return
        at = bisect.bisect_right(self.starts, tick) - 1
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
        step = self.step
        return sum(self.counts) + ((self.last - self.first) // step + 1 if step else 1)


class FinishedRuns:
    """A set of runs ``(job id, scheduled tick)``, compact per job. Asked and added to with a
    run's parts, not its key: a key built for each and ``in``'s call through a slot cost 1,200
    of the 1,500 instructions each of the demo's 78,323 attempts started spent asking."""

    __slots__ = ("_jobs",)

    def __init__(self) -> None:
        self._jobs: dict[str, _Progressions] = {}

    def add(self, job_id: str, scheduled: int) -> None:
        """Nearly always the next term of the job's open progression, added here without a
        call: counted in a column by a call of the job's own, each of the demo's 76,662 runs
        finished cost 4,000 instructions, here 2,000 (callgrind, its events replayed alone)."""
        ticks = self._jobs.get(job_id)
        if ticks is None:
            self._jobs[job_id] = _Progressions(scheduled)
        elif scheduled == ticks.last + ticks.step:
            ticks.last = scheduled
        else:
            ticks.add(scheduled)

    def holds(self, job_id: str, scheduled: int) -> bool:
        """Whether the run was added (nearly always asked of one after every run its job
        finished: answered without a search)."""
        ticks = self._jobs.get(job_id)
        return ticks is not None and scheduled <= ticks.last and scheduled in ticks

    def __len__(self) -> int:
        return sum(map(len, self._jobs.values()))
