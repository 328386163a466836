"""``cronlapse run`` reads the log every few thousand events, not after every step
(:class:`cronlapse.cli.playing.Reading`), and prints exactly what it prints reading after every
step: the checker still observes at once each step that defines a job or logs a fact about one.
While no job has a rule that logs such facts on its own, the engine plays the ticks between two
reads in one stretch (:meth:`ScenarioRunner.stretches`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.invariants import Checker
from cronlapse.cli.playing import Reading
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import Advance, BackfillJob, ScheduleJob
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.records import BackfillOrder, JobSpec
from engine.scenario import ScenarioRunner, parse_scenario
from engine.schedules.kinds import Every
from tests.scenarios.test_scenario_cli import call

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"

MODIFIED = """\
scenario: a job modified at two steps in a row, then paused and resumed
clock: {until: 300}
policy: {order: fifo}
workers: [w1, w2]
jobs:
  - {id: sweep, every: 5, duration: 2}
  - {id: report, every: 7, duration: 3, fail: [2], max_retries: 1}
timeline:
  - {at: 40, modify: {job: sweep, priority: high, duration: 1}}
  - {at: 41, modify: {job: sweep, duration: 3}}
  - {at: 42, modify: {job: sweep, every: 4}}
  - {at: 100, pause: {job: report}}
  - {at: 140, resume: {job: report}}
  - {at: 200, cancel: {job: sweep, scheduled: 204}}
"""


@pytest.mark.parametrize("options", [(), ("--jsonl",)])
@pytest.mark.parametrize(
    "name",
    [
        "modified",
        "demo.yaml",
        "semantics/backfill-airflow.yaml",
        "semantics/overlap-kubernetes.yaml",
        "semantics/trigger-rules.yaml",
        "semantics/missed-runs-after-a-pause.yaml",
    ],
)
def test_reading_every_few_thousand_events_prints_what_reading_every_step_prints(
    name: str, options: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "modified.yaml"
    path.write_text(MODIFIED, encoding="utf-8")
    file = str(path) if name == "modified" else str(LIBRARY / name)
    monkeypatch.setattr(Reading, "events", 1)
    every_step = call("run", file, "--until", "600", *options)
    monkeypatch.undo()
    monkeypatch.setattr(Reading, "events", 200)
    assert call("run", file, "--until", "600", *options) == every_step
    assert every_step[0] == 0, every_step[2]


def test_the_checker_observes_a_few_times_not_once_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's first 600 ticks are 600 steps (of 6,000 events)."""
    monkeypatch.setattr(Reading, "events", 500)
    observed = []
    observe = Checker.observe
    monkeypatch.setattr(Checker, "observe", lambda self: observed.append(observe(self)))
    status, out, _ = call("run", str(LIBRARY / "demo.yaml"), "--until", "600")
    assert status == 0
    events = out.count("\nt=") + 1
    assert events > 6000
    assert len(observed) <= events // 500 + 3


def test_a_step_that_defines_a_job_is_read_at_once() -> None:
    runner = ScenarioRunner(parse_scenario(MODIFIED))
    log = runner.engine.log
    reading = Reading(runner, Checker(runner.engine))
    log.add(ev.AttemptStarted, 1, "sweep", 1, 1, "w1")
    assert not reading.due()
    log.add(ev.AttemptSucceeded, 2, "sweep", 1, 1, "w1")
    assert not reading.due()
    log.add(ev.JobModified, 3, "sweep", ("duration",))
    assert reading.due()
    reading.done()
    log.add(ev.AttemptStarted, 4, "sweep", 4, 1, "w1")
    assert not reading.due()
    for tick in range(Reading.events):
        log.add(ev.AttemptStarted, 5 + tick, "sweep", 5 + tick, 1, "w1")
    assert reading.due()


def _run_to_calls(monkeypatch: pytest.MonkeyPatch, file: str) -> int:
    """How many times ``cronlapse run FILE --until 600`` moves its runner."""
    calls = []
    run_to = ScenarioRunner.run_to
    monkeypatch.setattr(
        ScenarioRunner, "run_to", lambda self, tick: calls.append(run_to(self, tick))
    )
    status, _, err = call("run", file, "--until", "600")
    assert status == 0, err
    return len(calls)


def test_without_rules_acting_alone_the_play_goes_a_stretch_between_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The demo's first 600 ticks (6,000 events), read every 500 events: a few dozen
    stretches, not 600 steps."""
    monkeypatch.setattr(Reading, "events", 500)
    assert _run_to_calls(monkeypatch, str(LIBRARY / "demo.yaml")) <= 60


def test_with_a_rule_acting_alone_the_play_goes_a_step_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An overlap rule skips runs on its own: each step is read at once if it logged one."""
    file = str(LIBRARY / "semantics/overlap-kubernetes.yaml")
    runner = ScenarioRunner(parse_scenario(Path(file).read_text(encoding="utf-8")), 600)
    steps = len(list(runner.steps()))
    monkeypatch.setattr(Reading, "events", 500)
    assert _run_to_calls(monkeypatch, file) == steps


def _checker_of(*specs: JobSpec) -> tuple[Engine, Checker]:
    engine = Engine()
    for spec in specs:
        assert engine.apply(ScheduleJob(spec)).accepted
    return engine, Checker(engine)


def test_facts_wait_for_commands_unless_a_rule_of_a_job_acts_alone() -> None:
    plain = JobSpec("plain", Every(0, 10))
    assert _checker_of(plain)[1].facts_wait_for_commands()
    acting = [
        JobSpec("rule", Every(0, 10), overlap=OverlapRule(Overlap.FORBID)),
        JobSpec("after", Every(0, 10), depends_on=("plain",)),
        JobSpec("late", Every(0, 10), start_deadline=3),
    ]
    for spec in acting:
        assert not _checker_of(plain, spec)[1].facts_wait_for_commands(), spec
    engine = Engine()
    engine.apply(Advance(150))
    assert engine.apply(ScheduleJob(JobSpec("backfilled", Every(0, 10)))).accepted
    checker = Checker(engine)
    assert checker.facts_wait_for_commands()
    backfill = BackfillJob("backfilled", 0, 90, BackfillOrder.SEQUENTIAL)
    assert engine.apply(backfill).accepted
    assert not checker.facts_wait_for_commands()  # a sequential backfill creates run by run


FLEET = """\
scenario: twenty jobs every few ticks on four workers
clock: {until: 2000}
policy: {order: fifo}
workers: [w1, w2, w3, w4]
generate:
  - count: 20
    id: "job-{n:02}"
    choose:
      every: [5, 10]
    spread: {first: [0, 4], duration: [1, 3]}
"""


def test_check_observes_a_few_times_not_once_a_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check`` reads as ``run`` does: 2,000 steps of some 10,000 events, read every 500."""
    path = tmp_path / "fleet.yaml"
    path.write_text(FLEET, encoding="utf-8")
    monkeypatch.setattr(Reading, "events", 500)
    observed = []
    observe = Checker.observe
    monkeypatch.setattr(Checker, "observe", lambda self: observed.append(observe(self)))
    status, out, err = call("check", str(path))
    assert (status, out) == (0, "1 file, 0 expectations, 0 mismatches\n"), err
    assert 10 <= len(observed) <= 60
