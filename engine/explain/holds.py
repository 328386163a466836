"""What holds a waiting run now: busy workers, the runs ahead of it and the order that puts
them there, unmet dependencies, a pause, a backoff still running.

The runs ahead are the ready queue's valid entries that the policy's order ranks before this
run (the queue keeps withdrawn entries until they surface; those are left out), plus, for a run
behind its job's front, the job's earlier runs: a job's waiting runs go in scheduled order.
"""

from __future__ import annotations

from engine.explain.context import Context
from engine.explain.lines import Line, Tag, line, section
from engine.model import OccurrenceState, WorkerState
from engine.policies import DispatchOrder
from engine.queries import implicit_front
from engine.ranges import implicit_range, runs_in
from engine.ready_entry import Waiting

S = OccurrenceState
SHOWN_AHEAD = 5
"""Runs ahead listed by name; the rest are counted."""
SHOWN_WORKERS = 5
"""Busy workers listed by name, those whose attempts end soonest first; the rest are counted."""


def holds(context: Context, job_id: str, scheduled: int, state: S) -> Line | None:
    """Why a waiting run has not started; None for a run that is not waiting."""
    engine = context.engine
    job = engine.jobs[job_id]
    record = engine.occurrences.get((job_id, scheduled))
    if state is S.BLOCKED:
        return section("What holds it now", _dependencies(context, job_id))
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
        rows.append(line("its job is paused: no run of it starts until it is resumed"))
    rows.append(_workers(context))
    rows.append(_ahead(context, job_id, scheduled))
    return section("What holds it now", rows)


def _dependencies(context: Context, job_id: str) -> list[Line]:
    engine = context.engine
    rows = []
    for dependency in engine.jobs[job_id].spec.depends_on:
        other = engine.jobs.get(dependency)
        at = getattr(other.spec.schedule, "at", None) if other is not None else None
        state = engine.occurrence_state(dependency, at) if at is not None else None
        word = state.value if state is not None else "not scheduled"
        if state is not S.SUCCEEDED:
            rows.append(line(f"depends on {dependency}, which is {word}"))
    return rows or [line("its dependencies have succeeded: it is released at this tick's end")]


def _workers(context: Context) -> Line:
    engine = context.engine
    workers = list(engine.workers.values())
    idle = sum(1 for w in workers if w.state is WorkerState.IDLE)
    busy = [w for w in workers if w.running is not None]
    down = [w.worker_id for w in workers if w.state is WorkerState.DOWN]
    children = [_busy_line(context, worker) for worker in sorted(busy, key=_ends_at(engine))]
    if len(children) > SHOWN_WORKERS:
        more = len(children) - SHOWN_WORKERS
        children = [*children[:SHOWN_WORKERS], line(f"and {more} more busy")]
    if down:
        children.append(line(f"down: {', '.join(down)}"))
    title = f"workers: {len(busy)} busy, {idle} idle, {len(down)} down of {len(workers)}"
    if busy:
        title += " (the busy ones that end soonest first)"
    if idle:
        title += " (an idle worker takes it at this tick's dispatch)"
    return line(title, *children)


def _ends_at(engine):
    """A busy worker's sort key: the tick its attempt would end by its duration (hung and
    reported attempts last), then its id."""

    def key(worker) -> tuple[int, str]:
        record = engine.occurrences[worker.running]
        attempt = record.running_attempt
        job = engine.jobs[record.job_id]
        if attempt is None or attempt.number in job.spec.hang_attempts:
            return (2**63, worker.worker_id)
        return (attempt.started + record.duration, worker.worker_id)

    return key


def _busy_line(context: Context, worker) -> Line:
    engine = context.engine
    record = engine.occurrences[worker.running]
    attempt = record.running_attempt
    number = attempt.number if attempt is not None else "?"
    started = attempt.started if attempt is not None else worker.since
    text = f"{worker.worker_id} runs {record.job_id}@{record.scheduled} #{number} since {started}"
    end = _ends_at(engine)(worker)[0]
    if end < 2**63:
        text += f", ends at {context.at(end)} by its duration"
    return line(text)


def _ahead(context: Context, job_id: str, scheduled: int) -> Line:
    """The runs that go before this one, and under which order."""
    engine = context.engine
    policy = engine.policy
    rank = _ranker(context)
    mine = _entry_of(context, job_id, scheduled)
    earlier_own = _earlier_own_runs(context, job_id, scheduled)
    if mine is None:
        mine = _entry_of(context, job_id, implicit_front(engine, job_id) or scheduled)
    if mine is None:
        return line("it is not in the ready queue yet", tag=Tag.NOTE)
    ahead = sorted((e for e in _valid(context) if rank(e) < rank(mine)), key=rank)
    order = _order_words(context, mine)
    children = [line(_entry_words(context, entry)) for entry in ahead[:SHOWN_AHEAD]]
    if len(ahead) > SHOWN_AHEAD:
        children.append(line(f"and {len(ahead) - SHOWN_AHEAD} more"))
    if earlier_own:
        children.append(
            line(f"{earlier_own} earlier run(s) of {job_id} first: a job's runs go in order")
        )
    total = len(ahead) + earlier_own
    title = f"{total} run(s) ahead of it, by {policy.order.value} order: {order}"
    return line(title, *children)


def _order_words(context: Context, entry: Waiting) -> str:
    policy = context.engine.policy
    if policy.order is DispatchOrder.FIFO:
        return "earlier scheduled ticks first"
    if policy.order is DispatchOrder.PRIORITY:
        return f"higher priority first, then earlier ticks (its priority: {entry.priority})"
    aged = _aged(context, entry)
    return (
        f"aged priority = priority + waited // {policy.aging_step}, then the order runs fell due "
        f"(its aged priority: {entry.priority} + {context.now - entry.ready_since} // "
        f"{policy.aging_step} = {aged})"
    )


def _entry_words(context: Context, entry: Waiting) -> str:
    words = f"{entry.job_id}@{entry.scheduled} priority {entry.priority}"
    if context.engine.policy.order is DispatchOrder.AGING:
        words += f", aged {_aged(context, entry)}"
    return words


def _aged(context: Context, entry: Waiting) -> int:
    step = context.engine.policy.aging_step or 1
    return entry.priority + (context.now - entry.ready_since) // step


def _ranker(context: Context):
    order = context.engine.policy.order
    if order is DispatchOrder.FIFO:
        return lambda e: (e.scheduled, e.order_key)
    if order is DispatchOrder.PRIORITY:
        return lambda e: (-e.priority, e.scheduled, e.order_key)
    return lambda e: (-_aged(context, e), e.scheduled, e.submission)


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


def _entry_of(context: Context, job_id: str, scheduled: int) -> Waiting | None:
    return next(
        (e for e in _valid(context) if e.job_id == job_id and e.scheduled == scheduled), None
    )


def _earlier_own_runs(context: Context, job_id: str, scheduled: int) -> int:
    """How many of the job's implicit waiting runs come before ``scheduled``."""
    engine = context.engine
    job = engine.jobs[job_id]
    waiting = implicit_range(engine, job)
    if waiting is None or waiting.state is not S.QUEUED or scheduled <= waiting.first:
        return 0
    return sum(1 for tick in runs_in(engine, job, waiting.first, scheduled - 1))
