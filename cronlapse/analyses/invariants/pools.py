"""Pools in the liveness check: the ticks at whose end each pool had every slot in use (that no
pool runs more attempts than it has slots is a safety check: :mod:`.safety`).

A run of a pooled job may rightly wait while a worker is idle if its pool is full (see
:mod:`engine.rules.pools`); the liveness check asks this class for the first tick of an idle stretch
at which the run's pool had a slot free. Read from the log in one pass, like the idle ticks.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Mapping

from engine.model import events as ev


class PoolTicks:
    """Per pool, pieces of ticks ``[start, end]`` at whose end all its slots were in use."""

    def __init__(self, slots: dict[str, int], pool_of: Mapping[str, str]) -> None:
        self.slots = slots
        self.pool_of = pool_of
        """Each pooled job's pool, kept up to date by the caller as jobs come and change."""
        self._running = dict.fromkeys(self.slots, 0)
        self.starts: dict[str, list[int]] = {name: [] for name in self.slots}
        self.ends: dict[str, list[int]] = {name: [] for name in self.slots}
        self._tick: int | None = None

    def advance(self, tick: int) -> None:
        if self._tick is not None and tick > self._tick:
            self._close(tick - 1)
        self._tick = tick

    def finish(self, through: int) -> None:
        if self._tick is not None and through >= self._tick:
            self._close(through)
            self._tick = through + 1

    def read(self, kind: type, fields: tuple) -> None:
        """An event as the log stores it: its class and its fields (an attempt's job id is
        its second, see ``engine.model.events.ATTEMPT_ENDS``)."""
        if kind is ev.AttemptStarted:
            pool = self.pool_of.get(fields[1])
            if pool is not None:
                self._running[pool] += 1
        elif kind in ev.ATTEMPT_ENDS:
            pool = self.pool_of.get(fields[1])
            if pool is not None:
                self._running[pool] -= 1

    def first_free(self, pool: str, start: int, end: int) -> int | None:
        """The first tick in ``[start, end]`` at whose end ``pool`` had a slot free."""
        starts, ends = self.starts[pool], self.ends[pool]
        index = bisect.bisect_left(ends, start)
        tick = start
        while index < len(ends) and starts[index] <= tick:
            tick = max(tick, ends[index] + 1)
            index += 1
        return tick if tick <= end else None

    def _close(self, through: int) -> None:
        assert self._tick is not None
        for pool, running in self._running.items():
            if running < self.slots[pool]:
                continue
            starts, ends = self.starts[pool], self.ends[pool]
            if ends and ends[-1] == self._tick - 1:
                ends[-1] = through
            else:
                starts.append(self._tick)
                ends.append(through)

    def closed(self, through: int) -> PoolTicks:
        """A copy whose state after the last event holds through ``through`` (this one reads on)."""
        closed = copy.copy(self)
        closed.starts = {pool: list(ticks) for pool, ticks in self.starts.items()}
        closed.ends = {pool: list(ticks) for pool, ticks in self.ends.items()}
        closed.finish(through)
        return closed
