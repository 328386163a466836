"""``timeline_phase`` and ``seed_skip``: what an exported stretch of a service's journal needs
to replay as the service applied it (see cronlapse/service/export.py)."""

from __future__ import annotations

import random

from scenario_helpers import problems, scenario

from engine.model.events import AttemptStarted
from engine.play.history import History
from engine.scenario.runner import ScenarioRunner

CONTENDED = """
    scenario: x
    {phase}
    workers: [w1]
    jobs:
      - {{id: low, at: 5, priority: low}}
    timeline:
      - {{at: 5, schedule: {{id: high, priority: high}}}}
"""


def started(text: str) -> list[str]:
    runner = ScenarioRunner(scenario(text))
    runner.run()
    return [event.job_id for event in runner.engine.log if isinstance(event, AttemptStarted)]


def test_by_default_a_command_runs_before_its_ticks_dispatch() -> None:
    assert started(CONTENDED.format(phase="")) == ["high", "low"]


def test_after_dispatch_a_command_comes_after_its_ticks_dispatch_as_a_services_input() -> None:
    assert started(CONTENDED.format(phase="timeline_phase: after_dispatch")) == ["low", "high"]


def test_the_dashboards_history_replays_in_the_scenarios_phase() -> None:
    loaded = scenario(CONTENDED.format(phase="timeline_phase: after_dispatch"))
    history = History(loaded.new_engine, loaded.commands, loaded.until)
    history.seek(10)
    names = [e.job_id for e in history.engine.log if isinstance(e, AttemptStarted)]
    assert names == ["low", "high"]


def test_seed_skip_continues_the_generator_after_that_many_words() -> None:
    for skip in (0, 1, 7, 70_001):  # 70,001 crosses the skip's chunks
        engine = scenario(f"scenario: x\nseed: 3\nseed_skip: {skip}\n").new_engine()
        reference = random.Random(3)
        for _ in range(skip):
            reference.getrandbits(32)
        assert engine._rng.random() == reference.random()


def test_wrong_values_are_reported_at_their_keys() -> None:
    found = problems("scenario: x\ntimeline_phase: after_dispach\nseed_skip: -1\n")
    assert found == [
        "s.yaml:2:17: timeline_phase: expected 'after_events' or 'after_dispatch', got "
        "'after_dispach' (did you mean 'after_dispatch'?)",
        "s.yaml:3:12: seed_skip: expected a whole number from 0 to 10000000000, got the number -1",
    ]
