"""What holds a waiting run now: busy workers, the runs ahead of it and the order that puts
them there, a full pool, its job's overlap rule, unmet dependencies, a backoff still running.

The runs ahead are every run the policy's order ranks before this one now: the ready queue's
valid entries (the queue keeps withdrawn entries until they surface; those are left out), the
runs waiting behind another job's front that rank before it too (a job's runs go in scheduled
order, so those form a prefix, counted by arithmetic, not one by one), and, for a run behind its
own job's front, the job's earlier runs. A run with no worker free at all also hears which runs
fall due before a worker frees and go first: that is how a low priority starves.
"""

from __future__ import annotations

from collections.abc import Callable

from engine import events as ev
from engine.core import Engine
from engine.explain.context import Context
from engine.explain.lines import Line, Tag, line, section
from engine.job_rules import Overlap, TriggerRule
from engine.model import PRIORITY_LEVELS, Job, Occurrence, OccurrenceState, WorkerState
from engine.policies import CompletionMode, DispatchMode, DispatchOrder
from engine.ranges import RecordTicks, count_runs, implicit_range, runs_in
from engine.ready_entry import Waiting

S = OccurrenceState
SHOWN_AHEAD = 5
"""Runs ahead listed by name; the rest are counted."""
SHOWN_WORKERS = 5
"""Busy workers listed by name, those whose attempts end soonest first; the rest are counted."""

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
    engine = context.engine
    job = engine.jobs[job_id]
    record = engine.occurrences.get((job_id, scheduled))
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
    rows.append(_workers(context, held is None))
    mine = _own_entry(context, job, scheduled)
    rows.append(_ahead(context, job, mine))
    arrivals = _arrivals(context, mine)
    if arrivals is not None:
        rows.append(arrivals)
    return section("What holds it now", rows)


# ----------------------------------------------------------------- dependencies


def _dependencies(context: Context, job: Job, scheduled: int) -> list[Line]:
    """The upstream runs it waits for: a one-time dependency's run, or for recurring ones the
    runs its trigger rule judges, of its job's first waiting run (runs are judged in order)."""
    engine = context.engine
    rows: list[Line] = []
    for dependency in job.spec.depends_on:
        if dependency in job.upstream_runs:
            continue
        other = engine.jobs.get(dependency)
        at = getattr(other.spec.schedule, "at", None) if other is not None else None
        state = engine.occurrence_state(dependency, at) if at is not None else None
        if state is not S.SUCCEEDED:
            word = state.value if state is not None else "not scheduled"
            name = f"{dependency}@{at}" if at is not None else dependency
            rows.append(line(f"waits for {name}, which is {word}"))
    if job.upstream_runs:
        rows.extend(_upstream_runs(context, job, scheduled))
    return rows or [line("its dependencies have succeeded: it is released at this tick's end")]


def _upstream_runs(context: Context, job: Job, scheduled: int) -> list[Line]:
    engine = context.engine
    judging = engine.run_dependencies
    judged = job.blocked_from if job.blocked_from is not None else scheduled
    rule = job.spec.trigger_rule
    children: list[Line] = []
    for upstream_id in job.upstream_runs:
        upstream = engine.jobs[upstream_id]
        tick = judging.upstream_tick(upstream, judged)
        if tick is None:
            children.append(line(f"{upstream_id} has no run at or before tick {judged}"))
            continue
        outcome = judging.outcome(upstream, tick)
        if outcome == "pending":
            state = engine.occurrence_state(upstream_id, tick)
            word = state.value if state is not None else "not created yet"
            children.append(line(f"waits for {upstream_id}@{tick}, which is {word}"))
        else:
            children.append(line(f"{upstream_id}@{tick} {_OUTCOME_WORDS[outcome]}"))
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
    engine = context.engine
    pool = job.spec.pool
    pools = engine.pools
    if pool is None or pools is None or pools.running[pool] < pools.slots[pool]:
        return None
    holders = [
        f"{key[0]}@{key[1]} on {worker.worker_id}"
        for worker in engine.workers.values()
        if (key := worker.running) is not None and engine.jobs[key[0]].spec.pool == pool
    ]
    slots = pools.slots[pool]
    return line(
        f"its pool {pool} is full: {pools.running[pool]} of {slots} slots in use "
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


# --------------------------------------------------------------------- workers


def _workers(context: Context, could_take_it: bool) -> Line:
    engine = context.engine
    workers = list(engine.workers.values())
    idle = sum(1 for w in workers if w.state is WorkerState.IDLE)
    busy = [w for w in workers if w.running is not None]
    down = [w.worker_id for w in workers if w.state is WorkerState.DOWN]
    ends = {w.worker_id: attempt_end(engine, engine.occurrences[w.running]) for w in busy}
    busy.sort(key=lambda w: (_end_tick(ends[w.worker_id]), w.worker_id))
    children = [_busy_line(context, worker, ends[worker.worker_id]) for worker in busy]
    if len(children) > SHOWN_WORKERS:
        more = len(children) - SHOWN_WORKERS
        children = [*children[:SHOWN_WORKERS], line(f"and {more} more busy")]
    if down:
        children.append(line(f"down: {', '.join(down)}"))
    title = f"workers: {len(busy)} busy, {idle} idle, {len(down)} down of {len(workers)}"
    if busy:
        title += " (the busy ones that end soonest first)"
    if idle and could_take_it:
        if engine.policy.dispatch is DispatchMode.MANUAL:
            title += " (the next dispatch gives it to an idle worker)"
        else:
            title += " (an idle worker takes it at this tick's dispatch)"
    return line(title, *children)


def attempt_end(engine: Engine, record: Occurrence) -> tuple[int, str] | None:
    """When a running attempt will end without a report, and by what: its simulated duration
    or its timeout, whichever comes first; None when only a report (or a fault) ends it."""
    attempt = record.running_attempt
    if attempt is None:
        return None
    ends: list[tuple[int, str]] = []
    hangs = attempt.number in engine.jobs[record.job_id].spec.hang_attempts
    if engine.policy.completion is CompletionMode.SIMULATED and not hangs:
        ends.append((attempt.started + record.duration, "its duration"))
    if record.timeout is not None:
        ends.append((attempt.started + record.timeout, "its timeout"))
    return min(ends) if ends else None


def _end_tick(end: tuple[int, str] | None) -> int:
    return end[0] if end is not None else 2**63


def _busy_line(context: Context, worker, end: tuple[int, str] | None) -> Line:
    engine = context.engine
    record = engine.occurrences[worker.running]
    attempt = record.running_attempt
    number = attempt.number if attempt is not None else "?"
    started = attempt.started if attempt is not None else worker.since
    text = (
        f"{worker.worker_id} runs {record.job_id}@{record.scheduled} #{number} since tick {started}"
    )
    if end is not None:
        text += f", ends at {context.at(end[0])} by {end[1]}"
    return line(text)


# ------------------------------------------------------------------ runs ahead


def _own_entry(context: Context, job: Job, scheduled: int) -> Waiting:
    """The run as the ready queue holds it, or would hold it once its job's earlier runs have
    gone: its own priority and its own wait, not its job's front's."""
    engine = context.engine
    record = engine.occurrences.get((job.job_id, scheduled))
    if record is not None:
        priority, ready_since = record.priority, record.ready_since
    else:
        priority = job.spec_for(scheduled).priority
        ready_since = max(scheduled, job.runnable_since or 0)
    return Waiting(
        job.job_id, scheduled, job.order_key, priority, ready_since, job.submission, record
    )


def _ahead(context: Context, job: Job, mine: Waiting) -> Line:
    """The runs that go before this one, and under which order."""
    engine = context.engine
    rank = _ranker(context, context.now)
    mine_rank = rank(mine)
    ahead: list[Waiting] = []
    behind_fronts: list[tuple[Waiting, int]] = []
    records = RecordTicks(engine)  # read once for every front's count, and only if needed
    for entry in _valid(context):
        if entry.job_id == job.job_id and entry.occurrence is None:
            continue  # its job's front: counted with the job's earlier runs
        if entry.job_id == job.job_id and entry.scheduled == mine.scheduled:
            continue
        if rank(entry) >= mine_rank:
            continue
        ahead.append(entry)
        if entry.occurrence is None:
            behind = _behind_front(context, entry, mine, records)
            if behind:
                behind_fronts.append((entry, behind))
    ahead.sort(key=rank)
    earlier_own = _earlier_own_runs(context, job, mine.scheduled)
    children = [line(_entry_words(context, entry)) for entry in ahead[:SHOWN_AHEAD]]
    if len(ahead) > SHOWN_AHEAD:
        children.append(line(f"and {len(ahead) - SHOWN_AHEAD} more"))
    for front, count in behind_fronts[:SHOWN_AHEAD]:
        children.append(
            line(f"{count} more run(s) of {front.job_id} behind {front.job_id}@{front.scheduled}")
        )
    if len(behind_fronts) > SHOWN_AHEAD:
        rest = sum(count for _, count in behind_fronts[SHOWN_AHEAD:])
        children.append(line(f"and {rest} more run(s) behind other jobs' first runs"))
    if earlier_own:
        children.append(
            line(f"{earlier_own} earlier run(s) of {job.job_id} first: a job's runs go in order")
        )
    total = len(ahead) + sum(count for _, count in behind_fronts) + earlier_own
    order = _order_words(context, mine)
    title = f"{total} run(s) ahead of it, by {engine.policy.order.value} order: {order}"
    return line(title, *children)


def _behind_front(context: Context, front: Waiting, mine: Waiting, records: RecordTicks) -> int:
    """How many of the runs waiting behind another job's front rank before ``mine``. Each of
    them would enter the queue as the front does, with its own tick; the order ranks a job's
    runs by tick, so those ahead are the runs up to one tick, found by arithmetic."""
    engine = context.engine
    other = engine.jobs[front.job_id]
    last = _last_tick_ahead(context, other, mine)
    if last is None:
        return 0
    last = min(last, engine.cursors.created_limit(other))
    if last <= front.scheduled:
        return 0
    return count_runs(engine, other, front.scheduled + 1, last, records)


def _last_tick_ahead(context: Context, other: Job, mine: Waiting) -> int | None:
    """The last scheduled tick at which a run of ``other`` (not yet in the queue) would rank
    before ``mine`` now; None when none would."""
    engine = context.engine
    order = engine.policy.order
    before_on_ties = (
        other.submission < mine.submission
        if order is DispatchOrder.AGING
        else other.order_key < mine.order_key
    )
    same_tick = mine.scheduled if before_on_ties else mine.scheduled - 1
    priority = other.spec.priority
    if order is DispatchOrder.FIFO:
        return same_tick
    if order is DispatchOrder.PRIORITY:
        if priority == mine.priority:
            return same_tick
        return engine.cursors.created_limit(other) if priority > mine.priority else None
    # Aging: a run of ``other`` at tick s has aged priority
    # priority + (now - max(s, since)) // step, which falls as s grows.
    step = engine.policy.aging_step or 1
    since = other.runnable_since or 0
    gap = _aged(context, mine) - priority
    candidates = []
    higher = context.now - (gap + 1) * step  # aged above mine while max(s, since) <= this
    if since <= higher:
        candidates.append(higher)
    equal = context.now - gap * step  # aged equal to mine: then the earlier tick goes first
    if since <= equal:
        candidates.append(min(equal, same_tick))
    return max(candidates) if candidates else None


def _arrivals(context: Context, mine: Waiting) -> Line | None:
    """With every worker busy: the runs that fall due before one frees and rank before this
    run then, so that they, not it, take the worker (starvation, under a priority order)."""
    engine = context.engine
    workers = engine.workers.values()
    if any(w.state is WorkerState.IDLE for w in workers):
        return None
    ends = [
        end[0]
        for w in workers
        if w.running is not None and (end := attempt_end(engine, engine.occurrences[w.running]))
    ]
    if not ends:
        return None
    frees = min(ends)
    rank = _ranker(context, frees)
    mine_rank = rank(mine)
    coming: list[Waiting] = []
    for tick, _, job_id in engine.cursors.due.live():
        other = engine.jobs[job_id]
        if (
            tick > frees
            or job_id == mine.job_id
            or other.next_due != tick
            or other.paused_through is not None
            or other.front is not None
            or other.unmet_dependencies
            or other.upstream_runs
            or other.spec.overlap is not None
        ):
            continue
        entry = Waiting(
            job_id, tick, other.order_key, other.spec.priority, tick, other.submission, None
        )
        if rank(entry) < mine_rank:
            coming.append(entry)
    if not coming:
        return None
    coming.sort(key=rank)
    children = [line(_entry_words(context, entry)) for entry in coming[:SHOWN_AHEAD]]
    if len(coming) > SHOWN_AHEAD:
        children.append(line(f"and {len(coming) - SHOWN_AHEAD} more"))
    count = len(coming)
    verbs = "run falls due" if count == 1 else "runs fall due"
    go = "goes" if count == 1 else "go"
    return line(
        f"{count} {verbs} by {context.at(frees)}, when a worker frees, and {go} first",
        *children,
        tag=Tag.WARN,
    )


def _order_words(context: Context, entry: Waiting) -> str:
    policy = context.engine.policy
    if policy.order is DispatchOrder.FIFO:
        return "earlier scheduled ticks first"
    if policy.order is DispatchOrder.PRIORITY:
        return (
            "higher priority first, then earlier ticks "
            f"(its priority: {_priority_words(entry.priority)})"
        )
    waited = max(0, context.now - entry.ready_since)
    return (
        f"aged priority = priority + waited // {policy.aging_step}, then the order runs fell due "
        f"(its aged priority: {entry.priority} + {waited} // "
        f"{policy.aging_step} = {_aged(context, entry)})"
    )


def _priority_words(priority: int) -> str:
    """A priority as a scenario names it: ``2 (high)``."""
    name = next((name for name, level in PRIORITY_LEVELS.items() if level == priority), None)
    return f"{priority} ({name})" if name is not None else str(priority)


def _entry_words(context: Context, entry: Waiting) -> str:
    engine = context.engine
    words = f"{entry.job_id}@{entry.scheduled} priority {_priority_words(entry.priority)}"
    if engine.policy.order is DispatchOrder.AGING:
        words += f", aged {_aged(context, entry)}"
    deadline = engine.jobs[entry.job_id].spec.start_deadline
    if deadline is not None:
        # Ahead now, yet it may never take the worker (engine/start_deadlines.py).
        words += f", expires at {context.at(entry.scheduled + deadline + 1)} unless it starts"
    return words


def _aged(context: Context, entry: Waiting, at: int | None = None) -> int:
    step = context.engine.policy.aging_step or 1
    now = context.now if at is None else at
    return entry.priority + max(0, now - entry.ready_since) // step


def _ranker(context: Context, at: int) -> Callable[[Waiting], tuple]:
    """The policy's order as a sort key, with the aged priorities of tick ``at``."""
    order = context.engine.policy.order
    if order is DispatchOrder.FIFO:
        return lambda e: (e.scheduled, e.order_key)
    if order is DispatchOrder.PRIORITY:
        return lambda e: (-e.priority, e.scheduled, e.order_key)
    return lambda e: (-_aged(context, e, at), e.scheduled, e.submission)


def _valid(context: Context) -> list[Waiting]:
    """The ready queue's entries that stand for a waiting run, each once."""
    engine = context.engine
    found: dict[tuple[str, int], Waiting] = {}
    for held in engine.dispatcher.ready.contents():
        entry = Waiting(*held)
        occurrence = entry.occurrence
        if occurrence is None:
            if engine.jobs[entry.job_id].front is not held:
                continue
        elif occurrence.state not in (S.QUEUED, S.RETRY_PENDING):
            continue
        found.setdefault((entry.job_id, entry.scheduled), entry)
    return list(found.values())


def _earlier_own_runs(context: Context, job: Job, scheduled: int) -> int:
    """How many of the job's implicit waiting runs come before ``scheduled``."""
    engine = context.engine
    waiting = implicit_range(engine, job)
    if waiting is None or waiting.state is not S.QUEUED or scheduled <= waiting.first:
        return 0
    return sum(1 for tick in runs_in(engine, job, waiting.first, scheduled - 1))
