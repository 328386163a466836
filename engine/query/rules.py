"""What the rules hold now: a pool's slots, a job's active runs under its overlap rule, the
upstream runs a dependent run is judged against, and a backfill's runs still to come."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model.records import Job
from engine.query.views import PoolUse, Upstream, UpstreamRun

if TYPE_CHECKING:
    from engine.query.engine_parts import EngineParts


def pool_use(parts: EngineParts, name: str) -> PoolUse | None:
    """The pool's slots and those in use; None when the policy has no pool of that name."""
    pools = parts.pools
    if pools is None or name not in pools.slots:
        return None
    return PoolUse(name, pools.slots[name], pools.running[name])


def upstream(parts: EngineParts, job: Job, scheduled: int) -> Upstream:
    """The upstream runs that decide ``job@scheduled``: a job's runs are judged in order, so
    while an earlier run of the job is blocked, that run is the one judged."""
    judging = parts.run_dependencies
    judged = job.blocked_from if job.blocked_from is not None else scheduled
    runs = []
    for upstream_id in job.upstream_runs:
        upstream_job = parts.jobs[upstream_id]
        tick = judging.upstream_tick(upstream_job, judged)
        outcome = None if tick is None else judging.outcome(upstream_job, tick)
        runs.append(UpstreamRun(upstream_id, tick, outcome))
    return Upstream(job.spec.trigger_rule, judged, tuple(runs))
