"""``explain_run``: the answer to "why?" about one run, as a tree of lines.

The answer opens with the run's state (for a run failed for good, why it was not retried), then
gives each section that applies: the time in each phase so far; its attempts, each with its
worker; for a waiting run what holds it now and when it would start if nothing changed (or how
it ends instead); its retries with their backoff; its faults (lost, timed out); its cancellation;
its calendar. A tick that is not a run yet says why: its job is paused (and what its resume will
do with it), no dispatch has created it (manual dispatch), or it is not due yet.
"""

from __future__ import annotations

from cronlapse.analyses.explain.attempts import attempts
from cronlapse.analyses.explain.backfill import pending_backfill
from cronlapse.analyses.explain.calendar_rule import calendar
from cronlapse.analyses.explain.cascade import cancellation
from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.failed import failed_for_good
from cronlapse.analyses.explain.faults import faults
from cronlapse.analyses.explain.forecast import RunEnd, next_creation, next_resume, next_start
from cronlapse.analyses.explain.holds import holds
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from cronlapse.analyses.explain.notices import deadline, notifications
from cronlapse.analyses.explain.phases import phase_lines, phases
from cronlapse.analyses.explain.retry import retries
from cronlapse.analyses.explain.skipped import backfilled, skipped
from engine.model import events as ev
from engine.model.policies import DispatchMode
from engine.model.records import CancelReason, CatchUp, Occurrence, OccurrenceState
from engine.play.history import History
from engine.schedules.clock import Clock

S = OccurrenceState
_WAITING = (S.QUEUED, S.BLOCKED, S.RETRY_PENDING)
_FOUND_BY_PLAYING = "found by playing the run on from now with no new command"
_PLAYED_ON = "found by playing on from now with no new command"
_CATCH_UP_WORDS = {
    CatchUp.SKIP: "no missed run runs",
    CatchUp.LATEST: "only the latest missed run runs",
    CatchUp.ALL: "every missed run runs, oldest first",
}


def explain_run(history: History, job_id: str, scheduled: int, clock: Clock | None = None) -> Line:
    """Why the run ``job_id@scheduled`` is where it is at the history's tick."""
    engine = history.engine
    context = Context(engine, clock)
    query = engine.query
    if query.job(job_id) is None:
        return line(f"no job {job_id} at {context.at(context.now)}", tag=Tag.WARN)
    state = query.run_state(job_id, scheduled)
    if state is None or state is S.SCHEDULED:
        return _not_due(history, context, job_id, scheduled, state)
    record = query.record(job_id, scheduled)
    title = f"{job_id}@{scheduled} is {state.value} at {context.at(context.now)}"
    parts: list[Line] = [line(f"scheduled for {context.at(scheduled)}")]
    backfill = backfilled(context, job_id, scheduled)
    if backfill is not None:
        parts.append(backfill)
    limit = deadline(context, job_id, scheduled, state)
    if limit is not None:
        parts.append(limit)
    parts.append(phase_lines(context, phases(context, job_id, scheduled)))
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
        notifications(context, job_id, scheduled),
        calendar(context, job_id, scheduled),
    ):
        if answer is not None:
            parts.append(answer)
    if record is not None and state is S.FAILED:
        parts.insert(1, _failed_for_good(context, record))
    return Line(title, tuple(parts), Tag.TITLE)


def _failed_for_good(context: Context, record: Occurrence) -> Line:
    """That the run failed for good, and why its last failure was not retried: its attempts
    were used up, or the policy takes a timed-out run back without retrying it."""
    why = failed_for_good(context.engine, record)
    text = f"failed for good after {why.attempts} attempt(s)"
    if why.run_timeout is not None:
        limit = why.run_timeout
        text += (
            f": its run_timeout passed ({context.ticks(limit)} from its first attempt's start "
            f"at {context.at(why.first_start)}), retries left or not"
        )
    elif why.taken_back:
        text += (
            ": it timed out, and the policy's on_timeout: next_run takes a timed-out run back "
            f"without its retries (max_retries {why.allowed - 1})"
        )
    else:
        text += f": its last allowed attempt failed (max_attempts {why.allowed}"
        text += f", and {why.lost} lost attempt(s) not counted)" if why.lost else ")"
    return line(text, tag=Tag.WARN)


def _forecast(history: History, context: Context, job_id: str, scheduled: int) -> Line:
    found = next_start(history, job_id, scheduled)
    if found.start is not None:
        wait = found.start - context.now
        text = (
            f"it would start at {context.at(found.start)} on {found.worker_id}, "
            f"in {context.ticks(wait)}, if nothing changes"
        )
    elif found.end is not None:
        words = _end_words(context, job_id, found.end)
        text = f"it does not start: {words}, if nothing changes"
    else:
        text = f"it does not start by {context.at(found.played_to)}, if nothing changes"
    return section("When it would start", [line(text), line(_FOUND_BY_PLAYING, tag=Tag.NOTE)])


def _end_words(context: Context, job_id: str, end: RunEnd) -> str:
    """How a waiting run ends without starting: its final state, when, and why."""
    at = context.at(end.tick)
    if end.state is None:
        rule = f" (its rule {end.because})" if end.because is not None else ""
        return f"it is skipped at {at}{rule}"
    why = ""
    if end.reason is CancelReason.CASCADE:
        why = f" (a cascade from {end.cause})"
    elif end.reason is CancelReason.EXPIRED:
        deadline = context.engine.query.jobs()[job_id].spec.start_deadline
        why = f" (expired: not started {deadline} ticks after its time)"
    elif end.reason is CancelReason.USER:
        why = " (a cancel command)"
    elif end.reason is CancelReason.DELETED:
        why = " (its job is deleted)"
    elif end.reason is CancelReason.REPLACED:
        why = f" (a newer run takes its place: overlap {end.cause})"
    return f"it is {end.state.value} at {at}{why}"


def _not_due(
    history: History, context: Context, job_id: str, scheduled: int, state: S | None
) -> Line:
    """A tick that is not (yet) a run of the job: why it has not been created, if it is due."""
    job = context.engine.query.jobs()[job_id]
    paused = job.paused_through is not None
    manual = context.engine.policy.dispatch is DispatchMode.MANUAL
    due = scheduled <= context.now
    if state is not S.SCHEDULED:
        text = f"{job_id} has no run at {context.at(scheduled)}"
    elif due and (paused or manual):
        reason = "its job is paused" if paused else "no dispatch since it fell due"
        text = (
            f"{job_id}@{scheduled} is SCHEDULED at {context.at(context.now)}: not created, {reason}"
        )
    else:
        text = f"{job_id}@{scheduled} is SCHEDULED: it falls due at {context.at(scheduled)}"
    fire = job.first_fire(scheduled + 1)  # the tick itself may be a fire time a rule skipped
    rows: list[Line] = []
    why = skipped(context, job_id, scheduled) if state is None else None
    if why is not None:
        rows.append(why)
    backfill = pending_backfill(history, context, job_id, scheduled)
    if backfill is not None:
        rows.append(backfill)
    if paused:
        rows.append(section("Paused", _paused(history, context, job_id, scheduled, state)))
    elif manual and state is S.SCHEDULED:
        rows.append(section("Manual dispatch", _undispatched(history, context, job_id, scheduled)))
    rows.append(line(f"its schedule: {job.spec.schedule.describe()}"))
    if fire is not None:
        rows.append(line(f"its next fire time from there: {context.at(fire)}"))
    calendar_part = calendar(context, job_id, scheduled) if state is S.SCHEDULED else None
    if calendar_part is not None:
        rows.append(calendar_part)
    return Line(text, tuple(rows), Tag.TITLE)


def _paused(
    history: History, context: Context, job_id: str, scheduled: int, state: S | None
) -> list[Line]:
    """Its job is paused: since when, when it is resumed if nothing changes, and what the
    resume's missed-run rule does with the run (a pause stops the creation of runs; the runs
    that fell due meanwhile are its resume's to run or to leave out)."""
    job = context.engine.query.jobs()[job_id]
    since = next(e.tick for e in reversed(context.events_of(job_id)) if isinstance(e, ev.JobPaused))
    rows = [
        line(
            f"its job was paused at {context.at(since)}, by a pause or a scheduler_down window: "
            "no run of it is created while it is paused"
        )
    ]
    resume, played = next_resume(history, job_id, scheduled)
    mode = resume.catch_up if resume is not None else job.spec.catch_up
    subject = "this run" if state is S.SCHEDULED else "the runs that fell due meanwhile"
    rule = line(
        f"on resume, its missed-run rule decides what happens to {subject}: "
        f"{_catch_up_rule(context, job_id, mode)}"
    )
    if resume is None:
        rows += [line(f"no resume comes by {context.at(played)}, if nothing changes"), rule]
    elif scheduled > resume.tick:
        rows.append(line(f"it is resumed at {context.at(resume.tick)}, if nothing changes"))
        if state is S.SCHEDULED:
            rows.append(line("it falls due after that resume: it is created on time"))
    else:
        rows.append(line(f"it is resumed at {context.at(resume.tick)}, if nothing changes"))
        if state is S.SCHEDULED:
            verdict = "runs this run" if resume.created else "leaves this run out"
            rule = line(rule.text, line(f"at that resume the rule {verdict}"))
        rows.append(rule)
    rows.append(line(_PLAYED_ON, tag=Tag.NOTE))
    return rows


def _catch_up_rule(context: Context, job_id: str, mode: CatchUp) -> str:
    """The missed-run rule by its keys, and what it runs."""
    spec = context.engine.query.jobs()[job_id].spec
    keys = [f"catch_up: {mode.value}"]
    if spec.catch_up_window is not None:
        keys.append(f"catch_up_window: {spec.catch_up_window}")
    if spec.max_missed is not None:
        keys.append(f"max_missed: {spec.max_missed}")
    return f"{', '.join(keys)} ({_CATCH_UP_WORDS[mode]})"


def _undispatched(history: History, context: Context, job_id: str, scheduled: int) -> list[Line]:
    """Under manual dispatch a run is created by the first dispatch command at or after its
    tick, not by the tick itself."""
    created, played = next_creation(history, job_id, scheduled)
    found = (
        f"the dispatch at {context.at(created)} creates it, if nothing changes"
        if created is not None
        else f"no dispatch comes by {context.at(played)}, if nothing changes"
    )
    return [
        line(
            "under manual dispatch only a dispatch command creates runs (no automatic "
            "dispatch): the first one at or after its tick creates it"
        ),
        line(found),
        line(_PLAYED_ON, tag=Tag.NOTE),
    ]
