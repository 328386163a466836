"""The runs ahead of a waiting run, under the policy's order.

They are every run the order ranks before this one now: the ready queue's valid entries (the
queue keeps withdrawn entries until they surface; those are left out), the runs waiting behind
another job's front that rank before it too (a job's runs go in scheduled order, so those form a
prefix, counted by arithmetic, not one by one), and, for a run behind its own job's front, the
job's earlier runs. With no worker free at all, the runs that fall due before one frees and go
first are named too: that is how a low priority starves.
"""

from __future__ import annotations

from collections.abc import Callable

from cronlapse.analyses.explain.busy_workers import attempt_end
from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line
from cronlapse.analyses.latency.attribution import priority_words
from engine.model.policies import DispatchOrder
from engine.model.records import Job, OccurrenceState, WorkerState
from engine.query import RunCounter, Waiting

S = OccurrenceState
SHOWN_AHEAD = 5
"""Runs ahead listed by name; the rest are counted."""


def own_entry(context: Context, job: Job, scheduled: int) -> Waiting:
    """The run as the ready queue holds it, or would hold it once its job's earlier runs have
    gone: its own priority and its own wait, not its job's front's."""
    record = context.engine.query.record(job.job_id, scheduled)
    if record is not None:
        priority, ready_since = record.priority, record.ready_since
    else:
        priority = job.spec_for(scheduled).priority
        ready_since = max(scheduled, job.runnable_since or 0)
    return Waiting(
        job.job_id, scheduled, job.order_key, priority, ready_since, job.submission, record
    )


def runs_ahead(context: Context, job: Job, mine: Waiting) -> Line:
    """The runs that go before this one, and under which order."""
    engine = context.engine
    rank = _ranker(context, context.now)
    mine_rank = rank(mine)
    ahead: list[Waiting] = []
    behind_fronts: list[tuple[Waiting, int]] = []
    counter = engine.query.run_counter()  # one for every front's count
    for entry in engine.query.ready_runs():
        if entry.job_id == job.job_id and entry.occurrence is None:
            continue  # its job's front: counted with the job's earlier runs
        if entry.job_id == job.job_id and entry.scheduled == mine.scheduled:
            continue
        if rank(entry) >= mine_rank:
            continue
        ahead.append(entry)
        if entry.occurrence is None:
            behind = _behind_front(context, entry, mine, counter)
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


def _behind_front(context: Context, front: Waiting, mine: Waiting, counter: RunCounter) -> int:
    """How many of the runs waiting behind another job's front rank before ``mine``. Each of
    them would enter the queue as the front does, with its own tick; the order ranks a job's
    runs by tick, so those ahead are the runs up to one tick, found by arithmetic."""
    query = context.engine.query
    other = query.jobs()[front.job_id]
    last = _last_tick_ahead(context, other, mine)
    if last is None:
        return 0
    last = min(last, query.created_limit(other.job_id))
    if last <= front.scheduled:
        return 0
    return counter.between(front.job_id, front.scheduled + 1, last)


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
        return engine.query.created_limit(other.job_id) if priority > mine.priority else None
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


def arrivals(context: Context, mine: Waiting) -> Line | None:
    """With every worker busy: the runs that fall due before one frees and rank before this
    run then, so that they, not it, take the worker (starvation, under a priority order)."""
    engine = context.engine
    query = engine.query
    workers = query.workers().values()
    if any(w.state is WorkerState.IDLE for w in workers):
        return None
    records = query.records()
    ends = [
        end[0]
        for w in workers
        if w.running is not None and (end := attempt_end(engine, records[w.running]))
    ]
    if not ends:
        return None
    frees = min(ends)
    rank = _ranker(context, frees)
    mine_rank = rank(mine)
    coming: list[Waiting] = []
    for tick, other in query.falling_due(frees):
        job_id = other.job_id
        if (
            job_id == mine.job_id
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
            f"(its priority: {priority_words(entry.priority)})"
        )
    waited = max(0, context.now - entry.ready_since)
    return (
        f"aged priority = priority + waited // {policy.aging_step}, then the order runs fell due "
        f"(its aged priority: {entry.priority} + {waited} // "
        f"{policy.aging_step} = {_aged(context, entry)})"
    )


def _entry_words(context: Context, entry: Waiting) -> str:
    engine = context.engine
    words = f"{entry.job_id}@{entry.scheduled} priority {priority_words(entry.priority)}"
    if engine.policy.order is DispatchOrder.AGING:
        words += f", aged {_aged(context, entry)}"
    deadline = engine.query.jobs()[entry.job_id].spec.start_deadline
    if deadline is not None:
        # Ahead now, yet it may never take the worker (engine/rules/start_deadlines.py).
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


def _earlier_own_runs(context: Context, job: Job, scheduled: int) -> int:
    """How many of the job's implicit waiting runs come before ``scheduled``."""
    query = context.engine.query
    waiting = query.implicit_range(job.job_id)
    if waiting is None or waiting.state is not S.QUEUED or scheduled <= waiting.first:
        return 0
    return sum(1 for tick in query.implicit_runs(job.job_id, waiting.first, scheduled - 1))
