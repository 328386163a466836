"""What holds a waiting run now: unmet dependencies, a backoff still running, its paused job, its
job's overlap rule, a full pool, the busy workers (:mod:`cronlapse.analyses.explain.busy_workers`)
and the runs ahead of it under the policy's order (:mod:`cronlapse.analyses.explain.ahead`).
"""

from __future__ import annotations

from cronlapse.analyses.explain.ahead import arrivals, own_entry, runs_ahead
from cronlapse.analyses.explain.busy_workers import workers_line
from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.job_rules import Overlap, TriggerRule
from engine.model.records import Job, OccurrenceState

S = OccurrenceState

_RULE_WORDS = {
    TriggerRule.ALL_SUCCESS: "when every upstream run has succeeded",
    TriggerRule.ALL_FAILED: "when every upstream run has failed",
    TriggerRule.ALL_DONE: "once every upstream run is done, whatever happened",
    TriggerRule.ONE_SUCCESS: "as soon as one upstream run succeeds",
    TriggerRule.ONE_FAILED: "as soon as one upstream run fails",
    TriggerRule.NONE_FAILED: "once every upstream run is done and none failed",
    TriggerRule.NONE_SKIPPED: "once every upstream run is done and none was skipped",
    TriggerRule.ALWAYS: "at once",
}
"""When each trigger rule lets a run go (docs/semantics.md, "Trigger rules")."""

_OUTCOME_WORDS = {
    "success": "succeeded",
    "failed": "failed",
    "upstream_failed": "was cancelled by a cascade (upstream_failed)",
    "skipped": "was skipped",
}


def holds(context: Context, job_id: str, scheduled: int, state: S) -> Line | None:
    """Why a waiting run has not started; None for a run that is not waiting."""
    query = context.engine.query
    job = query.jobs()[job_id]
    record = query.record(job_id, scheduled)
    if state is S.BLOCKED:
        return section("What holds it now", _dependencies(context, job, scheduled))
    if state is S.RETRY_PENDING and record is not None and record.eligible_at is not None:
        if record.eligible_at > context.now:
            wait = record.eligible_at - context.now
            return section(
                "What holds it now",
                [
                    line(
                        f"backoff: eligible at {context.at(record.eligible_at)}, "
                        f"in {context.ticks(wait)}"
                    )
                ],
            )
    elif state is not S.QUEUED:
        return None
    rows: list[Line] = []
    if job.paused_through is not None:
        rows.append(_paused(context, job))
    held = _overlap_hold(context, job, scheduled) or _full_pool(context, job)
    if held is not None:
        rows.append(held)
    rows.append(workers_line(context, held is None))
    mine = own_entry(context, job, scheduled)
    rows.append(runs_ahead(context, job, mine))
    coming = arrivals(context, mine)
    if coming is not None:
        rows.append(coming)
    return section("What holds it now", rows)


# ----------------------------------------------------------------- dependencies


def _dependencies(context: Context, job: Job, scheduled: int) -> list[Line]:
    """The upstream runs it waits for: a one-time dependency's run, or for recurring ones the
    runs its trigger rule judges, of its job's first waiting run (runs are judged in order)."""
    query = context.engine.query
    rows: list[Line] = []
    for dependency in job.spec.depends_on:
        if dependency in job.upstream_runs:
            continue
        other = query.job(dependency)
        at = getattr(other.spec.schedule, "at", None) if other is not None else None
        state = query.run_state(dependency, at) if at is not None else None
        if state is not S.SUCCEEDED:
            word = state.value if state is not None else "not scheduled"
            name = f"{dependency}@{at}" if at is not None else dependency
            rows.append(line(f"waits for {name}, which is {word}"))
    if job.upstream_runs:
        rows.extend(_upstream_runs(context, job, scheduled))
    return rows or [line("its dependencies have succeeded: it is released at this tick's end")]


def _upstream_runs(context: Context, job: Job, scheduled: int) -> list[Line]:
    query = context.engine.query
    upstream = query.upstream(job.job_id, scheduled)
    judged, rule = upstream.judged, upstream.rule
    children: list[Line] = []
    for run in upstream.runs:
        if run.scheduled is None or run.outcome is None:
            children.append(line(f"{run.job_id} has no run at or before tick {judged}"))
        elif run.outcome == "pending":
            state = query.run_state(run.job_id, run.scheduled)
            word = state.value if state is not None else "not created yet"
            children.append(line(f"waits for {run.job_id}@{run.scheduled}, which is {word}"))
        else:
            children.append(line(f"{run.job_id}@{run.scheduled} {_OUTCOME_WORDS[run.outcome]}"))
    rows = [line(f"trigger rule {rule.value}: it runs {_RULE_WORDS[rule]}", *children)]
    if judged != scheduled:
        rows.insert(
            0,
            line(
                f"it waits behind {job.job_id}@{judged}: a job's runs are judged in order",
                tag=Tag.NOTE,
            ),
        )
    return rows


# ------------------------------------------------------------ pause, pool, overlap


def _paused(context: Context, job: Job) -> Line:
    """A pause holds back the runs still to fall due; a run already waiting still starts."""
    events = reversed(context.events_of(job.job_id))
    since = next((e.tick for e in events if isinstance(e, ev.JobPaused)), None)
    when = f" since {context.at(since)}" if since is not None else ""
    return line(
        f"its job is paused{when}",
        line("this run was waiting already: a pause holds back only runs still to fall due"),
    )


def _full_pool(context: Context, job: Job) -> Line | None:
    """The job's pool, when all its slots are taken: the run waits for one to free."""
    query = context.engine.query
    pool = job.spec.pool
    use = query.pool(pool) if pool is not None else None
    if use is None or not use.full:
        return None
    jobs = query.jobs()
    holders = [
        f"{key[0]}@{key[1]} on {worker.worker_id}"
        for worker in query.workers().values()
        if (key := worker.running) is not None and jobs[key[0]].spec.pool == pool
    ]
    return line(
        f"its pool {pool} is full: {use.running} of {use.slots} slots in use "
        f"({', '.join(holders)}); it takes the first slot that frees",
        tag=Tag.WARN,
    )


def _overlap_hold(context: Context, job: Job, scheduled: int) -> Line | None:
    """The run waits for a slot of its job's overlap rule (BufferOne, BufferAll,
    max_active_runs): the job has as many active runs as the rule allows."""
    rule = job.spec.overlap
    if rule is None:
        return None
    held = job.held == scheduled or (job.held_from is not None and scheduled >= job.held_from)
    if not held:
        return None
    active = [tick for tick in job.open if tick != job.held]
    names = ", ".join(f"{job.job_id}@{tick}" for tick in active)
    name = "max_active_runs" if rule.policy is Overlap.MAX_ACTIVE_RUNS else rule.policy.value
    return line(
        f"held by its job's overlap rule {name}: {len(active)} of {rule.limit} active runs "
        f"({names}); it starts when one of them ends",
        tag=Tag.WARN,
    )
