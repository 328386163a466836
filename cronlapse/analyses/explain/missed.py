"""``cronlapse explain missed``: which runs each system's missed-run rule starts after an outage.

The question (Kubernetes #121594's cousins: "why did my CronJob not run after the controller was
down?") is answered by the engine itself, never by a second model of the rules: the scenario is
read again with one ``scheduler_down`` window, FROM..TO, in place of its own, and played once per
rule with the job's ``catch_up``, ``catch_up_window``, ``max_missed`` and ``overlap`` replaced by
that system's (docs/semantics.md, "Missed runs"): each system's row is that system's own rules,
never the job's overlap rule with another system's catch-up. What each play has created of the
job's missed runs once the scheduler is back is the answer, so it cannot drift from what
``cronlapse run`` does; the missed runs the overlap rule dropped are counted apart, as skipped.

Pure apart from the scenario loader: the caller gives the parsed scenario.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass

from engine.model import commands as cmd
from engine.model import events as ev
from engine.model.event_log import EventLog
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.records import CancelReason, CatchUp, JobSpec, OccurrenceState
from engine.play.history import History
from engine.query.views import OccurrenceRow
from engine.rules.missed_runs import skip_through
from engine.scenario import Scenario
from engine.scenario.errors import Problems
from engine.scenario.model import TimelineEntry
from engine.scenario.validate import scenario_from_tree
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence
from engine.schedules.clock import Clock
from engine.schedules.kinds import Once, Schedule, next_fire_times

SHOWN = 10_000
"""Runs listed per rule at most: a catch-up of a year of minutes is counted "more than" this."""
TEMPORAL_DEFAULT_WINDOW_SECONDS = 365 * 86_400
"""Temporal's default catch-up window: one year."""
KUBERNETES_MAX_MISSED = 100
AIRFLOW_MAX_ACTIVE_RUNS = 16
"""Airflow's ``max_active_runs_per_dag`` default: a DAG's runs beyond it wait."""
RULE_KEYS = ("catch_up", "catch_up_window", "max_missed")


class MissedQuestionError(ValueError):
    """A question that cannot be answered: the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One system's rules after an outage: its missed-run rule, as the job's three keys, and
    its overlap rule (None: runs may overlap, Kubernetes' ``Allow``)."""

    name: str
    catch_up: CatchUp
    window: int | None
    max_missed: int | None
    overlap: OverlapRule | None

    def settings(self) -> str:
        text = f"catch_up: {self.catch_up.value}"
        if self.window is not None:
            text += f", catch_up_window: {self.window}"
        if self.max_missed is not None:
            text += f", max_missed: {self.max_missed}"
        return f"{text}, {overlap_setting(self.overlap)}"


def overlap_setting(rule: OverlapRule | None) -> str:
    """The overlap rule as a job's keys say it."""
    if rule is None:
        return "overlap: Allow"
    if rule.policy is Overlap.MAX_ACTIVE_RUNS:
        return f"max_active: {rule.limit}"
    limit = f", max_active: {rule.limit}" if rule.limit != 1 else ""
    return f"overlap: {rule.policy.value}{limit}"


@dataclass(frozen=True, slots=True)
class RuleAnswer:
    rule: Rule
    started: tuple[int, ...]
    """The missed runs the rule created at the end of the outage, at most :data:`SHOWN`."""
    more: bool
    """Whether more than :data:`SHOWN` were created."""
    too_many: ev.TooManyMissedRuns | None
    """Kubernetes' event, when more runs were missed than the rule's limit: only the latest
    may run."""
    skipped: int = 0
    """Missed runs its catch-up let through that its overlap rule dropped: skipped at once, or
    held and then replaced by a newer one (they never run)."""


@dataclass(frozen=True, slots=True)
class MissedAnswer:
    job_id: str
    schedule: str
    start: int
    end: int
    missed: tuple[int, ...]
    """The job's runs that fell due while the scheduler was down, at most :data:`SHOWN`."""
    more_missed: bool
    answers: tuple[RuleAnswer, ...]
    clock: Clock | None
    replaced_windows: bool
    """Whether the file had ``scheduler_down`` windows of its own (left out)."""


def rules(spec: JobSpec, window: int | None, tick_seconds: int) -> list[Rule]:
    """The job's own rule, then each system's. ``window`` (ticks) stands for Kubernetes'
    ``startingDeadlineSeconds`` and Temporal's catch-up window; without it the job's own
    ``catch_up_window`` does, and Temporal's default of one year when the job has none."""
    own = window if window is not None else spec.catch_up_window
    year = -(-TEMPORAL_DEFAULT_WINDOW_SECONDS // tick_seconds)
    all_, latest, skip = CatchUp.ALL, CatchUp.LATEST, CatchUp.SKIP
    airflow = OverlapRule(Overlap.MAX_ACTIVE_RUNS, AIRFLOW_MAX_ACTIVE_RUNS)
    temporal = OverlapRule(Overlap.SKIP)  # Temporal's default overlap policy
    systemd = OverlapRule(Overlap.FORBID)  # a unit still active is not started again
    configured = spec.catch_up, spec.catch_up_window, spec.max_missed, spec.overlap
    return [
        Rule("this job, as configured", *configured),
        Rule("Kubernetes CronJob", latest, own, KUBERNETES_MAX_MISSED, None),
        Rule("Airflow catchup=True", all_, None, None, airflow),
        Rule("Airflow catchup=False", latest, None, None, airflow),
        Rule("Temporal catch-up window", all_, own if own is not None else year, None, temporal),
        Rule("systemd Persistent=true", latest, None, None, systemd),
        Rule("systemd Persistent=false", skip, None, None, systemd),
    ]


def with_outage(tree: Node, start: int, end: int) -> tuple[Node, bool]:
    """``tree`` with ``scheduler_down: [{from: start, to: end}]`` in place of its own windows,
    and whether it had some."""
    if not isinstance(tree, Mapping):
        return tree, False
    pos = tree.pos
    window = Mapping(
        (
            (Scalar("from", pos, "from"), Scalar(start, pos, str(start))),
            (Scalar("to", pos, "to"), Scalar(end, pos, str(end))),
        ),
        pos,
    )
    down = Sequence((window,), pos)
    key = "scheduler_down"
    had = tree.get(key) is not None
    entries = [(name, value) for name, value in tree.entries if name.text != key]
    entries.append((Scalar(key, pos, key), down))
    return Mapping(tuple(entries), pos), had


def explain_missed(
    tree: Node, source: str, job_id: str, start: int, end: int, window: int | None = None
) -> MissedAnswer:
    """Play the scenario in ``tree`` (read from ``source``) with the scheduler down from
    ``start`` to ``end``, once per rule. Raises :class:`MissedQuestionError`, or the loader's
    ``ScenarioInvalid``."""
    if start >= end:
        raise MissedQuestionError(f"the outage must end after it starts: {start}..{end}")
    edited, replaced = with_outage(tree, start, end)
    scenario = scenario_from_tree(edited, Problems(source))
    if scenario.until is not None and end > scenario.until:
        raise MissedQuestionError(
            f"{start}..{end} ends after the scenario does (clock.until: {scenario.until})"
        )
    spec = _spec(scenario, job_id, start)
    answers = tuple(
        _play(scenario, job_id, rule, start, end)
        for rule in rules(spec, window, scenario.tick_seconds)
    )
    missed = next_fire_times(spec.schedule, start + 1, SHOWN + 1)
    missed = [tick for tick in missed if tick <= end]
    return MissedAnswer(
        job_id,
        spec.schedule.describe(),
        start,
        end,
        tuple(missed[:SHOWN]),
        len(missed) > SHOWN,
        answers,
        scenario.clock,
        replaced,
    )


def _spec(scenario: Scenario, job_id: str, start: int) -> JobSpec:
    """The job's definition at ``start``; refused unless it is a recurring job by then."""
    defined = {}
    for entry in scenario.timeline:
        if isinstance(entry.action, cmd.ScheduleJob):
            defined.setdefault(entry.action.spec.job_id, (entry.tick, entry.action.spec))
    if job_id not in defined:
        close = difflib.get_close_matches(job_id, list(defined), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise MissedQuestionError(f"{scenario.source} has no job {job_id!r}{hint}")
    tick, spec = defined[job_id]
    if isinstance(spec.schedule, Once):
        raise MissedQuestionError(
            f"{job_id} is a one-time job: an outage does not hold it back, so it misses nothing"
        )
    if tick > start:
        raise MissedQuestionError(f"{job_id} is defined at {tick}, after the outage starts")
    return spec


def _play(scenario: Scenario, job_id: str, rule: Rule, start: int, end: int) -> RuleAnswer:
    played = dataclasses.replace(scenario, timeline=_with_rule(scenario.timeline, job_id, rule))
    history = History(played.new_engine, played.commands, played.until)
    history.seek(end - 1)
    job = history.engine.query.job(job_id)
    paused_through = None if job is None else job.paused_through
    resume_range = None
    if job is not None and paused_through is not None:  # what the catch-up rule skips
        through = skip_through(end, EventLog(), job, job.spec.catch_up, paused_through)
        resume_range = None if through is None else (paused_through, through)
    history.seek(end)
    if paused_through is None or not _held_back(history, job_id, start, end):
        raise MissedQuestionError(
            f"{job_id} is not held back by the outage at {start}: the timeline has deleted it "
            "or left it paused by then"
        )
    rows = history.engine.query.runs(
        job_id=job_id, since=paused_through + 1, until=end, limit=SHOWN
    )
    events = [event for event in history.events_at(end) if getattr(event, "job_id", None) == job_id]
    too_many = next((e for e in events if isinstance(e, ev.TooManyMissedRuns)), None)
    started = tuple(row.scheduled for row in rows.items if not _let_go(row))
    let_go = len(rows.items) - len(started)
    schedule = history.engine.query.jobs()[job_id].spec.schedule
    skipped = let_go + _overlap_skips(events, schedule, resume_range)
    return RuleAnswer(rule, started, rows.more, too_many, skipped)


def _let_go(row: OccurrenceRow) -> bool:
    """Whether the run was held by its overlap rule and a newer run took its place before it
    started (BufferLatest): it never runs, as Kubernetes never creates it."""
    replaced = row.state is OccurrenceState.CANCELLED and row.cancel_reason is CancelReason.REPLACED
    return replaced and row.cancel_cause == Overlap.BUFFER_LATEST.value


def _overlap_skips(
    events: list[ev.Event], schedule: Schedule, resume_range: tuple[int, int] | None
) -> int:
    """The runs the overlap rule skipped when the job resumed: each ``OccurrenceSkipped``, and
    each ``OccurrencesSkipped`` range but ``resume_range``, the catch-up rule's own."""
    count = 0
    for event in events:
        if isinstance(event, ev.OccurrenceSkipped):
            count += 1
        elif isinstance(event, ev.OccurrencesSkipped):
            if (event.after, event.through) == resume_range:
                resume_range = None  # the catch-up rule's: once
                continue
            count += sum(1 for _ in schedule.fire_ticks(event.after + 1, event.through))
    return count


def _held_back(history: History, job_id: str, start: int, end: int) -> bool:
    """Whether the outage paused the job at ``start`` and resumed it at ``end``."""
    paused = any(
        isinstance(event, ev.JobPaused) and event.job_id == job_id
        for event in history.events_at(start)
    )
    return paused and any(
        isinstance(event, ev.JobResumed) and event.job_id == job_id
        for event in history.events_at(end)
    )


def _with_rule(
    timeline: tuple[TimelineEntry, ...], job_id: str, rule: Rule
) -> tuple[TimelineEntry, ...]:
    """The timeline with the job's definitions carrying ``rule``, and its modifications of the
    three keys left out (a resume's own ``catch_up`` is the user's command, and stays)."""
    keys = {"catch_up": rule.catch_up, "catch_up_window": rule.window}
    keys |= {"max_missed": rule.max_missed, "overlap": rule.overlap}
    entries = []
    for entry in timeline:
        action = entry.action
        if isinstance(action, cmd.ScheduleJob) and action.spec.job_id == job_id:
            spec = dataclasses.replace(action.spec, **keys)  # type: ignore[arg-type]
            entry = dataclasses.replace(entry, action=cmd.ScheduleJob(spec))
        elif isinstance(action, cmd.ModifyJob) and action.job_id == job_id:
            changes = tuple(change for change in action.changes if change[0] not in RULE_KEYS)
            entry = dataclasses.replace(entry, action=cmd.ModifyJob(job_id, changes))
        entries.append(entry)
    return tuple(entries)


def render(answer: MissedAnswer) -> str:
    """The answer as text: the missed runs, then one line per rule."""
    moment = _moment(answer.clock)
    lines = [
        f"{answer.job_id} ({answer.schedule}) while the scheduler is down from "
        f"{moment(answer.start)} to {moment(answer.end)}",
    ]
    if answer.replaced_windows:
        lines.append("(the file's own scheduler_down windows are left out)")
    lines.append(f"missed: {_runs(answer.missed, answer.more_missed, moment)}")
    lines.append(f"started when the scheduler is back, at {moment(answer.end)}:")
    width = max(len(rule_answer.rule.name) for rule_answer in answer.answers)
    for rule_answer in answer.answers:
        rule = rule_answer.rule
        started = _runs(rule_answer.started, rule_answer.more, moment)
        lines.append(f"  {rule.name:<{width}}  {started:<24}  [{rule.settings()}]")
        event = rule_answer.too_many
        if event is not None:
            lines.append(
                f"  {'':<{width}}  max_missed: {event.limit}: more than {event.limit} runs were "
                "missed, so only the latest of them may run"
            )
        if rule_answer.skipped:
            lines.append(
                f"  {'':<{width}}  and {rule_answer.skipped:,} skipped by "
                f"{overlap_setting(rule.overlap)}: a run was still active"
            )
    return "\n".join(lines) + "\n"


def _runs(ticks: tuple[int, ...], more: bool, moment: Callable[[int], str]) -> str:
    if not ticks:
        return "none"
    if more:
        return f"{moment(ticks[0])}, {moment(ticks[1])}, ... (more than {SHOWN})"
    if len(ticks) <= 4:
        return ", ".join(moment(tick) for tick in ticks) + f" ({len(ticks)})"
    return f"{moment(ticks[0])}, {moment(ticks[1])}, ..., {moment(ticks[-1])} ({len(ticks)})"


def _moment(clock: Clock | None) -> Callable[[int], str]:
    """How a tick is shown: as itself, or as the wall time it is when the scenario has a clock."""
    if clock is None:
        return str

    def moment(tick: int) -> str:
        return f"{clock.to_datetime(tick):%Y-%m-%dT%H:%M}"

    return moment
