"""The checker and the run summary follow a run (``cronlapse run`` and ``check``): fed each step's
new events and the runs archived meanwhile, on an engine that archives its finished runs and a
log that forgets what was read, they report what a whole-log reading of an engine that keeps
everything reports; and what they keep follows live work, not the length of the run."""

from __future__ import annotations

import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from cronlapse.analyses.invariants import Checker, Violation, violations
from cronlapse.analyses.invariants.definitions import CreationCheck
from cronlapse.analyses.invariants.facts import FactsReader
from cronlapse.analyses.stats import RunStats, RunStatsReader, run_stats
from engine.core import Engine
from engine.model import events as ev
from engine.model.event_log import EventLog
from engine.model.policies import Policy
from engine.model.records import OccurrenceState
from engine.query.api import Query
from engine.scenario import ScenarioRunner, load_scenario, parse_scenario
from engine.schedules.calendar import CronSchedule
from tests.engine.test_command_fuzz import (
    command_of,
    fuzzed_programs,
    kept_and_archiving,
)

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


class Follower:
    """What ``cronlapse run`` does each step: observe, summarise, then release the log."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.checker = Checker(engine)
        self.summary = RunStatsReader()
        self.read = 0

    def step(self) -> None:
        log = self.engine.log
        self.checker.observe()
        self.summary.read(log.coded_since(self.read))
        self.read = len(log)
        log.release(self.read)


def _play(path: Path, *, archive: bool) -> ScenarioRunner:
    scenario = load_scenario(str(path))
    until = min(scenario.until, 1_440) if scenario.until is not None else None
    return ScenarioRunner(scenario, until, archive=archive)


@pytest.mark.integration
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda path: path.stem)
def test_following_a_bundled_scenario_reports_what_reading_its_whole_log_does(path: Path) -> None:
    kept, followed = _play(path, archive=False), _play(path, archive=True)
    kept.run()
    follower = Follower(followed.engine)
    for _ in followed.steps():
        follower.step()
    assert followed.processed == kept.processed
    assert followed.engine.log.base == len(kept.engine.log), "the log kept what was read"
    assert follower.checker.violations(followed.processed) == violations(
        kept.engine, kept.processed
    )
    assert _same(
        follower.summary.summary(followed.processed), run_stats(kept.engine.log, kept.processed)
    )


def _same(one: RunStats, other: RunStats) -> bool:
    """Equal summaries, jobs and workers in the same order."""
    return (
        one == other
        and list(one.jobs) == list(other.jobs)
        and list(one.workers) == list(other.workers)
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@fuzzed_programs
def test_following_a_fuzzed_program_reports_what_reading_its_whole_log_does(
    policy: Policy, seed: int, workers: int, jobs: list[dict], program: list[tuple]
) -> None:
    kept, followed = kept_and_archiving(policy, seed, workers)
    follower = Follower(followed)
    for step in [("schedule", fields) for fields in jobs] + program:
        command = command_of(step, kept)
        assert followed.apply(command) == kept.apply(command), command
        follower.step()
    assert follower.checker.violations() == violations(kept)
    assert _same(follower.summary.summary(kept.now), run_stats(kept.log, kept.now))


FLEET = """scenario: a small fleet
policy: {{order: fifo}}
clock: {{until: {until}}}
workers: [w1, w2, w3, w4, w5, w6]
jobs:
  - {{id: a, every: 2, duration: 1}}
  - {{id: b, every: 3, duration: 2}}
  - {{id: c, every: 1, duration: 1}}
  - {{id: d, every: 5, duration: 3}}
"""


def _fleet(until: int) -> ScenarioRunner:
    return ScenarioRunner(parse_scenario(FLEET.format(until=until), "fleet.yaml"), archive=True)


@pytest.mark.parametrize("planted", ["running", "finished"])
def test_a_double_dispatch_is_found_after_its_run_was_archived_and_its_events_released(
    planted: str,
) -> None:
    """A mutation: the log says a run started again, while it runs or long after it finished
    (archived, its events forgotten): the follower reports it as a whole-log reading does."""
    runner = _fleet(400)
    follower = Follower(runner.engine)
    for tick in runner.steps():
        follower.step()
        if tick == 300:
            log = runner.engine.log
            if planted == "running":
                running = runner.engine.query.workers()["w1"].running
                assert running is not None
                log.add(ev.AttemptStarted, tick, *running, 2, "w2")
            else:
                assert not runner.engine.query.live_records().get(("c", 10))
                log.add(ev.AttemptStarted, tick, "c", 10, 2, "w1")
    found = follower.checker.violations(runner.processed)
    expected = {
        "running": "started twice at once",
        "finished": "c@10 started after it ended",
    }[planted]
    assert any(expected in violation.text and violation.tick == 300 for violation in found), found
    assert all(isinstance(violation, Violation) for violation in found)


@pytest.mark.parametrize("until", [30])
def test_a_long_run_keeps_live_work_only(until: int) -> None:
    """Complexity: after 100 times the runs, the engine's live records, the events the log
    keeps and the checker's and summary's memory stay what they were, but for the compact
    columns (one integer per finished run for the checker, one per run started for the
    summary's waits)."""
    sizes = []
    for length in (until, 100 * until):
        runner = _fleet(length)
        follower = Follower(runner.engine)
        tracemalloc.start()
        for _ in runner.steps():
            follower.step()
        follower.checker.violations(runner.processed)
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        engine = runner.engine
        runs = engine.query.archived_count()
        sizes.append(
            (len(engine.query.live_records()), len(engine.log) - engine.log.base, runs, held)
        )
    (live, kept, runs, held), (live_long, kept_long, runs_long, held_long) = sizes
    assert runs_long > 90 * runs
    assert live_long == live and kept_long == kept == 0
    archive = 140  # bytes per archived run (engine/parts/run_archive.py)
    columns = 8 + 8
    assert (held_long - held) / (runs_long - runs) < archive + columns + 40


def _misnumber_a_running_attempt(runner: ScenarioRunner) -> str:
    """A mutation: job a's running attempt numbered 7 (it ends and is archived a tick later).
    Returns what the checker must say of it."""
    running = [
        run
        for run in runner.engine.query.live_records().values()
        if run.job_id == "a" and run.state is OccurrenceState.RUNNING
    ]
    run = running[0]
    run.attempts[0].number = 7
    return f"a@{run.scheduled}: attempts numbered [7], not 1..n"


def test_a_follower_checks_each_archived_run_as_handed_over_not_read_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading every archived run back from the archive's columns cost more than checking it
    (the demo's ``cronlapse run`` at 1.28x the code before the archive): a follower takes the
    runs the engine archives as their records, and still finds one archived with a defect."""

    def read_back(self: Query, start: int = 0) -> None:
        raise AssertionError(f"archived runs read back from {start}")

    monkeypatch.setattr(Query, "archived_records", read_back)
    runner = _fleet(60)
    follower = Follower(runner.engine)
    expected = None
    for tick in runner.steps():
        follower.step()
        if tick == 30:
            expected = _misnumber_a_running_attempt(runner)
    assert runner.engine.query.archived_count() > 50
    found = [violation.text for violation in follower.checker.violations(runner.processed)]
    assert found == [expected]


def test_a_checker_that_starts_late_reads_back_the_runs_archived_before() -> None:
    runner = _fleet(60)
    expected = None
    for tick in runner.steps():
        if tick == 30:
            expected = _misnumber_a_running_attempt(runner)
    checker = Checker(runner.engine)
    found = [violation.text for violation in checker.violations(runner.processed)]
    assert found == [expected]


def test_the_end_check_reuses_the_jobs_histories_worked_out_as_the_run_went(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fleet's thousands of jobs' schedule windows are worked out once, as their first runs
    are archived, not again by the end check."""
    import cronlapse.analyses.invariants.definitions as definitions

    scenario = load_scenario(str(Path(__file__).parents[2] / "scenarios" / "demo.yaml"))
    runner = ScenarioRunner(scenario, until=1440, archive=True)
    checker = Checker(runner.engine)
    for _ in runner.steps():
        checker.observe()
    worked_out = []
    windows = definitions._schedule_windows
    monkeypatch.setattr(
        definitions, "_schedule_windows", lambda found: worked_out.append(1) or windows(found)
    )
    assert checker.violations(runner.processed) == []
    assert len(runner.engine.query.jobs()) == 2000
    assert len(worked_out) < 100


def test_the_archived_runs_check_works_out_each_job_once_while_its_definitions_stand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each batch of archived runs looked its jobs' histories up again: on the demo's week,
    39 batches of the runs of 2,000 jobs made 40,000 lookups. Now once a job while its
    definitions stand."""
    import cronlapse.analyses.invariants.definitions as definitions

    looked_up = []
    job = definitions.CreationCheck.job
    monkeypatch.setattr(
        definitions.CreationCheck,
        "job",
        lambda check, job_id: looked_up.append(job_id) or job(check, job_id),
    )
    runner = _fleet(200)
    follower = Follower(runner.engine)
    for _ in runner.steps():
        follower.step()
    assert runner.engine.query.archived_count() > 300
    assert sorted(looked_up) == ["a", "b", "c", "d"]
    assert follower.checker.violations(runner.processed) == []


def test_runs_created_after_a_modification_are_checked_against_it() -> None:
    """A mutation: a run of job a created after its duration changed carries the old one. The
    values the archived runs' check keeps for a job are worked out again after a change."""
    text = FLEET.format(until=200) + "timeline:\n  - {at: 100, modify: {job: a, duration: 2}}\n"
    runner = ScenarioRunner(parse_scenario(text, "fleet.yaml"), archive=True)
    follower = Follower(runner.engine)
    planted = None
    for tick in runner.steps():
        follower.step()
        if tick == 150:
            records = runner.engine.query.live_records()
            planted = next(run for key, run in records.items() if key[0] == "a")
            planted.duration = 1
    assert planted is not None
    found = [violation.text for violation in follower.checker.violations(runner.processed)]
    assert len(found) == 1
    assert found[0].startswith(f"a@{planted.scheduled} was created with priority=")
    assert "duration=1" in found[0]


CRON_FLEET = """scenario: jobs on one cron schedule
clock: {epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60, until: 200}
workers: [w1, w2, w3, w4]
jobs:
  - {id: r1, cron: "*/5 * * * *", duration: 1}
  - {id: r2, cron: "*/5 * * * *", duration: 2}
  - {id: r3, cron: "*/5 * * * *", duration: 1}
  - {id: r4, cron: "*/5 * * * *", duration: 3}
"""


def test_the_archived_runs_check_asks_a_cron_schedule_once_a_tick_for_all_its_jobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asked run by run, a cron schedule's answer cost a hash of the schedule (its expression
    and clock): the jobs on one expression ask it once a tick and batch."""
    asked = []
    contains = CronSchedule.contains
    monkeypatch.setattr(
        CronSchedule,
        "contains",
        lambda schedule, tick: asked.append(tick) or contains(schedule, tick),
    )
    runner = ScenarioRunner(parse_scenario(CRON_FLEET, "cron.yaml"), archive=True)
    checker = Checker(runner.engine)
    for tick in runner.steps():
        if tick % 50 == 0:  # as cronlapse run: a few batches of many runs
            checker.observe()
    archived = runner.engine.query.archived_count()
    assert archived > 100
    assert len(asked) <= archived // 4 + 4, (len(asked), archived)
    assert checker.violations(runner.processed) == []


def test_an_archived_run_off_its_cron_schedule_is_found_whatever_was_asked_before() -> None:
    """A mutation: runs of jobs on one cron schedule, then one off it, then one on it, in one
    batch and in two: the one off it is reported, each time."""
    runner = ScenarioRunner(parse_scenario(CRON_FLEET, "cron.yaml"), archive=False)
    runner.run()
    engine = runner.engine
    specs = {
        index: engine.query.job(event.job_id).spec
        for index, event in engine.log.select((ev.JobScheduled,))
    }
    reader = FactsReader()
    reader.read(engine, 0, specs)
    runs = engine.query.live_records()
    on = [runs[("r1", 5)], runs[("r2", 5)], runs[("r2", 10)]]
    off = replace(runs[("r1", 10)], key=("r1", 7))
    check = CreationCheck(engine, reader.facts())
    for batches in ([[*on, off, runs[("r3", 5)]]], [on, [off, runs[("r3", 7 + 3)]]]):
        found = [str(violation) for batch in batches for violation in check.archived(batch)]
        assert found == ["tick 7: r1@7 is not in its job's schedule (the one defined at tick 0)"]


def test_an_observation_selects_no_facts_from_a_stretch_that_logged_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Selecting the facts and definitions costs a call an event: the demo's week paid it for
    160,000 events, of which only its first stretch's 2,000 JobScheduled were facts."""
    selected = []
    select = EventLog.select
    monkeypatch.setattr(
        EventLog,
        "select",
        lambda log, kinds, start=0: selected.append(start) or select(log, kinds, start),
    )
    runner = _fleet(100)
    follower = Follower(runner.engine)
    for _ in runner.steps():
        follower.step()
    assert selected and set(selected) == {0}, selected
    assert follower.checker.violations(runner.processed) == []
