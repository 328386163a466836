"""One vocabulary: the scenario timeline and the dashboard's command line accept the same forms,
build the same engine commands and refuse the same values with the same message; the limits are
the engine's own."""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core import Engine
from engine.facades.script import execute_script
from engine.model.commands import ModifyJob, Outcome, ScheduleJob
from engine.model.limits import LIMITS, PRIORITY, spec_problem
from engine.model.records import JobSpec
from engine.scenario import ScenarioInvalid, parse_scenario
from engine.scenario.vocabulary import OPTIONS, VERBS
from engine.schedules.clock import Clock
from engine.schedules.kinds import Once
from tui.model.commandline import CommandError, parse
from tui.model.completion import complete

CLOCK = Clock.parse("2026-03-09T00:00:00", "UTC", 60)
TICK = 12
DOCS = Path(__file__).parents[2] / "docs"


def yaml_value(text: str) -> str:
    """A command-line value written in a file: as is when YAML reads it as one plain value in a
    flow mapping, quoted (a string, as the command line reads it too) when not."""
    if text[:1] in "[{" or re.fullmatch(r"[\w.:+@/-]+", text):
        return text
    return "'" + text.replace("'", "''") + "'"


def as_yaml(line: str) -> str:
    """The timeline command a command line stands for: its words as the verb's keys."""
    name, *words = shlex.split(line)
    params = iter(VERBS[name].params)
    keys = []
    for word in words:
        key, equals, value = word.partition("=")
        if not equals:
            key, value = next(params).key, word
        keys.append(f"{key}: {yaml_value(value)}")
    return f"{name}: {{{', '.join(keys)}}}" if keys else f"{name}: null"


def load(command: str) -> object:
    text = f"""
    scenario: s
    clock: {{epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60}}
    workers: [w1]
    jobs: [{{id: etl, every: 10}}, {{id: once, at: 50}}]
    timeline:
      - {{at: {TICK}, {command}}}
    """
    loaded = parse_scenario(textwrap.dedent(text), "s.yaml")
    return next(entry.action for entry in loaded.timeline if entry.tick == TICK)


def yaml_problem(command: str) -> str:
    """The first problem of a file holding ``command``, without its place, as the dashboard
    would say it: ``key: message``."""
    with pytest.raises(ScenarioInvalid) as caught:
        load(command)
    error = caught.value.problems[0]
    assert re.fullmatch(r"s\.yaml:\d+:\d+", str(error).split(": ")[0])
    key = error.path.removeprefix("timeline[0].").partition(".")[2]
    return f"{key}: {error.message}" if key else error.message


def engine_at(tick: int = TICK) -> Engine:
    engine = Engine()
    engine.advance(tick)
    return engine


def from_line(line: str) -> object:
    return parse(line, engine_at(), CLOCK).command


def line_problem(line: str) -> str:
    with pytest.raises(CommandError) as caught:
        parse(line, engine_at(), CLOCK)
    return str(caught.value)


EXAMPLES = [example for verb in VERBS.values() for example in verb.examples]


# ------------------------------------------------------------------ regressions


def test_a_priority_the_dashboard_accepts_is_accepted_in_a_file_too() -> None:
    line = from_line("schedule x priority=5000")
    assert load("schedule: {id: x, priority: 5000}") == line


def test_weekly_and_monthly_work_on_the_command_line() -> None:
    weekly = from_line("schedule x weekly=mon,fri@09:00")
    assert weekly == load("schedule: {id: x, weekly: {days: [mon, fri], at: '09:00'}}")
    monthly = from_line("schedule x monthly=last@06:00")
    assert monthly == load("schedule: {id: x, monthly: {day: last, at: '06:00'}}")


def test_a_priority_beyond_the_limit_is_refused_by_both_with_one_message() -> None:
    message = line_problem("schedule x priority=3000000000")
    assert message == yaml_problem("schedule: {id: x, priority: 3000000000}")
    assert "-2147483648 to 2147483647" in message


# ------------------------------------------------------------ one table, two ways


@pytest.mark.parametrize("line", EXAMPLES)
def test_every_form_in_the_table_builds_the_same_command_in_a_file(line: str) -> None:
    built = from_line(line)
    assert built is not None
    assert load(as_yaml(line)) == built


@pytest.mark.parametrize("line", EXAMPLES)
def test_every_form_builds_the_engine_command_its_verb_names(line: str) -> None:
    verb = VERBS[line.split()[0]]
    built = from_line(line)
    assert isinstance(built, verb.builds)


@pytest.mark.parametrize(
    "line",
    [
        "schedule x priority=3000000000",
        "schedule x priority=urgent",
        "schedule x duration=0",
        "schedule x timeout=0",
        "schedule x max_retries=1001",
        "schedule x max_attempts=0",
        "schedule x failure_rate=2",
        "schedule x fail=0",
        "schedule x every=0",
        "schedule x at=banana",
        "schedule x at=5",
        "schedule x daily=25:00",
        "schedule x weekly=mon",
        "schedule x weekly=funday@09:00",
        "schedule x monthly=32@09:00",
        "schedule x cron='99 * * * *'",
        "schedule x timezone=Mars/Olympus daily=10:00",
        "schedule x timezone=UTC",
        "schedule x catch_up=sometimes",
        "schedule x first=3",
        "schedule x colour=red",
        "modify etl priority=-3000000000",
        "modify etl at=5 every=3",
        "complete etl 10 0 ok",
        "complete etl 10 1 maybe",
        "fail etl 1002",
        "resume etl sometimes",
        "register a,b",
    ],
)
def test_a_bad_value_is_refused_by_both_with_the_same_message(line: str) -> None:
    assert line_problem(line) == yaml_problem(as_yaml(line))


def test_every_command_has_help_and_completes() -> None:
    engine = engine_at()
    engine.schedule(JobSpec("etl", Once(20)))
    for verb in VERBS.values():
        assert verb.summary and verb.usage.startswith(verb.name) and verb.examples
        assert complete(verb.name[:-1], engine) == verb.name
        before = f"{verb.name} etl " if verb.params else f"{verb.name} "
        for key in verb.options:
            option = OPTIONS[key]
            assert option.help and option.form
            assert complete(before + key, engine) == f"{before}{key}="
            for value in option.values:
                assert complete(f"{before}{key}={value[:-1]}", engine) == f"{before}{key}={value}"


def test_the_docs_list_every_command() -> None:
    dashboard = (DOCS / "dashboard.md").read_text(encoding="utf-8")
    scenarios = (DOCS / "scenarios.md").read_text(encoding="utf-8")
    for verb in VERBS.values():
        assert f"`{verb.usage.replace('|', chr(92) + '|')}`" in dashboard, verb.usage
        assert f"| `{verb.name}` |" in scenarios, verb.name
    for key in OPTIONS:
        assert f"`{key}=" in dashboard, key


# ---------------------------------------------------------------------- limits


def test_the_engine_refuses_a_spec_beyond_its_limits_with_the_readers_message() -> None:
    engine = Engine()
    spec = JobSpec("x", Once(0), priority=2**31)
    result = engine.schedule(spec)
    assert result.outcome is Outcome.INVALID and "x" not in engine.query.jobs()
    problem = spec_problem(spec)
    assert problem is not None
    assert result.message == problem.message == f"priority: {PRIORITY.problem(2**31)}"
    assert engine.apply(ScheduleJob(JobSpec("y", Once(0)))).accepted
    refused = engine.apply(ModifyJob.of("y", duration=0))
    assert refused.outcome is Outcome.INVALID and refused.message.startswith("duration: expected")
    assert engine.query.job("y").spec.duration == 1


@given(st.integers(-(2**40), 2**40))
def test_a_priority_is_accepted_by_the_engine_exactly_when_the_readers_accept_it(
    priority: int,
) -> None:
    engine_accepts = Engine().schedule(JobSpec("x", Once(0), priority=priority)).accepted
    try:
        parse(f"schedule x priority={priority}", engine_at(0), None)
    except CommandError:
        line_accepts = False
    else:
        line_accepts = True
    assert engine_accepts == line_accepts == (PRIORITY.problem(priority) is None)


def test_every_limit_reads_as_the_expected_range() -> None:
    for name, limit in LIMITS.items():
        assert limit.problem(limit.low) is None and limit.problem(limit.high) is None, name
        assert limit.problem(True) is not None, name


def test_the_protocol_reports_a_submit_beyond_the_engine_limits() -> None:
    result = execute_script(["INIT 1 1", "SUBMIT big 0 1 5000 0", "STATUS big"])
    assert result.output == ["big UNKNOWN 0"]
    assert result.errors == [
        "line 2: max_attempts: expected a whole number from 1 to 1001, got the number 5000"
    ]
