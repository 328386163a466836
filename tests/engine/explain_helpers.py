"""Building a history at a tick from a scenario, and asking it why."""

from __future__ import annotations

from pathlib import Path

from cronlapse.analyses.explain import explain_run, plain
from engine.play.history import History
from engine.scenario import Scenario, load_scenario
from engine.scenario.validate import parse_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"

PAUSED_WHILE_QUEUED = """
scenario: paused while queued
policy: {order: fifo}
clock: {until: 40}
workers: [w1]
jobs:
  - {id: hog, at: 0, duration: 10}
  - {id: q, at: 1, duration: 2}
timeline:
  - {at: 3, pause: {job: q}}
  - {at: 20, resume: {job: q}}
"""
"""A run queued before its job is paused, which still starts (a pause holds back only runs
still to fall due)."""


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
