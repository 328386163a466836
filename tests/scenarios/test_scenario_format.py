"""What the keys mean: schedules, settings, defaults, generators and timeline commands."""

from __future__ import annotations

import subprocess
import sys

import pytest
from scenario_helpers import problems, scenario

from engine.model import commands as cmd
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.policies import ChannelOutage, DispatchMode, DispatchOrder
from engine.model.records import CatchUp, Channel, NotifyOn, OccurrenceState, Subscription
from engine.scenario import StatusQuery
from engine.scenario.checks import Accepted, Assignments, OutcomeIs, StateIs
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import Every, Once


def test_the_example_of_the_issue_loads_with_every_key_it_uses() -> None:
    loaded = scenario(
        """
        scenario: Nightly ETL across the spring DST change
        description: free text
        clock: {epoch: "2026-03-28T00:00:00", timezone: Europe/Berlin, tick: 60, until: 4320}
        policy: {order: priority, dispatch: auto, completion: simulated, aging_step: 10}
        seed: 42
        workers: [w-a, {id: w-b, down: [[100, 160]]}]
        defaults: {max_retries: 2, backoff: {kind: exponential, base: 5, cap: 300, jitter: full},
                   duration: 10}
        jobs:
          - id: extract
            daily: "02:30"
            priority: high
            duration: 30
            timeout: 300
            fail: [1]
            notify: [{on: [failed], channel: slack, to: "#ops"}]
          - {id: report, at: 10}
          - {id: publish, depends_on: [report]}
        timeline:
          - {at: 40, cancel: {job: extract, scheduled: 1590}}
          - {at: 50, modify: {job: report, priority: low}, expect: ok}
          - {at: 60, schedule: {id: adhoc, duration: 5}}
        expect:
          - {at: 12, job: report, scheduled: 10, status: SUCCEEDED}
          - {at: 4320, counts: {SUCCEEDED: 5, FAILED: 0}}
        """
    )
    extract, report, publish = loaded.jobs
    assert isinstance(extract.schedule, CronSchedule) and extract.schedule.cron == "30 2 * * *"
    assert (extract.priority, extract.duration, extract.timeout) == (2, 30, 300)
    assert (extract.max_attempts, extract.fail_attempts) == (3, frozenset({1}))
    assert extract.backoff == Backoff(BackoffKind.EXPONENTIAL, 5, 300, Jitter.FULL)
    assert extract.notify == (Subscription(frozenset({NotifyOn.FAILED}), Channel.SLACK, "#ops"),)
    assert (report.schedule, report.duration) == (Once(10), 10)
    assert (publish.schedule, publish.depends_on) == (Once(0), ("report",))
    assert loaded.policy.order is DispatchOrder.PRIORITY and loaded.policy.aging_step == 10
    assert (loaded.seed, loaded.until, loaded.workers) == (42, 4320, ("w-a", "w-b"))
    assert loaded.clock is not None and loaded.clock.tick_seconds == 60
    actions = [(entry.tick, entry.action) for entry in loaded.timeline]
    assert actions[:2] == [(0, cmd.RegisterWorker("w-a")), (0, cmd.RegisterWorker("w-b"))]
    assert actions[5:] == [
        (40, cmd.CancelOccurrence("extract", 1590)),
        (50, cmd.ModifyJob.of("report", priority=0)),
        (60, cmd.ScheduleJob(loaded.timeline[7].action.spec)),  # type: ignore[union-attr]
        (100, cmd.WorkerDown("w-b")),
        (160, cmd.WorkerUp("w-b")),
    ]
    adhoc = loaded.timeline[7].action.spec  # type: ignore[union-attr]
    assert (adhoc.job_id, adhoc.schedule, adhoc.duration) == ("adhoc", Once(60), 5)


def test_schedule_keys() -> None:
    loaded = scenario(
        """
        scenario: schedules
        clock: {epoch: "2026-03-02T00:00:00", timezone: UTC, tick: 60}
        jobs:
          - {id: now}
          - {id: once, at: 10}
          - {id: iso, at: "2026-03-02T01:00:30"}
          - {id: every, every: 15, first: 5}
          - {id: every-from-now, every: 15}
          - {id: weekly, weekly: {days: [mon, fri], at: "09:00"}}
          - {id: monthly, monthly: {day: last, at: "06:00"}}
          - {id: cron, cron: "*/15 9-17 * * mon-fri"}
          - {id: nickname, cron: "@daily"}
        """
    )
    schedules = {spec.job_id: spec.schedule for spec in loaded.jobs}
    assert schedules["now"] == Once(0)
    assert schedules["once"] == Once(10)
    assert schedules["iso"] == Once(61)  # 01:00:30 is between ticks: the next one
    assert schedules["every"] == Every(5, 15)
    assert schedules["every-from-now"] == Every(0, 15)
    crons = {key: schedules[key].cron for key in ("weekly", "monthly", "cron", "nickname")}  # type: ignore[attr-defined]
    assert crons == {
        "weekly": "0 9 * * mon,fri",
        "monthly": "0 6 L * *",
        "cron": "*/15 9-17 * * mon-fri",
        "nickname": "0 0 * * *",
    }


def test_policy_and_notification_settings() -> None:
    loaded = scenario(
        """
        scenario: policy
        policy:
          order: aging
          aging_step: 3
          dispatch: manual
          completion: reported
          backoff: {kind: fixed, base: 4}
          notifications:
            max_tries: 2
            backoff: {kind: none}
            outages: [{channel: email, start: 5, end: 9}]
        """
    )
    policy = loaded.policy
    assert (policy.order, policy.aging_step, policy.dispatch) == (
        DispatchOrder.AGING,
        3,
        DispatchMode.MANUAL,
    )
    assert policy.backoff == Backoff(BackoffKind.FIXED, 4)
    assert policy.notifications.max_tries == 2
    assert policy.notifications.outages == (ChannelOutage(Channel.EMAIL, 5, 9),)


def test_job_settings_override_defaults() -> None:
    loaded = scenario(
        """
        scenario: defaults
        defaults: {priority: low, max_retries: 1, failure_rate: 0.25, payload: "x"}
        jobs:
          - {id: a}
          - {id: b, priority: 7, max_attempts: 5, hang: [2], catch_up: all, timeout: 9}
        """
    )
    a, b = loaded.jobs
    assert (a.priority, a.max_attempts, a.failure_rate, a.payload) == (0, 2, 0.25, "x")
    assert (b.priority, b.max_attempts, b.hang_attempts) == (7, 5, frozenset({2}))
    assert (b.catch_up, b.timeout) == (CatchUp.ALL, 9)


def test_every_timeline_command_and_answer() -> None:
    loaded = scenario(
        """
        scenario: commands
        policy: {dispatch: manual, completion: reported}
        jobs: [{id: a, every: 5}]
        timeline:
          - {at: 1, register: {worker: w}, expect: created}
          - {at: 1, fail: {job: a, attempt: 2}}
          - {at: 2, dispatch: ~, expect: ["a,0,1,w"]}
          - {at: 3, complete: {job: a, scheduled: 0, attempt: 1, ok: false}, expect: 200}
          - {at: 4, modify: {job: a, every: 10, timeout: null, max_retries: 2}}
          - {at: 5, cancel: {job: a}}
          - {at: 6, pause: {job: a}}
          - {at: 7, resume: {job: a, catch_up: latest}}
          - {at: 8, drain: {worker: w}, expect: true}
          - {at: 9, up: {worker: w}}
          - {at: 9, down: {worker: w}}
          - {at: 10, status: {job: a, scheduled: 0}, expect: RETRY_PENDING}
          - {at: 10, status: {job: a, scheduled: 1}, expect: ""}
          - {at: 11, delete: {job: a}}
        """
    )
    entries = [(entry.action, entry.expected) for entry in loaded.timeline[1:]]
    assert entries == [
        (cmd.RegisterWorker("w"), OutcomeIs(cmd.Outcome.CREATED)),
        (cmd.ScriptFailure("a", 2), None),
        (cmd.Dispatch(), Assignments(("a,0,1,w",))),
        (cmd.Complete("a", 0, 1, False), OutcomeIs(cmd.Outcome.OK)),
        (cmd.ModifyJob.of("a", schedule=Every(4, 10), timeout=None, max_attempts=3), None),
        (cmd.CancelOccurrence("a", None), None),
        (cmd.PauseJob("a"), None),
        (cmd.ResumeJob("a", CatchUp.LATEST), None),
        (cmd.DrainWorker("w"), Accepted(True)),
        (cmd.WorkerUp("w"), None),
        (cmd.WorkerDown("w"), None),
        (StatusQuery("a", 0), StateIs(OccurrenceState.RETRY_PENDING)),
        (StatusQuery("a", 1), StateIs(None)),
        (cmd.DeleteJob("a"), None),
    ]


def test_a_generator_is_seeded_and_its_template_is_checked_once() -> None:
    text = """
        scenario: fleet
        clock: {timezone: UTC}
        seed: 5
        generate:
          - count: 50
            id: "svc-{n:03}"
            job: {duration: 2}
            choose: {every: [60, 120], priority: [high, low]}
            spread: {first: [0, 59]}
          - count: 3
            id: "nightly-{n}"
            job: {daily: "00:00"}
        """
    first, second = scenario(text), scenario(text)
    assert first.jobs == second.jobs
    ids = [spec.job_id for spec in first.jobs]
    assert ids[:2] == ["svc-001", "svc-002"] and ids[-3:] == ["nightly-1", "nightly-2", "nightly-3"]
    intervals = {spec.schedule.interval for spec in first.jobs[:50]}  # type: ignore[attr-defined]
    assert intervals == {60, 120}
    assert all(0 <= spec.schedule.first <= 59 for spec in first.jobs[:50])  # type: ignore[attr-defined]
    assert scenario(text.replace("seed: 5", "seed: 6")).jobs != first.jobs
    # A wrong option is one error at the option, however many jobs picked it.
    assert problems(text.replace("[60, 120]", "[60, -1]")) == [
        "s.yaml:9:26: generate[0].every: expected a whole number from 1 to 1000000000000000, "
        "got the number -1"
    ]


@pytest.mark.e2e
def test_loading_a_scenario_imports_neither_rich_nor_textual() -> None:
    code = (
        "import sys, engine.scenario, cronlapse.cli.run; "
        "print(any(m.split('.')[0] in ('rich', 'textual') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
