"""Overlap rules: a job's limit on its active runs, and what a run falling due at the limit does.

The workload of issue 16: a job every 10 ticks whose runs take 25, on three workers. Without a
rule three copies run at once; each named rule (Kubernetes, Temporal, systemd, Airflow) is a
limit plus an action, and its events say what happened to every run (docs/semantics.md).
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from test_engine_stateful import EngineMachine

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import (
    CancelOccurrence,
    DeleteJob,
    Dispatch,
    Outcome,
    RegisterWorker,
    ScheduleJob,
    WorkerDown,
)
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import AttemptOutcome, CancelReason, JobSpec, OccurrenceState
from engine.schedules.kinds import Every

S = OccurrenceState


def fleet(workers: int = 3, **policy: object) -> Engine:
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def every_10_for_25(engine: Engine, rule: OverlapRule | None, **fields: object) -> None:
    spec = JobSpec("j", Every(0, 10), duration=25, overlap=rule, **fields)  # type: ignore[arg-type]
    assert engine.apply(ScheduleJob(spec)).accepted


def run(engine: Engine, through: int) -> None:
    engine.advance(through + 1)
    assert violations(engine) == []


def starts(engine: Engine) -> list[tuple[int, int]]:
    """(tick, scheduled) of every attempt started."""
    return [(e.tick, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptStarted)]


def of(engine: Engine, kind: type[ev.Event]) -> list[ev.Event]:
    return [e for e in engine.log if isinstance(e, kind)]


def most_running_at_once(engine: Engine) -> int:
    running, most = set(), 0
    for event in engine.log:
        if isinstance(event, ev.AttemptStarted):
            running.add(event.scheduled)
            most = max(most, len(running))
        elif isinstance(event, ev.AttemptSucceeded | ev.AttemptTerminated):
            running.discard(event.scheduled)
    return most


def test_without_a_rule_three_copies_run_at_once() -> None:
    engine = fleet()
    every_10_for_25(engine, None)
    run(engine, 100)
    assert most_running_at_once(engine) == 3


@pytest.mark.parametrize("policy", [Overlap.FORBID, Overlap.SKIP])
def test_forbid_and_skip_skip_every_run_that_falls_due_while_one_is_active(policy) -> None:
    engine = fleet()
    every_10_for_25(engine, OverlapRule(policy))
    run(engine, 100)
    assert starts(engine) == [(0, 0), (30, 30), (60, 60), (90, 90)]
    skipped = of(engine, ev.OccurrenceSkipped)
    assert [(e.tick, e.scheduled) for e in skipped] == [
        (t, t) for t in (10, 20, 40, 50, 70, 80, 100)
    ]
    assert {e.because for e in skipped} == {policy.value}
    assert engine.query.run_state("j", 20) is None  # not a run: it never will be
    assert engine.query.run_state("j", 90) is S.RUNNING


def test_buffer_one_holds_one_run_and_skips_the_rest() -> None:
    engine = fleet()
    every_10_for_25(engine, OverlapRule(Overlap.BUFFER_ONE))
    run(engine, 100)
    # 0 runs 0-25 while 10 waits and 20 is skipped; 10 runs 25-50 while 30 waits and 40 is
    # skipped; at 50 run 10 ends first, 30 takes the slot, then 50 falls due and waits...
    assert starts(engine) == [(0, 0), (25, 10), (50, 30), (75, 50), (100, 80)]
    assert [e.scheduled for e in of(engine, ev.OccurrenceSkipped)] == [20, 40, 60, 70, 90]
    assert [e.scheduled for e in of(engine, ev.OccurrenceHeld)] == [10, 30, 50, 80, 100]
    assert [(e.tick, e.scheduled) for e in of(engine, ev.OccurrenceReleased)] == [
        (25, 10),
        (50, 30),
        (75, 50),
        (100, 80),
    ]
    assert engine.query.run_state("j", 100) is S.QUEUED


@pytest.mark.parametrize("policy", [Overlap.BUFFER_ALL, Overlap.MAX_ACTIVE_RUNS])
def test_buffer_all_runs_every_run_one_after_the_other(policy) -> None:
    engine = fleet()
    every_10_for_25(engine, OverlapRule(policy))
    run(engine, 100)
    assert starts(engine) == [(0, 0), (25, 10), (50, 20), (75, 30), (100, 40)]
    assert [e.scheduled for e in of(engine, ev.OccurrenceHeld)] == [10]  # one for the range
    released = of(engine, ev.OccurrenceReleased)
    assert [(e.tick, e.scheduled, e.emptied) for e in released] == [
        (25, 10, False),
        (50, 20, False),
        (75, 30, False),
        (100, 40, False),
    ]
    assert of(engine, ev.OccurrenceSkipped) == []
    # The held runs wait implicitly (Airflow calls them queued): no record each.
    assert engine.query.run_state("j", 90) is S.QUEUED
    assert ("j", 90) not in engine.query.records()


def test_a_buffer_that_empties_says_so_and_the_next_run_is_not_held() -> None:
    engine = fleet()
    spec = JobSpec("j", Every(0, 10), duration=15, overlap=OverlapRule(Overlap.BUFFER_ALL))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 45)
    # 0 runs 0-15; 10 is held and released at 15 (nothing else waits), runs 15-30; 20 is held
    # at 20 and released at 30 by the end of run 10, before run 30 falls due in the same tick
    # (the buffer empties); 30 is held anew, 40 behind it, and at 45 only 30 leaves.
    released = [(e.tick, e.scheduled, e.emptied) for e in of(engine, ev.OccurrenceReleased)]
    assert released == [(15, 10, True), (30, 20, True), (45, 30, False)]
    assert [e.scheduled for e in of(engine, ev.OccurrenceHeld)] == [10, 20, 30]


@pytest.mark.parametrize("policy", [Overlap.REPLACE, Overlap.CANCEL_OTHER, Overlap.TERMINATE_OTHER])
def test_replace_cancels_the_running_run_and_starts_the_new_one(policy) -> None:
    engine = fleet()
    every_10_for_25(engine, OverlapRule(policy))
    run(engine, 30)
    assert starts(engine) == [(0, 0), (10, 10), (20, 20), (30, 30)]
    terminated = of(engine, ev.AttemptTerminated)
    assert [(e.tick, e.scheduled, e.worker_id) for e in terminated] == [
        (10, 0, "w1"),
        (20, 10, "w1"),
        (30, 20, "w1"),
    ]
    cancelled = of(engine, ev.OccurrenceCancelled)
    assert {(e.reason, e.cause) for e in cancelled} == {(CancelReason.REPLACED, policy.value)}
    run_0 = engine.query.record("j", 0)
    assert run_0.state is S.CANCELLED
    assert run_0.attempts[-1].outcome is AttemptOutcome.TERMINATED
    assert most_running_at_once(engine) == 1


def test_max_active_alone_is_airflows_max_active_runs() -> None:
    engine = fleet()
    every_10_for_25(engine, OverlapRule(Overlap.MAX_ACTIVE_RUNS, 2))
    run(engine, 60)
    assert starts(engine) == [(0, 0), (10, 10), (25, 20), (35, 30), (50, 40), (60, 50)]
    assert most_running_at_once(engine) == 2


def test_a_run_waiting_for_a_worker_is_active_so_forbid_skips_the_next() -> None:
    # Kubernetes counts a Job from its creation, not from its pod's start: a run that fell due
    # and waits for a worker holds the slot.
    engine = fleet(workers=1)
    assert engine.apply(ScheduleJob(JobSpec("busy", Every(0, 100), duration=35))).accepted
    spec = JobSpec("j", Every(0, 10), duration=5, overlap=OverlapRule(Overlap.FORBID))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 45)
    # busy (earlier in Java order: "b" < "j") takes w1 0-35; j@0 waits for it; 10, 20 and 30
    # are skipped; j@0 runs 35-40, and j@40 runs at 40.
    assert [e.scheduled for e in of(engine, ev.OccurrenceSkipped)] == [10, 20, 30]
    assert [(t, s) for t, s in starts(engine) if s != 0 or t > 0] == [(35, 0), (40, 40)]


def test_a_run_waiting_for_its_retry_holds_its_slot() -> None:
    engine = fleet(backoff=Backoff(BackoffKind.FIXED, base=10))
    spec = JobSpec(
        "j",
        Every(0, 10),
        duration=5,
        max_attempts=2,
        fail_attempts=frozenset({1}),
        overlap=OverlapRule(Overlap.FORBID),
    )
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 25)
    # Attempt 1 fails at 5; attempt 2 waits for its backoff until 15 and fails at 20 (every
    # run's first attempt is scripted to fail): run 10 fell due while run 0 was active and is
    # skipped; run 20 falls due after run 0 ended.
    assert [e.scheduled for e in of(engine, ev.OccurrenceSkipped)] == [10]
    assert starts(engine) == [(0, 0), (15, 0), (20, 20)]


def test_cancelling_the_active_run_frees_its_slot_for_the_held_one() -> None:
    engine = fleet(workers=1)
    assert engine.apply(ScheduleJob(JobSpec("busy", Every(0, 1000), duration=50))).accepted
    spec = JobSpec("j", Every(0, 10), duration=5, overlap=OverlapRule(Overlap.BUFFER_ONE))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 12)
    assert engine.query.run_state("j", 0) is S.QUEUED  # active, waiting for the worker
    assert engine.query.run_state("j", 10) is S.QUEUED  # held
    assert engine.apply(CancelOccurrence("j", 0)).accepted
    released = of(engine, ev.OccurrenceReleased)
    assert [(e.tick, e.scheduled) for e in released] == [(13, 10)]
    run(engine, 60)
    assert (50, 10) in starts(engine)


def test_replace_cancels_a_run_that_had_not_started_without_terminating_anything() -> None:
    engine = fleet(workers=1)
    assert engine.apply(ScheduleJob(JobSpec("busy", Every(0, 1000), duration=50))).accepted
    spec = JobSpec("j", Every(0, 10), duration=5, overlap=OverlapRule(Overlap.REPLACE))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 55)
    assert of(engine, ev.AttemptTerminated) == []
    cancelled = [e.scheduled for e in of(engine, ev.OccurrenceCancelled)]
    assert cancelled == [0, 10, 20, 30, 40]
    assert (50, 50) in starts(engine)


def test_deleting_a_job_cancels_its_held_run_and_its_buffer() -> None:
    engine = fleet(workers=1)
    spec = JobSpec("j", Every(0, 10), duration=35, overlap=OverlapRule(Overlap.BUFFER_ONE))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 15)
    assert engine.apply(DeleteJob("j")).outcome is Outcome.CONFLICT  # run 0 is running
    engine.apply(WorkerDown("w1"))  # its attempt is lost; run 0 waits for a worker again
    assert engine.apply(DeleteJob("j")).accepted
    assert engine.query.run_state("j", 10) is S.CANCELLED
    run(engine, 100)
    assert of(engine, ev.OccurrenceReleased) == []


def test_a_rule_outside_its_limits_is_refused() -> None:
    engine = fleet()
    spec = JobSpec("j", Every(0, 10), overlap=OverlapRule(Overlap.FORBID, 0))
    result = engine.apply(ScheduleJob(spec))
    assert result.outcome is Outcome.INVALID
    expected = "max_active: expected a whole number from 1 to 1000000, got the number 0"
    assert result.message == expected


def test_a_big_buffer_costs_nothing_per_held_run() -> None:
    # 10,000 runs fall due behind one long run: they stay implicit, one held range.
    engine = fleet(workers=1)
    spec = JobSpec("j", Every(0, 1), duration=10_000, overlap=OverlapRule(Overlap.BUFFER_ALL))
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(10_000)
    assert len(engine.query.records()) == 1
    assert len(of(engine, ev.OccurrenceHeld)) == 1
    assert len(engine.log) < 10


def test_skips_cost_one_event_each_and_leave_no_trail() -> None:
    engine = fleet(workers=1)
    spec = JobSpec("j", Every(0, 1), duration=1_000, overlap=OverlapRule(Overlap.FORBID))
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(900)
    assert engine.query.job("j").skipped == ()  # the cursor walks past each skip at once
    assert len(engine.query.records()) == 1
    assert len(of(engine, ev.OccurrenceSkipped)) == 899


# ------------------------------------------------------------------ exactly-once, under any rule


class OverlapMachine(EngineMachine):
    """The engine's state machine with an overlap rule on most recurring jobs: every step keeps
    the invariants (the limit among them), a rejected command changes nothing, and a replay
    gives the same log and state."""

    def draw_spec(self, data: st.DataObject) -> JobSpec:
        spec = super().draw_spec(data)
        rule = data.draw(
            st.none() | st.builds(OverlapRule, st.sampled_from(Overlap), st.integers(1, 3)),
            label="overlap",
        )
        return dataclasses.replace(spec, overlap=rule)


OverlapMachine.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestOverlapMachine = pytest.mark.integration(OverlapMachine.TestCase)


def test_a_limited_job_keeps_one_or_two_entries_on_the_due_heap() -> None:
    # Each attempt end releases the job again; entries pushed twice for one tick must not
    # multiply from run to run (they did: a job's thousandth run cost a thousand releases).
    engine = fleet(workers=1)
    spec = JobSpec("j", Every(0, 10), duration=5, overlap=OverlapRule(Overlap.BUFFER_ALL))
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(10_000)
    assert len(engine._cursors.due.live()) <= 2
    assert len(starts(engine)) == 1000


@pytest.mark.parametrize(
    "policy", [Overlap.FORBID, Overlap.BUFFER_ONE, Overlap.REPLACE, Overlap.BUFFER_LATEST]
)
def test_many_runs_due_at_once_at_the_limit_are_skipped_as_one_range(policy) -> None:
    # Under manual dispatch a billion runs fall due before the next dispatch creates them:
    # they are skipped as one range (all but the latest under Replace and BufferLatest), not
    # one by one.
    engine = Engine(Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED))
    engine.apply(RegisterWorker("w1"))
    spec = JobSpec("j", Every(0, 1), overlap=OverlapRule(policy))
    assert engine.apply(ScheduleJob(spec)).accepted
    assert engine.apply(Dispatch()).accepted  # run 0 starts and holds the slot
    engine.advance(10**9)
    assert engine.apply(Dispatch()).accepted
    ranges = [(e.after, e.through) for e in of(engine, ev.OccurrencesSkipped)]
    if policy is Overlap.REPLACE:
        assert ranges == [(0, 10**9 - 1)]
        assert engine.query.run_state("j", 10**9) is S.RUNNING  # run 0 was terminated
        assert engine.query.run_state("j", 0) is S.CANCELLED
    elif policy is Overlap.BUFFER_ONE:
        assert ranges == [(1, 10**9)]
        assert engine.query.run_state("j", 1) is S.QUEUED  # held
    elif policy is Overlap.BUFFER_LATEST:
        assert ranges == [(0, 10**9 - 1)]
        assert engine.query.run_state("j", 10**9) is S.QUEUED  # held: the newest
        assert engine.query.run_state("j", 0) is S.RUNNING
    else:
        assert ranges == [(0, 10**9)]
    assert engine.query.run_state("j", 5) is None
    assert len(engine.log) < 20
    assert violations(engine) == []


# ----------------------------- BufferLatest: Kubernetes' Forbid as the controller runs it


def test_buffer_latest_holds_the_newest_run_and_starts_it_when_the_active_one_ends() -> None:
    # Kubernetes' CronJob controller under Forbid: while a Job is active its lastScheduleTime
    # stays put, so when the Job ends the newest missed schedule starts; the older ones never.
    engine = fleet()
    every_10_for_25(engine, OverlapRule(Overlap.BUFFER_LATEST))
    run(engine, 100)
    # 0 runs 0-25: 10 is held, then 20 takes its place; 20 runs 25-50. At 50 run 20 ends as
    # 50 falls due: the newest schedule at 50 is 50 itself, which starts (40 never does).
    assert starts(engine) == [(0, 0), (25, 20), (50, 50), (75, 70), (100, 100)]
    assert [(e.tick, e.scheduled) for e in of(engine, ev.OccurrenceHeld)] == [
        (10, 10),
        (20, 20),
        (30, 30),
        (40, 40),
        (60, 60),
        (70, 70),
        (80, 80),
        (90, 90),
    ]
    replaced = of(engine, ev.OccurrenceCancelled)
    assert [(e.tick, e.scheduled) for e in replaced] == [
        (20, 10),
        (40, 30),
        (50, 40),
        (70, 60),
        (90, 80),
        (100, 90),
    ]
    assert {(e.reason, e.cause) for e in replaced} == {(CancelReason.REPLACED, "BufferLatest")}
    assert [(e.tick, e.scheduled) for e in of(engine, ev.OccurrenceReleased)] == [
        (25, 20),
        (75, 70),
    ]
    assert engine.query.run_state("j", 90) is S.CANCELLED  # 100 took its place
    assert engine.query.run_state("j", 100) is S.RUNNING
    assert of(engine, ev.AttemptTerminated) == []  # the active run is never touched


@pytest.mark.parametrize(
    ("deadline", "expected"), [(5, [0, 20, 50, 70, 100]), (3, [0, 30, 60, 90])]
)
def test_a_held_run_expires_at_the_jobs_start_deadline(deadline: int, expected: list[int]) -> None:
    # startingDeadlineSeconds: the newest missed schedule starts only while it is no later than
    # the deadline; past it the controller waits for the next schedule.
    engine = fleet()
    every_10_for_25(engine, OverlapRule(Overlap.BUFFER_LATEST), start_deadline=deadline)
    run(engine, 100)
    assert [scheduled for _, scheduled in starts(engine)] == expected
    if deadline == 3:
        expired = [(e.tick, e.scheduled) for e in of(engine, ev.RunExpired)]
        assert expired == [(14, 10), (24, 20), (44, 40), (54, 50), (74, 70), (84, 80)]


def test_buffer_latest_behind_a_long_run_keeps_one_run_waiting() -> None:
    engine = fleet(workers=1)
    spec = JobSpec("j", Every(0, 1), duration=1_000, overlap=OverlapRule(Overlap.BUFFER_LATEST))
    assert engine.apply(ScheduleJob(spec)).accepted
    run(engine, 999)
    job = engine.query.job("j")
    assert job.held == 999 and len(job.open) == 2  # the running run and the newest one
    run(engine, 1_000)
    assert starts(engine)[-1] == (1_000, 1_000)
