"""Why a tick of a job's schedule has no run, and that a backfill made one: read from the log.

A tick of the schedule without a run was skipped by a rule, and the log says which: a resume's
missed-run rule (``OccurrencesSkipped``, after a pause or a ``scheduler_down`` window; with
``TooManyMissedRuns`` when ``max_missed``, Kubernetes' limit, refused them all), an overlap rule
or a trigger rule (``OccurrenceSkipped``, naming it). The answer names each rule by its setting
(``max_missed: 5``, ``overlap: BufferOne``), never by its event. A wall time of a fixed-time
schedule in the second pass of a repeated hour has no fire time at all: the DST rule says why
(:func:`~cronlapse.analyses.explain.calendar_rule.second_pass`). A run created by a backfill has a
``RunBackfilled`` event.
"""

from __future__ import annotations

from cronlapse.analyses.explain.calendar_rule import second_pass
from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.job_rules import Overlap
from engine.model.records import CatchUp

_OVERLAP_NAMES = frozenset(policy.value for policy in Overlap)
_KEPT = {
    CatchUp.SKIP: "catch_up: skip: no missed run runs",
    CatchUp.LATEST: "catch_up: latest: only the latest missed run runs",
    CatchUp.ALL: "catch_up: all: every missed run runs, within its window",
}


def skipped(context: Context, job_id: str, scheduled: int) -> Line | None:
    """Why the job has no run at ``scheduled``, if a rule skipped it; None if none did.

    A tick that is no fire time may still be one of the schedule's wall times: the second pass
    of a repeated hour, which the DST rule for fixed-time jobs leaves without a run."""
    job = context.engine.query.jobs()[job_id]
    if not job.fires_at(scheduled):
        return second_pass(context, job_id, scheduled)
    found: ev.Event | None = None
    resumed: dict[int, CatchUp] = {}
    too_many: dict[int, ev.TooManyMissedRuns] = {}
    held: list[int] = []  # the runs an overlap rule holds, as the log goes
    held_then: list[int] = []  # those it held when it skipped the run
    for event in context.events_of(job_id):
        if _skips(event, scheduled):
            found, held_then = event, list(held)
        elif isinstance(event, ev.OccurrenceHeld):
            held.append(event.scheduled)
        elif isinstance(event, ev.OccurrenceReleased | ev.OccurrenceCancelled):
            held = [tick for tick in held if tick != event.scheduled]
        elif isinstance(event, ev.JobResumed):
            resumed[event.tick] = event.catch_up
        elif isinstance(event, ev.TooManyMissedRuns):
            too_many[event.tick] = event
    if isinstance(found, ev.OccurrenceSkipped):
        return section(f"skipped at {context.at(found.tick)}", [line(_skip_rule(found, held_then))])
    if not isinstance(found, ev.OccurrencesSkipped):
        return None
    rows = [
        line(
            "it fell due while its job was paused (by a pause or a scheduler_down window), "
            "and the resume's missed-run rule left it out"
        )
    ]
    limit = too_many.get(found.tick)
    if limit is not None:
        rows.append(
            line(
                f"max_missed: {limit.limit}: more than {limit.limit} runs were missed, so only "
                "the latest of them may run",
                tag=Tag.WARN,
            )
        )
    elif found.tick in resumed:
        rows.append(line(_KEPT[resumed[found.tick]]))
        window = job.spec.catch_up_window
        if window is not None and scheduled < found.tick - window:
            rows.append(
                line(
                    f"catch_up_window: {window}: it fell due more than {context.ticks(window)} "
                    "before the resume"
                )
            )
    if not context.engine.query.backfill_pending(job_id, scheduled):  # else its own section says so
        rows.append(line("a backfill can still create it (backfill JOB FROM TO)", tag=Tag.NOTE))
    return section(f"skipped at {context.at(found.tick)}", rows)


def _skip_rule(skip: ev.OccurrenceSkipped, held: list[int]) -> str:
    """The rule that skipped one run, worded for what it saw: BufferOne skips a run when the one
    place it keeps for a run is taken (``held``: the runs it held then), not merely because a run
    was active (that run, at the limit, is what the held one waits for)."""
    if skip.because not in _OVERLAP_NAMES:
        return f"its trigger rule {skip.because} judged its upstream runs: skip"
    rule = f"overlap: {skip.because}"
    if skip.because == Overlap.BUFFER_ONE.value:
        waiting = ", ".join(f"{skip.job_id}@{tick}" for tick in held) or "a run"
        return (
            f"its job was at its limit of active runs, and the buffer of its rule ({rule}) "
            f"holds one run: {waiting} was waiting in it, so this run was skipped"
        )
    return f"a run of the job was still active, and its rule ({rule}) skips a new one"


def _skips(event: ev.Event, scheduled: int) -> bool:
    """Whether ``event`` skipped the run at ``scheduled``: alone, or in a resume's range."""
    if isinstance(event, ev.OccurrencesSkipped):
        return event.after < scheduled <= event.through
    return isinstance(event, ev.OccurrenceSkipped) and event.scheduled == scheduled


def backfilled(context: Context, job_id: str, scheduled: int) -> Line | None:
    """That a backfill created the run, and when; None for a run its schedule created."""
    for event in context.run_events(job_id, scheduled):
        if isinstance(event, ev.RunBackfilled):
            return line(f"created by a backfill at {context.at(event.tick)}")
    return None
