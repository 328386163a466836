"""The workers as a waiting run sees them: how many are busy, idle or down, and the busy ones
that end soonest, with what they run and what ends it (its simulated duration or its timeout:
a hung attempt ends only by its timeout, a reported one only by its report)."""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, line
from engine.core import Engine
from engine.model.policies import CompletionMode, DispatchMode
from engine.model.records import Occurrence, WorkerState

SHOWN_WORKERS = 5
"""Busy workers listed by name, those whose attempts end soonest first; the rest are counted."""


def workers_line(context: Context, could_take_it: bool) -> Line:
    engine = context.engine
    workers = list(engine.query.workers().values())
    idle = sum(1 for w in workers if w.state is WorkerState.IDLE)
    busy = [w for w in workers if w.running is not None]
    down = [w.worker_id for w in workers if w.state is WorkerState.DOWN]
    records = engine.query.records()
    ends = {w.worker_id: attempt_end(engine, records[w.running]) for w in busy}
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
    hangs = attempt.number in engine.query.jobs()[record.job_id].spec.hang_attempts
    if engine.policy.completion is CompletionMode.SIMULATED and not hangs:
        ends.append((attempt.started + record.duration, "its duration"))
    if record.timeout is not None:
        ends.append((attempt.started + record.timeout, "its timeout"))
    return min(ends) if ends else None


def _end_tick(end: tuple[int, str] | None) -> int:
    return end[0] if end is not None else 2**63


def _busy_line(context: Context, worker, end: tuple[int, str] | None) -> Line:
    record = context.engine.query.records()[worker.running]
    attempt = record.running_attempt
    number = attempt.number if attempt is not None else "?"
    started = attempt.started if attempt is not None else worker.since
    text = (
        f"{worker.worker_id} runs {record.job_id}@{record.scheduled} #{number} since tick {started}"
    )
    if end is not None:
        text += f", ends at {context.at(end[0])} by {end[1]}"
    return line(text)
