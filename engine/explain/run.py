"""``explain_run``: the answer to "why?" about one run, as a tree of lines.

The answer opens with the run's state, then gives each section that applies: the time in each
phase so far; its attempts, each with its worker; for a waiting run what holds it now and when it
would start if nothing changed; its retries with their backoff; its faults (lost, timed out); its
cancellation; its calendar.
"""

from __future__ import annotations

from engine.clock import Clock
from engine.explain.attempts import attempts
from engine.explain.calendar_rule import calendar
from engine.explain.cascade import cancellation
from engine.explain.context import Context
from engine.explain.faults import faults
from engine.explain.forecast import next_start
from engine.explain.holds import holds
from engine.explain.lines import Line, Tag, line, section
from engine.explain.phases import phase_lines, phases
from engine.explain.retry import retries
from engine.explain.skipped import backfilled, skipped
from engine.history import History
from engine.model import OccurrenceState

S = OccurrenceState
_WAITING = (S.QUEUED, S.BLOCKED, S.RETRY_PENDING)


def explain_run(history: History, job_id: str, scheduled: int, clock: Clock | None = None) -> Line:
    """Why the run ``job_id@scheduled`` is where it is at the history's tick."""
    engine = history.engine
    context = Context(engine, clock)
    if job_id not in engine.jobs:
        return line(f"no job {job_id} at {context.at(context.now)}", tag=Tag.WARN)
    state = engine.occurrence_state(job_id, scheduled)
    if state is None or state is S.SCHEDULED:
        return _not_due(context, job_id, scheduled, state)
    record = engine.occurrences.get((job_id, scheduled))
    title = f"{job_id}@{scheduled} is {state.value} at {context.at(context.now)}"
    parts: list[Line] = [line(f"scheduled for {context.at(scheduled)}")]
    backfill = backfilled(context, job_id, scheduled)
    if backfill is not None:
        parts.append(backfill)
    parts.append(
        phase_lines(
            context, phases(context, job_id, scheduled, _ready(history, job_id, scheduled, state))
        )
    )
    tried = attempts(context, job_id, scheduled)
    if tried is not None:
        parts.append(tried)
    if state in _WAITING:
        held = holds(context, job_id, scheduled, state)
        if held is not None:
            parts.append(held)
        parts.append(_forecast(history, context, job_id, scheduled))
    for answer in (
        retries(context, job_id, scheduled),
        faults(context, job_id, scheduled),
        cancellation(context, job_id, scheduled),
        calendar(context, job_id, scheduled),
    ):
        if answer is not None:
            parts.append(answer)
    if record is not None and state is S.FAILED:
        parts.insert(
            1, line(f"failed for good after {len(record.attempts)} attempt(s)", tag=Tag.WARN)
        )
    return Line(title, tuple(parts), Tag.TITLE)


def _ready(history: History, job_id: str, scheduled: int, state: S) -> int | None:
    """The tick the run could first take a worker, None while it cannot yet."""
    engine = history.engine
    job = engine.jobs[job_id]
    if state is S.BLOCKED or job.unmet_dependencies:
        return None
    record = engine.occurrences.get((job_id, scheduled))
    if record is not None:
        return record.ready_since
    return max(scheduled, job.runnable_since or 0)


def _forecast(history: History, context: Context, job_id: str, scheduled: int) -> Line:
    found = next_start(history, job_id, scheduled)
    how = "found by playing the run on from now with no new command"
    if found.start is None:
        text = f"it does not start by {context.at(found.played_to)}, if nothing changes"
    else:
        wait = found.start - context.now
        text = (
            f"it would start at {context.at(found.start)} on {found.worker_id}, "
            f"in {context.ticks(wait)}, if nothing changes"
        )
    return section("When it would start", [line(text), line(how, tag=Tag.NOTE)])


def _not_due(context: Context, job_id: str, scheduled: int, state: S | None) -> Line:
    """A tick that is not (yet) a run of the job."""
    job = context.engine.jobs[job_id]
    if state is S.SCHEDULED:
        text = f"{job_id}@{scheduled} is SCHEDULED: it falls due at {context.at(scheduled)}"
    else:
        text = f"{job_id} has no run at {context.at(scheduled)}"
    fire = job.first_fire(scheduled + 1)  # the tick itself may be a fire time a rule skipped
    rows = [line(f"its schedule: {job.spec.schedule.describe()}")]
    why = skipped(context, job_id, scheduled) if state is None else None
    if why is not None:
        rows.insert(0, why)
    if fire is not None:
        rows.append(line(f"its next fire time from there: {context.at(fire)}"))
    calendar_part = calendar(context, job_id, scheduled) if state is S.SCHEDULED else None
    if calendar_part is not None:
        rows.append(calendar_part)
    return Line(text, tuple(rows), Tag.TITLE)
