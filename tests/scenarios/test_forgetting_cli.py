"""``cronlapse run`` and ``check`` forget the engine's finished runs as they go
(:class:`cronlapse.cli.playing.Forgetting`) and print exactly what they print without it.

Forgetting is tried here after every step (``Forgetting.every = 1``) on a small fleet with
every rule that reads finished runs back: a run dependency, a deadline, a pause with catch-up, a
backfill under way, a cancel and status checks of past runs; the checker walks what the engine
is about to forget, so it finds no run missing behind a cursor that the engine forgot.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.invariants import Checker
from cronlapse.cli.playing import Forgetting
from engine.scenario import ScenarioRunner, load_scenario
from tests.scenarios.test_scenario_cli import call

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"

FLEET = """\
scenario: a small fleet with rules that read finished runs
clock: {until: 900}
policy: {order: priority}
workers: [w1, w2, w3]
jobs:
  - {id: extract, every: 30, duration: 4, fail: [1], max_retries: 1}
  - {id: transform, every: 30, duration: 3, depends_on: [extract]}
  - {id: report, every: 45, duration: 2, deadline: 10}
  - {id: sweep, every: 7, duration: 1}
  - {id: audit, every: 60, duration: 5, catch_up: all}
timeline:
  - {at: 100, pause: {job: audit}}
  - {at: 400, resume: {job: audit}}
  - {at: 500, backfill: {job: sweep, from: 300, to: 490, order: sequential}, expect: ok}
  - {at: 600, cancel: {job: report, scheduled: 630}}
  - {at: 700, status: {job: sweep, scheduled: 350}, expect: SUCCEEDED}
expect:
  - {at: 800, job: report, scheduled: 630, status: CANCELLED}
  - {at: 850, job: transform, scheduled: 810, status: SUCCEEDED}
"""


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    path = tmp_path / "fleet.yaml"
    path.write_text(FLEET, encoding="utf-8")
    return path


@pytest.mark.parametrize("options", [(), ("--jsonl",)])
@pytest.mark.parametrize("command", ["run", "check"])
def test_forgetting_as_it_goes_prints_what_keeping_every_run_prints(
    fleet: Path, command: str, options: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    if command == "check" and options:
        pytest.skip("check has no --jsonl")
    monkeypatch.setattr(Forgetting, "step", lambda self: None)
    kept = call(command, str(fleet), *options)
    monkeypatch.undo()
    monkeypatch.setattr(Forgetting, "every", 1)
    assert call(command, str(fleet), *options) == kept
    assert kept[0] == 0, kept[2]


def test_the_archive_holds_what_it_keeps_not_the_history(fleet: Path) -> None:
    """Forgetting as it goes, the engine ends with a few runs a job in its archive, though it
    archived hundreds; the checker still finds nothing wrong."""
    runner = ScenarioRunner(load_scenario(str(fleet)), archive=True)
    checker = Checker(runner.engine)
    forgetting = Forgetting(runner, checker)
    forgetting.every = 1
    for _ in runner.steps():
        checker.observe()
        forgetting.step()
    query = runner.engine.query
    assert query.archived_count() > 200
    assert len(runner.engine._store.archive) <= 3 * len(query.jobs())
    assert checker.violations(runner.processed) == []
    assert runner.failures == []


@pytest.mark.parametrize("name", ["demo.yaml", "semantics/backfill-airflow.yaml"])
def test_bundled_scenarios_print_the_same_forgetting_at_every_step(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(LIBRARY / name)
    monkeypatch.setattr(Forgetting, "step", lambda self: None)
    kept = call("run", path, "--until", "600")
    monkeypatch.undo()
    monkeypatch.setattr(Forgetting, "every", 1)
    assert call("run", path, "--until", "600") == kept
