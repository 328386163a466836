"""Playing a scenario: the tick order, pure replay, laziness over huge horizons, answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_helpers import problems, scenario

from engine.model import events as ev
from engine.model.commands import ScheduleJob
from engine.play.ticks import Phase, TickDriver
from engine.scenario import Rejection, ScenarioRunner, StatusQuery, load_scenario


def failures(text: str) -> list[str]:
    runner = ScenarioRunner(scenario(text))
    return [str(failure) for failure in runner.run()]


def test_commands_run_after_the_ticks_own_events_and_before_its_dispatch() -> None:
    # At tick 5 the attempt of `a` ends (the engine's own event), then `urgent` is scheduled (a
    # command), then dispatch picks it over `b`, which has waited since tick 0.
    assert (
        failures(
            """
        scenario: order within a tick
        policy: {order: priority}
        workers: [w]
        jobs:
          - {id: a, duration: 5, priority: high}
          - {id: b, priority: low}
        timeline:
          - {at: 5, schedule: {id: urgent, priority: high}, expect: created}
        expect:
          - {at: 5, job: urgent, status: RUNNING}
          - {at: 5, job: b, status: QUEUED}
          - {at: 5, job: a, status: SUCCEEDED}
        """
        )
        == []
    )


def test_a_command_sees_occurrences_falling_due_in_its_tick_before_dispatch() -> None:
    assert (
        failures(
            """
        scenario: cancel what falls due now
        workers: [w]
        jobs:
          - {id: x, at: 10}
        timeline:
          - {at: 10, cancel: {job: x, scheduled: 10}, expect: ok}
        expect:
          - {at: 10, job: x, status: CANCELLED}
          - {at: 10, events: {AttemptStarted: 0}}
        """
        )
        == []
    )


def test_section_jobs_come_before_tick_0_commands_and_outages_before_the_timeline() -> None:
    # `modify` at tick 0 finds the job of `jobs:`; `up` at tick 0 finds the worker already down.
    assert (
        failures(
            """
        scenario: set-up order
        workers: [{id: w, down: [[0, 5]]}]
        jobs:
          - {id: a, priority: low}
        timeline:
          - {at: 0, modify: {job: a, priority: high}, expect: ok}
          - {at: 0, up: {worker: w}, expect: ok}
        expect:
          - {at: 0, job: a, status: RUNNING}
        """
        )
        == []
    )


def test_a_worker_outage_holds_the_work_until_it_is_back() -> None:
    assert (
        failures(
            """
        scenario: outage
        workers: [{id: w, down: [[0, 5]]}]
        jobs: [{id: a}]
        expect:
          - {at: 4, job: a, status: QUEUED}
          - {at: 4, worker: w, state: DOWN}
          - {at: 5, job: a, status: RUNNING}
        """
        )
        == []
    )


def test_a_wrong_answer_and_a_wrong_state_are_reported_with_their_lines() -> None:
    assert failures(
        """
        scenario: mismatches
        policy: {dispatch: manual, completion: reported}
        workers: [w]
        jobs:
          - {id: a, at: 3}
        timeline:
          - {at: 3, dispatch: {}, expect: ["a,3,1,x"]}
          - {at: 4, complete: {job: a, scheduled: 3, attempt: 2, ok: true}, expect: true}
        expect:
          - {at: 4, job: a, status: SUCCEEDED, attempts: 2}
        """
    ) == [
        's.yaml:8: expected ["a,3,1,x"], got ["a,3,1,w"]',
        "s.yaml:9: expected true, got false (conflict (a@3 runs attempt 1, not 2))",
        "s.yaml:11: expected a@3 SUCCEEDED, got RUNNING",
        "s.yaml:11: expected a@3 with 2 attempts, got 1",
    ]


def test_refused_commands_without_a_stated_answer_are_collected() -> None:
    runner = ScenarioRunner(
        scenario(
            """
            scenario: refusals
            workers: [w]
            jobs: [{id: a, duration: 10}]
            timeline:
              - {at: 2, delete: {job: a}}
            """
        )
    )
    runner.run()
    [rejection] = runner.rejections
    assert isinstance(rejection, Rejection)
    assert (rejection.entry.tick, rejection.result.outcome.name) == (2, "CONFLICT")


def test_building_an_engine_is_pure_and_the_timeline_replays_the_run() -> None:
    loaded = scenario(
        """
        scenario: replay
        seed: 3
        policy: {backoff: {kind: exponential, base: 2, jitter: full}}
        workers: [w1, w2]
        jobs:
          - {id: flaky, every: 7, failure_rate: 0.5, max_retries: 3}
        timeline:
          - {at: 20, status: {job: flaky, scheduled: 14}, expect: SUCCEEDED}
        clock: {until: 60}
        """
    )
    first, second = loaded.new_engine(), loaded.new_engine()
    assert first is not second and len(first.log) == 0
    played = ScenarioRunner(loaded)
    played.run()
    assert [timed.tick for timed in loaded.commands] == [0, 0, 0]
    assert {timed.phase for timed in loaded.commands} == {Phase.AFTER_EVENTS}
    assert not any(isinstance(timed.command, StatusQuery) for timed in loaded.commands)
    assert isinstance(loaded.commands[-1].command, ScheduleJob)
    again = ScenarioRunner(loaded)
    again.run()
    assert list(again.engine.log) == list(played.engine.log)


def test_run_to_leaves_the_engine_settled_at_the_tick() -> None:
    runner = ScenarioRunner(
        scenario(
            """
            scenario: stepping
            workers: [w]
            jobs: [{id: a, every: 10, duration: 3}]
            """
        )
    )
    runner.run_to(25)
    assert (runner.processed, runner.engine.now) == (25, 25)
    started = [e.tick for e in runner.engine.log if isinstance(e, ev.AttemptStarted)]
    assert started == [0, 10, 20]


def test_a_10_to_the_12_horizon_runs_event_by_event_not_tick_by_tick() -> None:
    runner = ScenarioRunner(
        scenario(
            """
            scenario: huge horizon
            clock: {until: 1000000000000}
            workers: [w]
            jobs:
              - {id: rare, every: 100000000000, first: 5}
              - {id: last, at: 1000000000000}
            expect:
              - {at: 1000000000000, job: last, status: RUNNING}
            """
        )
    )
    steps = list(runner.steps())
    assert runner.failures == []
    assert runner.processed == 10**12
    # 10 runs of `rare` (start and end) and the start of `last`: a few dozen steps, not 10**12.
    assert len(steps) == 1 + 10 * 2 + 1
    assert len(runner.engine.log) == 1 + 2 + 10 * 2 + 1


def test_until_cuts_a_job_that_fires_every_tick_to_its_first_ticks() -> None:
    loaded = scenario(
        """
        scenario: every tick until 10**12
        clock: {until: 1000000000000}
        workers: [w]
        jobs: [{id: pulse, every: 1}]
        """
    )
    runner = ScenarioRunner(loaded, until=50)
    runner.run()
    started = sum(isinstance(e, ev.AttemptStarted) for e in runner.engine.log)
    succeeded = sum(isinstance(e, ev.AttemptSucceeded) for e in runner.engine.log)
    assert (started, succeeded, runner.processed) == (51, 50, 50)


def test_without_until_a_finite_scenario_runs_until_the_engine_is_idle() -> None:
    runner = ScenarioRunner(
        scenario(
            """
            scenario: finite
            workers: [w]
            jobs: [{id: a, duration: 7}, {id: b, duration: 5, depends_on: [a]}]
            """
        )
    )
    runner.run()
    assert runner.processed == 12
    assert not runner.scenario.endless


def test_a_recurring_scenario_without_until_stops_at_its_last_expectation() -> None:
    loaded = scenario(
        """
        scenario: endless
        workers: [w]
        jobs: [{id: a, every: 10}]
        expect:
          - {at: 30, job: a, scheduled: 30, status: RUNNING}
        """
    )
    runner = ScenarioRunner(loaded)
    assert loaded.endless and runner.stop == 30
    assert runner.run() == [] and runner.processed == 30


ZONED = """\
scenario: a zoned job modified
clock: {epoch: "2026-03-02T00:00:00", timezone: UTC, tick: 60, until: 4320}
workers: [w1]
jobs:
  - {id: nightly, daily: "02:00", timezone: Europe/Paris}
timeline:
  - {at: 60, modify: {job: nightly, daily: "03:00"}}
  - {at: 120, modify: {job: nightly, daily: "04:00", timezone: Asia/Tokyo}}
  - {at: 180, modify: {job: nightly, daily: "05:00"}}
"""


def test_a_modified_schedule_keeps_the_jobs_zone_unless_it_names_another() -> None:
    """It took the clock's: 03:00 ran at 03:00 UTC, not Paris."""
    runner = ScenarioRunner(scenario(ZONED))
    runner.run_to(60)
    assert (
        runner.engine.query.job("nightly").spec.schedule.describe()
        == "cron 0 3 * * * (Europe/Paris)"
    )
    runner.run_to(120)
    assert (
        runner.engine.query.job("nightly").spec.schedule.describe() == "cron 0 4 * * * (Asia/Tokyo)"
    )
    runner.run_to(180)
    assert (
        runner.engine.query.job("nightly").spec.schedule.describe() == "cron 0 5 * * * (Asia/Tokyo)"
    )


UNKNOWN_POOL = """\
scenario: a pool nobody defined
clock: {until: 10}
workers: [w1]
timeline:
  - {at: 1, schedule: {id: p, pool: x}%s}
"""


def test_a_schedule_into_an_unknown_pool_that_expects_its_refusal_is_a_test_of_it() -> None:
    """As a conflicting id is: ``export --scenario`` writes a service's refused inputs so, and
    ``check`` refused the file it wrote."""
    runner = ScenarioRunner(scenario(UNKNOWN_POOL % ", expect: invalid"))
    assert runner.run() == []
    assert "p" not in runner.engine.query.jobs()
    assert problems(UNKNOWN_POOL % "") == [
        "s.yaml:5:37: timeline[0].schedule.pool: pool 'x' does not exist: the policy "
        "defines no pools"
    ]


LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.mark.parametrize(
    "path",
    sorted(LIBRARY.glob("*.yaml")) + sorted((LIBRARY / "semantics").glob("*.yaml")),
    ids=lambda path: path.name,
)
def test_run_plays_what_its_steps_play(path: Path) -> None:
    # run() moves through the ticks between the timeline's in the engine's own loop, steps()
    # finishes each one: the same events, answers and failures (the demo to its first day).
    loaded = load_scenario(str(path))
    until = 1440 if path.name == "demo.yaml" else None
    played, stepped = ScenarioRunner(loaded, until), ScenarioRunner(loaded, until)
    played.run()
    for _ in stepped.steps():
        pass
    assert list(played.engine.log) == list(stepped.engine.log)
    assert (played.failures, played.rejections, played.checked) == (
        stepped.failures,
        stepped.rejections,
        stepped.checked,
    )
    assert (played.processed, played.engine.now) == (stepped.processed, stepped.engine.now)


def test_run_to_a_stop_finishes_the_timeline_ticks_and_the_stop_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    finished: list[int] = []
    finish = TickDriver.finish
    monkeypatch.setattr(
        TickDriver, "finish", lambda driver, tick: (finished.append(tick), finish(driver, tick))
    )
    runner = ScenarioRunner(
        scenario(
            """
            scenario: a stop
            clock: {until: 100}
            workers: [w]
            jobs: [{id: a, every: 10, duration: 3}]
            timeline:
              - {at: 42, status: {job: a, scheduled: 40}, expect: RUNNING}
            """
        )
    )
    assert runner.run() == []
    assert finished == [0, 42, 100]  # the sections' jobs and workers are at tick 0
    assert sum(isinstance(e, ev.AttemptStarted) for e in runner.engine.log) == 11


STRETCHED = """
scenario: stretches
clock: {until: 100}
workers: [w]
jobs: [{id: a, every: 10, duration: 3}]
timeline:
  - {at: 42, status: {job: a, scheduled: 40}, expect: RUNNING}
expect:
  - {at: 52, job: a, scheduled: 50, status: RUNNING}
"""


def test_stretches_end_at_the_timeline_and_expect_ticks_and_the_stop() -> None:
    runner = ScenarioRunner(scenario(STRETCHED))
    assert list(runner.stretches(lambda: 30)) == [0, 30, 42, 52, 82, 100]
    stepped = ScenarioRunner(scenario(STRETCHED))
    steps = list(stepped.steps())
    assert list(runner.engine.log) == list(stepped.engine.log)
    assert (runner.failures, runner.checked) == ([], 2) == (stepped.failures, stepped.checked)
    one_tick = ScenarioRunner(scenario(STRETCHED))
    assert list(one_tick.stretches(lambda: 1)) == steps
