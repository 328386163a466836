"""How many workers an imported fleet needs: as many as runs can be active at once.

cron, the CronJob controller and systemd start every due run when it falls due, however many
already run; a scenario starts a run only on a free worker. So the imported scenario has enough
workers that none ever waits: the most runs active at one tick when each starts at its fire
time and runs ``duration`` ticks. A job without an overlap rule can have several runs of its own
active (an every-minute job with 5-minute runs has 5); one whose rule keeps it to ``limit``
active runs (Forbid, Replace) has at most that many, and exactly its fire times' runs when no
two fire times are closer than a run lasts.

The fire times of the whole horizon are walked, up to :data:`FIRES_WALKED` of them (if the
fleet has more, again with the jobs that fire least first); a job past that is counted at its
most (a run started every tick of a run's length, or its overlap limit), so the count is then a
bound, never fewer than needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice, pairwise

from engine.model.records import JobSpec

FIRES_WALKED = 100_000
"""Fire times walked to count exactly: a week of ten every-minute jobs, or of 500 hourly ones;
more would make an import of years of a busy fleet take minutes."""
_SAMPLED_TICKS = 1440
"""The first day's fire times order the jobs from the one that fires least."""


@dataclass(frozen=True, slots=True)
class Pool:
    workers: int
    """The most runs active at once (at least one worker)."""
    exact: bool
    """Whether every job's fire times were walked; if not, ``workers`` is a bound."""


def workers_needed(jobs: Sequence[JobSpec], until: int) -> Pool:
    """The workers ``jobs`` need over ticks ``[0, until]`` so that no due run waits."""
    pool, walked_all = _walked(jobs, until)
    if walked_all:
        return pool
    return _walked(sorted(jobs, key=_first_day_fires), until)[0]


def _walked(jobs: Sequence[JobSpec], until: int) -> tuple[Pool, bool]:
    """The count with the fire times of ``jobs`` walked in this order while the budget lasts,
    and whether it lasted."""
    changes: Counter[int] = Counter()
    """At each tick, runs starting minus runs ending (one that ends frees its worker for one
    that starts in the same tick)."""
    bounded = 0
    budget = FIRES_WALKED
    walked_all = True
    for job in jobs:
        fires = list(islice(job.schedule.fire_ticks(0, until), budget + 1))
        limit = None if job.overlap is None else job.overlap.limit
        if len(fires) > budget:
            walked_all, budget = False, 0  # the jobs after it, which fire more, are bounded
            bounded += job.duration if limit is None else min(limit, job.duration)
            continue
        budget -= len(fires)
        if limit is not None and any(
            later - fire < job.duration for fire, later in pairwise(fires)
        ):
            bounded += limit  # its runs are held or replaced: never more than its limit
            continue
        for fire in fires:
            changes[fire] += 1
            changes[fire + job.duration] -= 1
    peak = active = 0
    for tick in sorted(changes):
        active += changes[tick]
        peak = max(peak, active)
    return Pool(max(1, peak + bounded), exact=bounded == 0), walked_all


def _first_day_fires(job: JobSpec) -> int:
    return sum(1 for _ in islice(job.schedule.fire_ticks(0, _SAMPLED_TICKS), _SAMPLED_TICKS + 1))
