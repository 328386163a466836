"""Building a history at a tick from a scenario, and asking it why."""

from __future__ import annotations

from pathlib import Path

from engine.explain import explain_run, plain
from engine.history import History
from engine.scenario import Scenario, load_scenario
from engine.scenario.validate import parse_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def bundled(name: str) -> Scenario:
    return load_scenario(str(SCENARIOS / name))


def inline(text: str) -> Scenario:
    return parse_scenario(text, "test.yaml")


def history_at(scenario: Scenario, tick: int) -> History:
    history = History(scenario.new_engine, scenario.commands, scenario.until)
    history.seek(tick)
    return history


def why(scenario: Scenario, job_id: str, scheduled: int, at: int) -> str:
    return plain(explain_run(history_at(scenario, at), job_id, scheduled, scenario.clock))
