"""A run that a backfill under way is still to create: the backfill, what it waits for, and
when it creates the run if nothing changes (found by playing on, as the forecast is)."""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.forecast import STEP_LIMIT, play_until
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.records import BackfillOrder, OccurrenceState
from engine.play.history import History


def pending_backfill(
    history: History, context: Context, job_id: str, scheduled: int
) -> Line | None:
    """The backfill that is to create ``job_id@scheduled``; None when none is."""
    query = context.engine.query
    backfill = query.jobs()[job_id].backfill
    if backfill is None or not query.backfill_pending(job_id, scheduled):
        return None
    started = next(
        (e.tick for e in reversed(context.events_of(job_id)) if isinstance(e, ev.BackfillStarted)),
        None,
    )
    when = f" at {context.at(started)}" if started is not None else ""
    rows = [line(f"a backfill started{when} is still to create it")]
    if backfill.order is BackfillOrder.SEQUENTIAL and backfill.waiting_for is not None:
        rows.append(line(f"in order: it waits for {job_id}@{backfill.waiting_for} to end"))

    def created() -> int | None:
        state = history.engine.query.run_state(job_id, scheduled)
        return history.tick if state not in (None, OccurrenceState.SCHEDULED) else None

    tick, played = play_until(history, created, STEP_LIMIT)
    if tick is not None:
        rows.append(line(f"the backfill creates it at {context.at(tick)}, if nothing changes"))
    else:
        rows.append(line(f"it is not created by {context.at(played)}, if nothing changes"))
    rows.append(line("found by playing on from now with no new command", tag=Tag.NOTE))
    return section("Backfill", rows)
