"""What users type: command lines, go-to targets, completion; and what export writes."""

from __future__ import annotations

import csv
import json

import pytest
from tui_helpers import CLOCK, small_session

from engine.model import commands as cmd
from engine.model.records import CatchUp
from engine.scenario.checks import StatusQuery
from engine.scenario.vocabulary import VERBS
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import Every, Once
from engine.schedules.targets import TargetError, parse_target
from tui.model.commandline import APP_COMMANDS, COMMANDS, CommandError, parse
from tui.model.completion import complete
from tui.model.export import default_export_path, export
from tui.model.navigator import Navigator
from tui.model.timefmt import compact, short, span, wall


@pytest.fixture
def engine():
    navigator = Navigator(small_session().history)
    navigator.seek(12)
    return navigator.engine


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("register w9", cmd.RegisterWorker("w9")),
        ("down w1", cmd.WorkerDown("w1")),
        ("up w1", cmd.WorkerUp("w1")),
        ("drain w3", cmd.DrainWorker("w3")),
        ("delete etl", cmd.DeleteJob("etl")),
        ("pause etl", cmd.PauseJob("etl")),
        ("resume etl", cmd.ResumeJob("etl", None)),
        ("resume etl latest", cmd.ResumeJob("etl", CatchUp.LATEST)),
        ("cancel etl", cmd.CancelOccurrence("etl", None)),
        ("cancel etl 20", cmd.CancelOccurrence("etl", 20)),
        ("dispatch", cmd.Dispatch()),
        ("complete etl 10 1 ok", cmd.Complete("etl", 10, 1, True)),
        ("complete etl 10 2 fail", cmd.Complete("etl", 10, 2, False)),
        ("fail report 2", cmd.ScriptFailure("report", 2)),
        ("modify etl priority=high duration=4", cmd.ModifyJob.of("etl", priority=2, duration=4)),
        ("cancel job=etl scheduled=+8", cmd.CancelOccurrence("etl", 20)),
        ("status etl 10", StatusQuery("etl", 10)),
        ("modify etl every=7 first=+3", cmd.ModifyJob.of("etl", schedule=Every(15, 7))),
        ("modify etl timeout=none", cmd.ModifyJob.of("etl", timeout=None)),
    ],
)
def test_each_command_parses_to_its_engine_command(engine, line, command) -> None:
    assert parse(line, engine, CLOCK).command == command


def test_schedule_builds_a_job_spec(engine) -> None:
    parsed = parse("schedule backup every=30 priority=low max_retries=2 timeout=9", engine, CLOCK)
    spec = parsed.command.spec
    assert (spec.job_id, spec.schedule, spec.priority) == ("backup", Every(12, 30), 0)
    assert (spec.max_attempts, spec.timeout) == (3, 9)
    assert parse("schedule now", engine, CLOCK).command.spec.schedule == Once(12)
    cron = parse("schedule nightly cron='30 2 * * *'", engine, CLOCK).command.spec.schedule
    assert isinstance(cron, CronSchedule) and cron.expression == "30 2 * * *"
    daily = parse("schedule lunch daily=12:00", engine, CLOCK).command.spec.schedule
    assert daily.first_at_or_after(0) == 12 * 60


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "type a command"),
        ("frobnicate", "unknown command 'frobnicate'"),
        ("cancel", "missing required key 'job': expected cancel JOB [SCHEDULED]"),
        ("cancel etl soon", "scheduled: expected an ISO 8601 time"),
        ("cancel etl 20 30", "too many words: expected cancel JOB [SCHEDULED]"),
        ("complete etl 10 1 maybe", "ok: expected 'true', 'false', 'ok', 'fail'"),
        ("modify etl", "expected at least one change besides job: expected modify JOB KEY=VALUE"),
        ("modify etl colour=red", "colour: unknown key 'colour'"),
        ("modify etl priority", "too many words: expected modify JOB KEY=VALUE"),
        ("modify etl priority=1 priority=2", "priority is given twice"),
        ("schedule x every=0", "every: expected a whole number from 1 to"),
        ("schedule x at=5 every=3", "a job has one schedule"),
        ("schedule x first=3", "first only goes with every"),
        ("schedule x cron='99 * * * *'", "minute"),
        ("schedule x failure_rate=2", "failure_rate: expected a number from 0.0 to 1.0"),
        ("schedule x weekly=mon", "weekly: expected DAYS@HH:MM such as mon,fri@09:00"),
        ("schedule x timezone=Mars/Olympus daily=10:00", "unknown time zone 'Mars/Olympus'"),
        ("schedule 'unterminated", "cannot split the line"),
        ("resume etl sometimes", "catch_up: expected 'skip', 'latest' or 'all'"),
        ("dispatch now", "too many words: expected dispatch"),
    ],
)
def test_bad_lines_say_what_was_expected(engine, line, message) -> None:
    with pytest.raises(CommandError, match=None) as caught:
        parse(line, engine, CLOCK)
    assert message in str(caught.value)


def test_calendar_schedules_need_a_clock(engine) -> None:
    with pytest.raises(CommandError, match="needs a clock"):
        parse("schedule x daily=02:00", engine, None)


def test_dashboard_commands_pass_their_words_through(engine) -> None:
    parsed = parse("goto +2h", engine, CLOCK)
    assert (parsed.name, parsed.command, parsed.args) == ("goto", None, ("+2h",))


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("sch", "schedule"),
        ("can", "cancel"),
        ("cancel f", "cancel flaky"),
        ("down w", "down w1"),
        ("modify etl pri", "modify etl priority="),
        ("modify etl priority=h", "modify etl priority=high"),
        ("resume etl l", "resume etl latest"),
        ("complete etl 10 1 f", "complete etl 10 1 fail"),
        ("cancel etl 2", "cancel etl 20"),
    ],
)
def test_completion_offers_names_ids_keys_and_values(engine, typed, suggested) -> None:
    assert complete(typed, engine) == suggested


def test_completion_offers_nothing_past_the_last_word(engine) -> None:
    assert complete("dispatch x", engine) is None
    assert complete("down w1 w", engine) is None
    assert complete("zzz", engine) is None


@pytest.mark.parametrize(
    ("text", "tick"),
    [
        ("42", 42),
        ("+10", 22),
        ("-2", 10),
        ("+2h", 132),
        ("-10m", 2),
        ("+30s", 13),
        ("01:00", 60),
        ("2026-03-09T00:30", 30),
        ("2026-03-09 00:30:30", 31),
    ],
)
def test_go_to_targets(text, tick) -> None:
    assert parse_target(text, 12, CLOCK) == tick


@pytest.mark.parametrize(
    ("text", "clock", "message"),
    [
        ("", CLOCK, "type a tick"),
        ("-20", CLOCK, "before tick 0"),
        ("25:00", CLOCK, "not a time of day"),
        ("tomorrow", CLOCK, "ISO 8601"),
        ("12:00", None, "no clock"),
        ("²", CLOCK, "ISO 8601"),  # str.isdigit is true of it, int refuses it
        ("²", None, "no clock"),
        ("+٣", None, "no clock"),  # a digit to \d and to int, not to the reader of ticks
        ("9" * 5000, CLOCK, "5000 characters is too long"),  # int refuses 4,301 digits
        ("+" + "9" * 5000 + "h", None, "5002 characters is too long"),
    ],
)
def test_bad_go_to_targets_say_why(text, clock, message) -> None:
    with pytest.raises(TargetError) as caught:
        parse_target(text, 12, clock)
    assert message in str(caught.value)


def test_times_are_read_through_the_scenario_clock_only() -> None:
    assert wall(CLOCK, 90) == "Mon 2026-03-09 01:30:00 UTC"
    assert compact(CLOCK, 90) == "Mon 03-09 01:30 UTC"
    assert short(CLOCK, 90) == "Mon 01:30"
    assert span(125, CLOCK) == "125 (2h05m)"
    assert wall(None, 90) == short(None, 90) == ""


def test_export_writes_a_chrome_trace_and_a_csv_of_the_attempts(tmp_path) -> None:
    navigator = Navigator(small_session().history)
    navigator.seek(30)
    engine = navigator.engine
    attempts = sum(len(o.attempts) for o in engine.query.records().values())
    trace_path = tmp_path / "run.trace.json"
    assert export(engine, trace_path, "small fleet", CLOCK) == attempts
    trace = json.loads(trace_path.read_text())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(slices) == attempts
    first = min(slices, key=lambda e: e["ts"])
    assert first["dur"] % 60_000_000 == 0
    csv_path = tmp_path / "run.csv"
    assert export(engine, csv_path, "small fleet", CLOCK) == attempts
    rows = list(csv.reader(csv_path.open()))
    assert rows[0][:4] == ["job", "scheduled", "attempt", "worker"]
    assert len(rows) == attempts + 1
    assert default_export_path(tmp_path / "demo.yaml", "x") == tmp_path / "demo.trace.json"


def test_every_command_has_usage_and_summary() -> None:
    for spec in COMMANDS.values():
        assert spec.usage.startswith(spec.name) and spec.summary
    assert COMMANDS.keys() == VERBS.keys() | APP_COMMANDS.keys()
