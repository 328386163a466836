"""The runs the log has finished, kept as one sorted column of scheduled ticks per job.

The safety check must know, at every attempt started, whether the log already finished that run;
a month of a fleet finishes millions of runs. A set of keys costs about 150 bytes a run (a tuple,
its string reference and the set's slot); a column costs 8, and runs end mostly in the order
they were due, so adding one is an append.
"""

from __future__ import annotations

import bisect
from array import array


class FinishedRuns:
    """A set of run keys ``(job id, scheduled tick)``, compact per job."""

    __slots__ = ("_ticks",)

    def __init__(self) -> None:
        self._ticks: dict[str, array] = {}

    def add(self, key: tuple[str, int]) -> None:
        job_id, scheduled = key
        ticks = self._ticks.get(job_id)
        if ticks is None:
            ticks = self._ticks[job_id] = array("q")
        if not ticks or ticks[-1] < scheduled:
            ticks.append(scheduled)
            return
        at = bisect.bisect_left(ticks, scheduled)
        if ticks[at] != scheduled:
            ticks.insert(at, scheduled)

    def __contains__(self, key: tuple[str, int]) -> bool:
        ticks = self._ticks.get(key[0])
        if not ticks or key[1] > ticks[-1]:
            return False
        at = bisect.bisect_left(ticks, key[1])
        return ticks[at] == key[1]

    def __len__(self) -> int:
        return sum(map(len, self._ticks.values()))
