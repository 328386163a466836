"""The run summary's counts (``cronlapse run --stats``): a run an overlap rule drops never ran,
so it is skipped, not cancelled; a run Replace cancels (it had been started) stays cancelled."""

from __future__ import annotations

import pytest

from cronlapse.analyses.latency.attribution import latency_report
from engine.scenario import ScenarioRunner, parse_scenario


def report(overlap: str, until: int = 30):
    text = (
        f"scenario: overlap\nworkers: [w1, w2]\nclock: {{until: {until}}}\n"
        f"jobs:\n  - {{id: slow, every: 1, first: 0, duration: 5, overlap: {overlap}}}\n"
    )
    runner = ScenarioRunner(parse_scenario(text, "overlap.yaml"))
    runner.run()
    return latency_report(runner.engine)


@pytest.mark.parametrize("overlap", ["Forbid", "Skip", "BufferOne", "BufferLatest"])
def test_runs_an_overlap_rule_drops_are_skipped(overlap: str) -> None:
    counted = report(overlap)
    assert counted.cancelled == 0
    assert counted.skipped == 31 - counted.overall.runs - counted.waiting > 0


def test_runs_replace_takes_the_place_of_are_cancelled() -> None:
    counted = report("Replace")
    assert counted.skipped == 0 and counted.cancelled > 0
