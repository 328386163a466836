"""Exactly-once, checked: ``violations(engine)`` is empty on healthy engines, and it catches each
kind of corruption when one is planted in a copy (so the checker itself can fail): safety,
creation (modified jobs included) and liveness."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cronlapse.analyses.invariants import Checker, violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import (
    CancelOccurrence,
    Complete,
    Dispatch,
    DrainWorker,
    ModifyJob,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
    WorkerDown,
    WorkerUp,
)
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.policies import (
    ChannelOutage,
    CompletionMode,
    DispatchMode,
    DispatchOrder,
    NotificationPolicy,
    Policy,
    RunningJobChanges,
)
from engine.model.records import (
    Attempt,
    AttemptOutcome,
    CatchUp,
    Channel,
    JobSpec,
    NotifyOn,
    Occurrence,
    OccurrenceState,
    Subscription,
)
from engine.scenario import ScenarioRunner, load_scenario
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock
from engine.schedules.kinds import Every, Once

S = OccurrenceState
MAIL = Subscription(frozenset(NotifyOn), Channel.EMAIL, "ops@x")


def healthy() -> Engine:
    """Two workers; by tick 13: a@0 failed once then succeeded (w1), a@10 runs on w1 until 15,
    b@0 succeeded on w2 with an email notification delivered. Its jobs may be changed while
    they run: the corruptions below modify a while a@10 runs."""
    engine = Engine(Policy(running_job_changes=RunningJobChanges.ALLOW))
    for worker_id in ("w1", "w2"):
        assert engine.apply(RegisterWorker(worker_id)).accepted
    spec = JobSpec("a", Every(0, 10), duration=5, max_attempts=2, fail_attempts=frozenset({1}))
    assert engine.apply(ScheduleJob(spec)).accepted
    assert engine.apply(ScheduleJob(JobSpec("b", Once(0), notify=(MAIL,)))).accepted
    engine.advance(13)
    assert engine._store.records[("a", 0)].state is S.SUCCEEDED
    assert engine._store.records[("a", 10)].state is S.RUNNING
    assert engine._workforce.workers["w1"].running == ("a", 10)
    return engine


def test_a_healthy_engine_has_no_violations() -> None:
    assert violations(healthy()) == []


def _two_running(engine: Engine) -> None:
    engine._store.records[("a", 10)].attempts.append(Attempt(2, "w2", 12))
    engine._workforce.workers["w2"].running = ("a", 10)


def _gap(engine: Engine) -> None:
    engine._store.records[("a", 0)].attempts[1].number = 3


def _worker_runs_two(engine: Engine) -> None:
    # The log says w1 was given b@0 while it ran a@0 (no end of a@0's attempt in between).
    events = list(engine.log)
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.AttemptStarted))
    events.insert(start + 1, ev.AttemptStarted(0, "b", 0, 1, "w1"))
    engine.log = ev.EventLog()
    for event in events:
        engine.log.append(event)


def _worker_holds_two_occurrences(engine: Engine) -> None:
    # b@0 (succeeded on w2) is made to run a second attempt on w1, which runs a@10.
    occurrence = engine._store.records[("b", 0)]
    occurrence.attempts.append(Attempt(2, "w1", 12))
    del engine._store.index.keys[S.SUCCEEDED][("b", 0)]
    occurrence.state = S.RUNNING
    engine._store.index.keys[S.RUNNING][("b", 0)] = None


def _shared_occurrence(engine: Engine) -> None:
    engine._workforce.workers["w2"].running = ("a", 10)


def _down_but_running(engine: Engine) -> None:
    engine._workforce.workers["w1"].down = True


def _started_after_final(engine: Engine) -> None:
    engine.log.append(ev.AttemptStarted(13, "b", 0, 2, "w2"))


def _started_twice(engine: Engine) -> None:
    engine.log.append(ev.AttemptStarted(13, "a", 10, 2, "w2"))


def _delivered_twice(engine: Engine) -> None:
    (key,) = engine._outbox.records
    engine.log.append(ev.NotificationDelivered(13, key, 1))


def _too_many_attempts(engine: Engine) -> None:
    engine._store.records[("a", 0)].max_attempts = 1


def _running_state_without_attempt(engine: Engine) -> None:
    occurrence = engine._store.records[("a", 10)]
    occurrence.attempts[0].outcome = AttemptOutcome.SUCCEEDED


def _index_disagrees(engine: Engine) -> None:
    del engine._store.index.keys[S.SUCCEEDED][("b", 0)]
    engine._store.index.keys[S.QUEUED][("b", 0)] = None


def _occurrence_missing(engine: Engine) -> None:
    del engine._store.records[("a", 0)]
    del engine._store.index.keys[S.SUCCEEDED][("a", 0)]


def _not_in_schedule(engine: Engine) -> None:
    ghost = Occurrence(("a", 5), S.SUCCEEDED, 1, 0, 5, 1, None)
    engine._store.records[ghost.key] = ghost
    engine._store.index.keys[S.SUCCEEDED][ghost.key] = None


def _modified_off_schedule(engine: Engine) -> None:
    # a's schedule changes at 13 to 14, 21, 28, ...; a run appears at 20, a tick of the old one.
    assert engine.apply(ModifyJob.of("a", schedule=Every(14, 7))).accepted
    engine.advance(25)
    ghost = Occurrence(("a", 20), S.SUCCEEDED, 2, 0, 20, 5, None)
    engine._store.records[ghost.key] = ghost
    engine._store.index.keys[S.SUCCEEDED][ghost.key] = None


def _modified_run_missing(engine: Engine) -> None:
    # Under the new schedule a@14 ran; its record disappears behind the cursor.
    assert engine.apply(ModifyJob.of("a", schedule=Every(14, 7))).accepted
    engine.advance(25)
    assert engine._store.records[("a", 14)].state is S.SUCCEEDED
    del engine._store.records[("a", 14)]
    del engine._store.index.keys[S.SUCCEEDED][("a", 14)]


def _modified_values_ignored(engine: Engine) -> None:
    # a's priority becomes 5 at 13, but the run created at 20 carries the old priority.
    assert engine.apply(ModifyJob.of("a", priority=5)).accepted
    engine.advance(22)
    engine._store.records[("a", 20)].priority = 0


def _worker_left_idle(engine: Engine) -> None:
    # The engine loses w2 from its idle pool: w2 is idle, yet c@14 waits for w1, which retries
    # a@10 from 15 and is free at 20.
    engine._workforce.idle.discard("w2")
    assert engine.apply(ScheduleJob(JobSpec("c", Once(14)))).accepted
    engine.advance(22)
    assert engine._store.records[("c", 14)].attempts[0].started == 20


def _run_forgotten(engine: Engine) -> None:
    # c@20 falls due, then the engine drops it from its ready queue: it waits forever.
    assert engine.apply(ScheduleJob(JobSpec("c", Once(20)))).accepted
    engine.advance(20)
    engine.begin_tick()
    engine._dispatcher.take_front(engine._cursors.jobs["c"])
    engine.advance(30)
    assert engine.query.run_state("c", 20) is S.QUEUED


def _retry_forgotten(engine: Engine) -> None:
    # r@14 fails at 15 and may retry from 17 (fixed backoff 2), but the backoff's end is missed.
    backoff = Backoff(BackoffKind.FIXED, 2)
    spec = JobSpec("r", Once(14), max_attempts=2, fail_attempts=frozenset({1}), backoff=backoff)
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(16)
    occurrence = engine._store.records[("r", 14)]
    assert (occurrence.state, occurrence.eligible_at) == (S.RETRY_PENDING, 17)
    occurrence.eligible_at = 99
    engine.advance(30)
    assert occurrence.state is S.RETRY_PENDING


def _run_missing_after_a_skip(engine: Engine) -> None:
    # a is paused at 13 and resumed at 40, which skips a@20, a@30 and a@40; a@60 runs, then its
    # record disappears: the walk behind the cursor goes on past the skipped range.
    assert engine.apply(PauseJob("a")).accepted
    engine.advance(40)
    assert engine.apply(ResumeJob("a")).accepted
    engine.advance(75)
    assert engine._store.records[("a", 60)].state is S.SUCCEEDED
    del engine._store.records[("a", 60)]
    del engine._store.index.keys[S.SUCCEEDED][("a", 60)]


def _overlap_exceeded(engine: Engine) -> None:
    # o may have one run active (Forbid); the log says two of its runs started and ran at once.
    spec = JobSpec("o", Every(13, 1), duration=5, overlap=OverlapRule(Overlap.FORBID))
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.log.append(ev.AttemptStarted(13, "o", 13, 1, "w3"))
    engine.log.append(ev.AttemptStarted(13, "o", 14, 1, "w4"))


@pytest.mark.parametrize(
    ("corrupt", "expected"),
    [
        (_two_running, ["a@10: 2 attempts running at once"]),
        (_gap, ["a@0: attempts numbered [1, 3], not 1..n"]),
        (_worker_runs_two, ["tick 0: w1 given a second attempt"]),
        (_worker_holds_two_occurrences, ["b@0: attempt 2 runs on w1, which does not know it"]),
        (_shared_occurrence, ["('a', 10) runs on both w1 and w2"]),
        (_down_but_running, ["worker w1 is down but runs ('a', 10)"]),
        (_started_after_final, ["tick 13: b@0 started after it ended"]),
        (_started_twice, ["tick 13: a@10 started twice at once"]),
        (_delivered_twice, ["delivered twice"]),
        (_too_many_attempts, ["a@0: 2 counted attempts exceed 1"]),
        (_running_state_without_attempt, ["a@10: state RUNNING with 0 running"]),
        (_index_disagrees, ["('b', 0) indexed as QUEUED"]),
        (_occurrence_missing, ["a@0 fell behind the cursor without being created"]),
        (_not_in_schedule, ["a@5 is not in its job's schedule"]),
        (_modified_off_schedule, ["tick 20: a@20 is not in its job's schedule"]),
        (_modified_run_missing, ["tick 14: a@14 fell behind the cursor without being created"]),
        (_modified_values_ignored, ["tick 20: a@20 was created with priority=0,"]),
        (_worker_left_idle, ["tick 14: c@14 waited at the end of the tick while w2 was idle"]),
        (_run_forgotten, ["tick 29: c@20 still waits at the end (it could run from tick 20)"]),
        (_retry_forgotten, ["tick 29: r@14 still waits at the end (it could run from tick 17)"]),
        (_overlap_exceeded, ["tick 13: o runs 2 at once, over its limit 1"]),
        (_run_missing_after_a_skip, ["tick 60: a@60 fell behind the cursor without being created"]),
    ],
    ids=lambda value: getattr(value, "__name__", "")[1:] or None,
)
def test_the_checker_catches_a_planted_corruption(
    corrupt: Callable[[Engine], None], expected: list[str]
) -> None:
    original = healthy()
    broken = copy.deepcopy(original)
    corrupt(broken)
    found = [str(violation) for violation in violations(broken)]
    for text in expected:
        assert any(text in line for line in found), (text, found)
    assert violations(original) == []  # the copy, not the original, was corrupted


def test_an_observing_checker_holds_runs_to_definitions_the_engine_forgot() -> None:
    # a's priority is 5 from 13 and 7 from 25: a@20 was created under the middle definition,
    # which the engine no longer holds. Observing the engine after each step keeps it.
    engine = healthy()
    checker = Checker(engine)
    checker.observe()
    assert engine.apply(ModifyJob.of("a", priority=5)).accepted
    checker.observe()
    engine.advance(25)
    checker.observe()
    assert engine._store.records[("a", 20)].priority == 5
    assert engine.apply(ModifyJob.of("a", priority=7)).accepted
    engine.advance(32)
    checker.observe()
    assert checker.violations() == []
    engine._store.records[("a", 20)].priority = 9
    assert [str(v) for v in checker.violations()] == [
        "tick 20: a@20 was created with priority=9, max_attempts=2, duration=5, timeout=None, "
        "which no definition of a in force from tick 20 to 20 has"
    ]
    assert violations(engine) == []  # alone, it knows only the current definition (7)


def test_a_pause_taken_again_at_the_tick_of_its_resume_holds_that_tick_back() -> None:
    # Found by the state machine: b is paused, resumed (all) and paused again at the start of
    # tick 10, so b@10 falls due while paused; resumed at 13 (latest), b@10 runs from 13. The
    # log cannot tell whether b@10 was created between the resume and the second pause, so the
    # checker must not judge tick 10 (it used to report b@10 as waiting while w1 was idle).
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("b", Every(0, 5))))
    engine.advance(10)
    for command in (PauseJob("b"), ResumeJob("b", CatchUp.ALL), PauseJob("b")):
        assert engine.apply(command).accepted
    engine.advance(13)
    assert engine.apply(ResumeJob("b", CatchUp.LATEST)).accepted
    engine.advance(14)
    assert engine._store.records[("b", 10)].attempts[0].started == 13
    assert violations(engine) == []


def test_a_retry_that_waited_while_a_worker_was_idle_is_reported_when_it_starts() -> None:
    # r@0 fails at 1 and may retry from 3; long@2 takes w1 until 10, and the engine loses w2
    # from its idle pool. The retry starts at 10, well after its tick: the replay must judge
    # it from its backoff's end (3), not pass it over as a run every worker was busy for.
    engine = Engine()
    for worker_id in ("w1", "w2"):
        assert engine.apply(RegisterWorker(worker_id)).accepted
    backoff = Backoff(BackoffKind.FIXED, 2)
    spec = JobSpec("r", Once(0), max_attempts=2, fail_attempts=frozenset({1}), backoff=backoff)
    assert engine.apply(ScheduleJob(spec)).accepted
    assert engine.apply(ScheduleJob(JobSpec("long", Once(2), duration=8))).accepted
    engine.advance(2)
    broken = copy.deepcopy(engine)
    broken._workforce.idle.discard("w2")
    broken.advance(20)
    assert broken._store.records[("r", 0)].attempts[1].started == 10
    assert [str(violation) for violation in violations(broken)] == [
        "tick 3: r@0 waited at the end of the tick while w2 was idle (it could run from tick 3)"
    ]
    engine.advance(20)
    assert violations(engine) == []


def test_a_down_or_draining_worker_could_not_take_a_waiting_run() -> None:
    # x@1 waits from 1 to 12: w1 runs its last attempt while draining, then is down; w2 is down
    # until 12. No worker that could take x was idle, so nothing is reported.
    engine = Engine()
    for worker_id in ("w1", "w2"):
        assert engine.apply(RegisterWorker(worker_id)).accepted
    assert engine.apply(ScheduleJob(JobSpec("long", Once(0), duration=10))).accepted
    assert engine.apply(ScheduleJob(JobSpec("x", Once(1)))).accepted
    assert engine.apply(WorkerDown("w2")).accepted
    engine.advance(1)
    assert engine.apply(DrainWorker("w1")).accepted
    engine.advance(12)
    assert engine.apply(WorkerUp("w2")).accepted
    engine.advance(20)
    assert engine._store.records[("x", 1)].attempts[0].started == 12
    assert violations(engine) == []


def test_under_manual_dispatch_a_run_waits_for_a_dispatch_call() -> None:
    # Seed 000: b waits with w1 idle from 5 on, because nobody calls dispatch again.
    policy = Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    engine = Engine(policy)
    assert engine.apply(RegisterWorker("w1")).accepted
    for job_id in ("a", "b"):
        assert engine.apply(ScheduleJob(JobSpec(job_id, Once(0)))).accepted
    assert [assignment.job_id for assignment in engine.dispatch()] == ["a"]
    engine.advance(5)
    assert engine.apply(Complete("a", 0, 1, True)).accepted
    engine.advance(50)
    assert engine.query.run_state("b", 0) is S.QUEUED
    assert engine._workforce.workers["w1"].running is None
    assert violations(engine) == []


def _busy(policy: Policy, seed: int) -> Engine:
    """A mixed workload under ``policy``: recurring and one-time jobs, priorities, failures,
    hangs and timeouts, dependencies, notifications with an outage, lifecycle commands and worker
    faults at fixed ticks; reported completions are answered by a fixed rule."""
    engine = Engine(policy, seed=seed)
    for n in range(3):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    specs = [
        JobSpec("base", Once(3), duration=2, notify=(MAIL,)),
        JobSpec("dep", Every(0, 6), depends_on=("base",), priority=1, duration=2),
        JobSpec(
            "flaky",
            Every(1, 4),
            max_attempts=3,
            failure_rate=0.4,
            duration=3,
            priority=2,
            backoff=Backoff(BackoffKind.EXPONENTIAL, 1, 8, Jitter.FULL),
            notify=(MAIL,),
        ),
        JobSpec("hang", Every(2, 9), hang_attempts=frozenset({1}), timeout=4, max_attempts=2),
        JobSpec("late", Once(40), priority=-1),
    ]
    for spec in specs:
        assert engine.apply(ScheduleJob(spec)).accepted
    script = {
        8: [CancelOccurrence("flaky"), PauseJob("dep")],
        12: [DrainWorker("w1")],
        17: [ModifyJob.of("flaky", priority=0, duration=1)],
        25: [ModifyJob.of("dep", schedule=Every(27, 5), max_attempts=2)],
        20: [ResumeJob("dep", CatchUp.LATEST), WorkerUp("w1")],
        30: [CancelOccurrence("late")],
    }
    manual = policy.dispatch is DispatchMode.MANUAL
    reported = policy.completion is CompletionMode.REPORTED
    for tick in range(0, 60):
        engine.advance(tick)
        engine.begin_tick()
        for command in script.get(tick, []):
            engine.apply(command)
        if tick in (5, 25, 45):  # a busy worker crashes; it is back 4 ticks later
            busy = sorted(w for w, worker in engine._workforce.workers.items() if worker.running)
            if busy:
                assert engine.apply(WorkerDown(busy[0])).accepted
                script.setdefault(tick + 4, []).append(WorkerUp(busy[0]))
        if reported:
            for key in list(engine._store.index.keys[S.RUNNING]):
                attempt = engine._store.records[key].running_attempt
                if attempt is not None and tick - attempt.started >= 2:
                    engine.apply(Complete(*key, attempt.number, (tick + attempt.number) % 3 != 0))
        if manual:
            engine.apply(Dispatch())
        assert violations(engine) == [], tick
    engine.advance(100)
    return engine


POLICIES = [
    Policy(),
    Policy(order=DispatchOrder.PRIORITY),
    Policy(order=DispatchOrder.AGING, aging_step=3),
    Policy(dispatch=DispatchMode.MANUAL),
    Policy(order=DispatchOrder.PRIORITY, completion=CompletionMode.REPORTED),
    Policy(
        order=DispatchOrder.AGING,
        aging_step=2,
        dispatch=DispatchMode.MANUAL,
        completion=CompletionMode.REPORTED,
        notifications=NotificationPolicy(
            max_tries=3, outages=(ChannelOutage(Channel.EMAIL, 0, 30),)
        ),
    ),
]


@pytest.mark.parametrize(
    "policy", POLICIES, ids=lambda p: f"{p.order.value}-{p.dispatch.value}-{p.completion.value}"
)
@pytest.mark.parametrize("seed", [0, 1])
def test_busy_engines_under_every_policy_stay_clean(policy: Policy, seed: int) -> None:
    engine = _busy(policy, seed)
    assert violations(engine) == []
    kinds = {type(e).__name__ for e in engine.log}
    assert {"AttemptStarted", "AttemptLost", "OccurrenceCancelled", "JobResumed"} <= kinds


# ------------------------------------------------------------------------------ bundled scenarios

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda path: path.stem)
def test_the_checker_runs_clean_over_every_bundled_scenario(path: Path) -> None:
    # After every processed tick of every bundled scenario. Each call reads the state and the
    # whole log (O(state + events)), so for the big fleets (the demo: 2,000 jobs for a week) it
    # runs over the first 300 ticks where something happens, then once at the end.
    runner = ScenarioRunner(load_scenario(path))
    for n, _ in enumerate(runner.steps()):
        if len(runner.engine._cursors.jobs) <= 200:
            assert violations(runner.engine) == [], runner.engine.now
        elif n == 300:
            break
    assert violations(runner.engine) == []


# ------------------------------------------------------------------------------------------- docs


def test_the_examples_in_docs_engine_md_run() -> None:
    # Each ```python block of docs/engine.md, in order, in one namespace: the asserts in the
    # examples are the documented commands -> events.
    text = (Path(__file__).parents[2] / "docs" / "engine.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 12
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/engine.md block {number}", "exec"), namespace)


def test_jobs_on_one_cron_schedule_far_apart_are_each_held_to_their_own_runs() -> None:
    """The walks behind the cursors are shared by the jobs of one cron schedule: a job paused
    early and one scheduled late leave two stretches apart, and a run missing from the later
    one is found (the ticks between them belong to neither)."""
    clock = Clock.parse("2026-01-01T00:00:00", "UTC", 60)
    engine = Engine()
    for worker_id in ("w1", "w2"):
        assert engine.apply(RegisterWorker(worker_id)).accepted
    assert engine.apply(ScheduleJob(JobSpec("a", CronSchedule("*/5 * * * *", clock)))).accepted
    engine.advance(60)
    assert engine.apply(PauseJob("a")).accepted
    engine.advance(200)
    assert engine.apply(ScheduleJob(JobSpec("b", CronSchedule("*/5 * * * *", clock)))).accepted
    engine.advance(260)
    assert violations(engine) == []
    assert engine._store.records[("b", 230)].state is S.SUCCEEDED
    del engine._store.records[("b", 230)]
    del engine._store.index.keys[S.SUCCEEDED][("b", 230)]
    found = [str(violation) for violation in violations(engine)]
    assert found == ["tick 230: b@230 fell behind the cursor without being created"]
