"""``cronlapse run``'s lines: the one-format path prints what the step-by-step path printed.

Most kinds print from one format string (``_line_template``); the step-by-step plan stays for
the kinds whose lines depend on values. Both must agree for every kind the engine logs, with and
without a clock, on scenarios that log every kind of event the library's scenarios have."""

from __future__ import annotations

from pathlib import Path

import pytest

import cronlapse.exports.report as report
from cronlapse.exports.report import EventFormatter
from engine.scenario import ScenarioRunner, load_scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_a_line_from_one_format_is_the_line_from_its_steps(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = load_scenario(str(path))
    runner = ScenarioRunner(scenario, until=min(scenario.until or 500, 500))
    runner.run()
    stored = list(runner.engine.log.stored_since(0))
    clocks = (None, scenario.clock) if scenario.clock is not None else (None,)
    fast = [[EventFormatter(clock).stored_line(*event) for event in stored] for clock in clocks]
    monkeypatch.setattr(report, "_line_template", lambda kind: None)
    slow = [[EventFormatter(clock).stored_line(*event) for event in stored] for clock in clocks]
    assert fast == slow


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_the_lines_of_a_stretch_are_its_events_lines_each_ended(path: Path) -> None:
    scenario = load_scenario(str(path))
    runner = ScenarioRunner(scenario, until=min(scenario.until or 500, 500))
    runner.run()
    stored = list(runner.engine.log.stored_since(0))
    clocks = (None, scenario.clock) if scenario.clock is not None else (None,)
    for clock in clocks:
        one = EventFormatter(clock)
        expected = "".join(one.stored_line(*event) + "\n" for event in stored)
        stretches = EventFormatter(clock)
        coded = [(kind.code, fields) for kind, fields in stored]
        halves = coded[: len(coded) // 2], coded[len(coded) // 2 :], []
        assert "".join(stretches.coded_lines(half) for half in halves) == expected
