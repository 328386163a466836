"""``cronlapse run`` reads the log every few thousand events, not after every step
(:class:`cronlapse.cli.playing.Reading`), and prints exactly what it prints reading after every
step: the checker still observes at once each step that defines a job or logs a fact about one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.invariants import Checker
from cronlapse.cli.playing import Reading
from engine.model import events as ev
from engine.model.events import EventLog
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
@pytest.mark.parametrize("name", ["modified", "demo.yaml", "semantics/backfill-airflow.yaml"])
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
    log = EventLog()
    reading = Reading(log)
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
