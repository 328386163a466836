"""Why a tick of a job's schedule has no run, and that a backfill made one: read from the log.

A tick of the schedule without a run was skipped by a rule, and the log says which: a resume's
missed-run rule (``OccurrencesSkipped``, after a pause or a ``scheduler_down`` window; with
``TooManyMissedRuns`` when Kubernetes' limit refused them all), an overlap rule or a trigger rule
(``OccurrenceSkipped``, naming it). A run created by a backfill has a ``RunBackfilled`` event.
"""

from __future__ import annotations

from engine import events as ev
from engine.explain.context import Context
from engine.explain.lines import Line, Tag, line, section
from engine.job_rules import Overlap
from engine.model import CatchUp

_OVERLAP_NAMES = frozenset(policy.value for policy in Overlap)
_KEPT = {
    CatchUp.SKIP: "catch_up: skip runs none of the runs missed",
    CatchUp.LATEST: "catch_up: latest runs only the latest run missed",
    CatchUp.ALL: "catch_up: all runs every run missed, within its window",
}


def skipped(context: Context, job_id: str, scheduled: int) -> Line | None:
    """Why the job has no run at ``scheduled``, if a rule skipped it; None if none did."""
    job = context.engine.jobs[job_id]
    if not job.fires_at(scheduled):
        return None
    found: ev.Event | None = None
    resumed: dict[int, CatchUp] = {}
    too_many: dict[int, ev.TooManyMissedRuns] = {}
    for event in context.events_of(job_id):
        if _skips(event, scheduled):
            found = event
        elif isinstance(event, ev.JobResumed):
            resumed[event.tick] = event.catch_up
        elif isinstance(event, ev.TooManyMissedRuns):
            too_many[event.tick] = event
    if isinstance(found, ev.OccurrenceSkipped):
        rule = f"overlap: {found.because}" if found.because in _OVERLAP_NAMES else None
        text = (
            f"a run of the job was still active, and its rule ({rule}) skips a new one"
            if rule is not None
            else f"its trigger rule {found.because} judged its upstream runs: skip"
        )
        return section(f"skipped at {context.at(found.tick)}", [line(text)])
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
                f"more than {limit.limit} runs were missed (TooManyMissedRuns): none of them runs",
                tag=Tag.WARN,
            )
        )
    elif found.tick in resumed:
        rows.append(line(_KEPT[resumed[found.tick]]))
        window = job.spec.catch_up_window
        if window is not None and scheduled < found.tick - window:
            rows.append(line(f"catch_up_window: {window}: it was missed more than {window} ago"))
    rows.append(line("a backfill can still create it (backfill JOB FROM TO)", tag=Tag.NOTE))
    return section(f"skipped at {context.at(found.tick)}", rows)


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
