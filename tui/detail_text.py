"""What the detail pane says about the selected row, as Rich renderables.

An occurrence: its state, its attempt history and why it ended, then its job. A job: its
definition, its dependencies and the next fire times. A worker: what it runs and its recent
attempts. An event or a notification: itself, then the occurrence it is about.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cronlapse.analyses.latency.attribution import priority_words
from engine.core import Engine
from engine.model import events as ev
from engine.model.policies import CompletionMode
from engine.model.records import OccurrenceState
from engine.schedules.clock import Clock
from engine.schedules.kinds import Every, Once, Schedule
from tui.describe import detail as event_detail
from tui.describe import event_style, event_word, subject
from tui.model.lanes import Lanes
from tui.model.timefmt import compact, run_label, span, tick_label, ticks_are_times
from tui.states import DIM, JOB_STATUS, TICK, state_text, style_of

S = OccurrenceState
DETAIL_BACKLOG_CAP = 999
"""Implicit runs the detail pane counts behind a job's front; more show as ``999+``."""


def describe(
    kind: str, key: Any, engine: Engine, clock: Clock | None, lanes: Lanes | None = None
) -> RenderableType:
    """The detail of one row; a hint when nothing (or something gone) is selected."""
    if key is None:
        return Text("Select a row to see its details.", style=DIM)
    if kind == "occurrence":
        return occurrence(key, engine, clock)
    if kind == "worker":
        return worker(key, engine, clock, lanes)
    if kind == "event":
        return event(key, engine, clock)
    if kind == "notification":
        return notification(key, engine, clock)
    return Text(f"{kind} {key}")


def _title(text: str, *extra: Text) -> Text:
    title = Text(text, style="bold")
    for part in extra:
        title.append("  ")
        title.append_text(part)
    return title


def _at(clock: Clock | None, tick: int | None) -> Text:
    """The tick and its time; where ticks are times (a live service's), the time alone."""
    if tick is None:
        return Text("")
    if ticks_are_times(clock):
        return Text(compact(clock, tick), style=TICK)
    text = Text(str(tick), style=TICK)
    if clock is not None:
        text.append(f"  {compact(clock, tick)}", style=DIM)
    return text


def _fields(rows: list[tuple[str, Any]]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style=DIM, no_wrap=True)
    table.add_column()
    for name, value in rows:
        table.add_row(name, value if isinstance(value, Text) else Text(str(value)))
    return table


def occurrence(key: tuple[str, int], engine: Engine, clock: Clock | None) -> RenderableType:
    job_id, scheduled = key
    state = engine.query.run_state(job_id, scheduled)
    record = engine.query.record(job_id, scheduled)
    if state is None:
        return Text(
            f"{run_label(job_id, scheduled, clock)} does not exist at this tick.", style=DIM
        )
    title = f"{job_id} @ {tick_label(clock, scheduled)}"
    parts: list[RenderableType] = [_title(title, state_text(state))]
    rows: list[tuple[str, Any]] = [("scheduled", _at(clock, scheduled))]
    if record is None:
        rows.append(("record", Text("implicit: due and waiting, nothing has touched it yet")))
    else:
        rows.append(("attempts", f"{len(record.attempts)} of {record.max_attempts}"))
        rows.append(("priority", priority_words(record.priority)))
        rows.append(("ready since", _at(clock, record.ready_since)))
        if state is S.RETRY_PENDING and record.eligible_at is not None:
            rows.append(("eligible at", _at(clock, record.eligible_at)))
            rows.append(("backoff", span(record.retry_delay or 0, clock)))
        if record.cancel_reason is not None:
            reason = record.cancel_reason.value
            if record.cancel_cause:
                reason += f": {record.cancel_cause} failed first"
            rows.append(("cancelled", reason))
    parts.append(_fields(rows))
    if record is not None and record.attempts:
        table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
        for name in ("#", "worker", "start", "end", "len", "outcome"):
            table.add_column(name, justify="right" if name in ("#", "len") else "left")
        for attempt in record.attempts:
            ended = attempt.ended
            length = (ended if ended is not None else engine.now) - attempt.started
            table.add_row(
                str(attempt.number),
                Text(attempt.worker_id),
                Text(tick_label(clock, attempt.started), style=TICK),
                Text("" if ended is None else tick_label(clock, ended), style=TICK),
                str(length),
                state_text(attempt.outcome),
            )
        parts += [Text(""), Text("Attempts", style="bold"), table]
    parts += [Text(""), job(job_id, engine, clock)]
    return Group(*parts)


def job(job_id: str, engine: Engine, clock: Clock | None) -> RenderableType:
    view = engine.query.job_view(job_id, fire_times=5)
    if view is None:
        return Text(f"no job {job_id}", style=DIM)
    spec = view.job.spec
    rows: list[tuple[str, Any]] = [
        ("schedule", _schedule(spec.schedule, clock)),
        ("priority", priority_words(spec.priority)),
        ("max attempts", spec.max_attempts),
        ("duration", _duration(engine, spec.duration, clock)),
        ("timeout", _timeout(engine, spec.timeout, clock)),
    ]
    if spec.backoff is not None:
        backoff = spec.backoff
        text = f"{backoff.kind.value} base {backoff.base}"
        if backoff.cap is not None:
            text += f" cap {backoff.cap}"
        rows.append(("backoff", f"{text} jitter {backoff.jitter.value}"))
    if spec.failure_rate:
        rows.append(("failure rate", f"{spec.failure_rate:.0%}"))
    if spec.depends_on:
        needs = Text()
        for number, dependency in enumerate(spec.depends_on):
            if number:
                needs.append(", ")
            needs.append(dependency, style=_once_style(engine, dependency))
        rows.append(("depends on", needs))
    if view.job.dependents:
        rows.append(("needed by", ", ".join(view.job.dependents)))
    for subscription in spec.notify:
        happenings = ",".join(sorted(on.value for on in subscription.on))
        rows.append(
            ("notifies", f"{subscription.channel.value} {subscription.target} on {happenings}")
        )
    if spec.payload:
        rows.append(("payload", spec.payload))
    front = engine.query.implicit_front(job_id)
    if front is not None:
        behind = engine.query.count_implicit(job_id, offset=1, cap=DETAIL_BACKLOG_CAP)
        more = "+" if behind >= DETAIL_BACKLOG_CAP else ""
        rows.append(("queued", f"from {front}, {behind}{more} behind"))
    fires = Text()
    for number, tick in enumerate(view.next_fire_times):
        if number:
            fires.append("\n")
        fires.append_text(_at(clock, tick))
    rows.append(("next fires", fires if view.next_fire_times else Text("none", style=DIM)))
    title = _title(f"Job {job_id}", Text(view.status, style=JOB_STATUS[view.status]))
    return Group(title, _fields(rows))


def _schedule(schedule: Schedule, clock: Clock | None) -> str:
    """The schedule's words; a live service's ``every`` and ``at`` with times for their ticks."""
    if ticks_are_times(clock):
        if isinstance(schedule, Every):
            return f"every {span(schedule.interval, clock)} from {compact(clock, schedule.first)}"
        if isinstance(schedule, Once):
            return f"once at {compact(clock, schedule.at)}"
    return schedule.describe()


def _duration(engine: Engine, duration: int, clock: Clock | None) -> Text:
    """How long an attempt runs: the job's duration, unless attempts end when they are reported
    (a live service's executors, a seed 000 script): then the duration is never used."""
    if engine.policy.completion is CompletionMode.REPORTED:
        return Text("set by the executor: an attempt ends when it reports", style=DIM)
    return Text(span(duration, clock))


def _timeout(engine: Engine, timeout: int | None, clock: Clock | None) -> Text:
    """The limit an attempt runs under: the job's own, else the policy's default (seed 003's
    five minutes, which a live service applies to every job that sets none)."""
    if timeout is not None:
        return Text(span(timeout, clock))
    limit = engine.policy.execution_limit
    if limit is None:
        return Text("none")
    return Text.assemble(span(limit, clock), (", the policy's default", DIM))


def _once_style(engine: Engine, job_id: str):
    dependency = engine.query.job(job_id)
    if dependency is None:
        return DIM
    at = getattr(dependency.spec.schedule, "at", None)
    state = engine.query.run_state(job_id, at) if at is not None else None
    return style_of(state) if state is not None else DIM


def worker(
    worker_id: str, engine: Engine, clock: Clock | None, lanes: Lanes | None
) -> RenderableType:
    record = engine.query.worker(worker_id)
    if record is None:
        return Text(f"no worker {worker_id} at this tick", style=DIM)
    lifetime = engine.now - record.registered
    busy = record.busy_ticks_at(engine.now)
    rows: list[tuple[str, Any]] = [
        ("registered", _at(clock, record.registered)),
        ("since", _at(clock, record.since)),
        ("busy", f"{busy:,} of {lifetime:,} ticks ({busy / lifetime:.0%})" if lifetime else "0"),
    ]
    if record.running is not None:
        rows.append(("running", run_label(*record.running, clock)))
    parts: list[RenderableType] = [
        _title(f"Worker {worker_id}", state_text(record.state)),
        _fields(rows),
    ]
    spans = (lanes.spans.get(worker_id, []) if lanes is not None else [])[-12:]
    if spans:
        table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
        for name in ("job", "#", "start", "end", "outcome"):
            table.add_column(name)
        for item in reversed(spans):
            outcome = item.outcome or "RUNNING"
            table.add_row(
                Text(run_label(item.job_id, item.scheduled, clock)),
                str(item.attempt),
                Text(tick_label(clock, item.start), style=TICK),
                Text("" if item.end is None else tick_label(clock, item.end), style=TICK),
                Text(outcome, style=style_of(outcome)),
            )
        parts += [Text(""), Text("Recent attempts", style="bold"), table]
    return Group(*parts)


def event(position: int, engine: Engine, clock: Clock | None) -> RenderableType:
    if not 0 <= position < len(engine.log):
        return Text("this event is not in the log at this tick", style=DIM)
    item = engine.log[position]
    title = _title("Event", Text(event_word(item), style=event_style(item)))
    rows = [
        ("tick", _at(clock, item.tick)),
        ("about", subject(item, clock)),
        ("detail", event_detail(item)),
    ]
    parts: list[RenderableType] = [title, _fields(rows), Text("")]
    if isinstance(item, ev.OccurrenceEvent):
        parts.append(occurrence((item.job_id, item.scheduled), engine, clock))
    elif isinstance(item, ev.NotificationEvent):
        parts.append(notification(item.key, engine, clock))
    elif getattr(item, "worker_id", None) is not None:
        parts.append(worker(item.worker_id, engine, clock, None))
    elif getattr(item, "job_id", None) is not None:
        parts.append(job(item.job_id, engine, clock))
    return Group(*parts)


def notification(key: tuple, engine: Engine, clock: Clock | None) -> RenderableType:
    record = engine.query.notification(key)
    if record is None:
        return Text("this notification does not exist at this tick", style=DIM)
    job_id, scheduled, attempt, happening, channel, target = key
    rows: list[tuple[str, Any]] = [
        ("about", f"{run_label(job_id, scheduled, clock)} attempt {attempt}: {happening}"),
        ("to", f"{channel} {target}"),
        ("queued", _at(clock, record.created)),
        ("tries", record.tries),
    ]
    if record.next_try is not None:
        rows.append(("next try", _at(clock, record.next_try)))
    if record.delivered_at is not None:
        rows.append(("delivered", _at(clock, record.delivered_at)))
    title = _title("Notification", state_text(record.state))
    return Group(title, _fields(rows), Text(""), occurrence((job_id, scheduled), engine, clock))
