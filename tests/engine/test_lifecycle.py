"""Changing jobs after they are scheduled: create, get, modify, cancel, delete, pause, resume.

Each command answers a typed :class:`Outcome` whose value is the HTTP status an API would send
(seed 003: 201 created, 200 ok, 404 not found, 409 conflict, 422 invalid). The rules under test are
the ones decided in ``engine/parts/lifecycle.py``; every expected tick is worked out in the
comments.
"""

from __future__ import annotations

import pytest

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import (
    CancelOccurrence,
    Complete,
    DeleteJob,
    Dispatch,
    ModifyJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    Result,
    ResumeJob,
    ScheduleJob,
)
from engine.model.policies import (
    CompletionMode,
    DispatchMode,
    DispatchOrder,
    DoomedSubmission,
    Policy,
    RunningJobChanges,
)
from engine.model.records import (
    CancelReason,
    CatchUp,
    Channel,
    JobSpec,
    NotifyOn,
    OccurrenceState,
    Subscription,
)
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def make(workers: int = 1, **policy: object) -> Engine:
    """An engine whose jobs may be changed while they run (``running_job_changes: allow``): most
    tests here change a job while its runs pile up behind a running one. The default, seed 003's
    refusal, has tests of its own (``test_seed_003_*``)."""
    policy.setdefault("running_job_changes", RunningJobChanges.ALLOW)
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).outcome is Outcome.CREATED
    return engine


def add(engine: Engine, job_id: str, schedule, **fields: object) -> None:
    result = engine.apply(ScheduleJob(JobSpec(job_id, schedule, **fields)))  # type: ignore[arg-type]
    assert result == Result(Outcome.CREATED, job_id)


def at(engine: Engine, tick: int, command) -> Result:
    """Give ``command`` at ``tick`` in the documented order: the tick's own events run first."""
    engine.advance(tick)
    engine.begin_tick()
    return engine.apply(command)


def started(engine: Engine, job_id: str | None = None) -> list[tuple[int, str, int, int]]:
    """(tick, job, scheduled, attempt) of every attempt start."""
    return [
        (e.tick, e.job_id, e.scheduled, e.attempt)
        for e in engine.log
        if isinstance(e, ev.AttemptStarted) and job_id in (None, e.job_id)
    ]


def state_snapshot(engine: Engine) -> tuple:
    return (
        len(engine.log),
        {k: (o.state, len(o.attempts)) for k, o in engine.query.records().items()},
        {
            j: (job.spec, job.next_due, job.paused_through, job.deleted)
            for j, job in engine.query.jobs().items()
        },
    )


# ------------------------------------------------------------------------ outcomes and HTTP codes


def test_outcomes_carry_the_seed_http_codes() -> None:
    assert {o.name: o.value for o in Outcome} == {
        "CREATED": 201,
        "OK": 200,
        "NOT_FOUND": 404,
        "CONFLICT": 409,
        "INVALID": 422,
    }
    assert [o for o in Outcome if o.accepted] == [Outcome.CREATED, Outcome.OK]


def test_create_returns_the_id_with_201_and_get_finds_it() -> None:
    engine = make()
    result = engine.apply(ScheduleJob(JobSpec("report", Once(10), priority=2)))
    assert (result.outcome.value, result.value) == (201, "report")
    got = engine.query.live_job("report")
    assert got is engine.query.job("report")
    assert got.spec.priority == 2
    assert engine.query.live_job("nope") is None


@pytest.mark.parametrize(
    ("spec", "outcome"),
    [
        (JobSpec("dup", Once(1)), Outcome.CONFLICT),
        (JobSpec("x", Once(1), max_attempts=0), Outcome.INVALID),
        (JobSpec("x", Once(1), duration=0), Outcome.INVALID),
        (JobSpec("x", Once(1), timeout=0), Outcome.INVALID),
        (JobSpec("x", Once(1), failure_rate=1.5), Outcome.INVALID),
        (JobSpec("x", Once(1), depends_on=("ghost",)), Outcome.INVALID),
        (JobSpec("x", Once(1), pool="ghost"), Outcome.INVALID),
    ],
)
def test_create_rejections_change_nothing(spec: JobSpec, outcome: Outcome) -> None:
    engine = make()
    add(engine, "dup", Once(5))
    add(engine, "recurring", Every(0, 10))
    before = state_snapshot(engine)
    result = engine.apply(ScheduleJob(spec))
    assert result.outcome is outcome and result.message
    assert state_snapshot(engine) == before


def test_each_command_outcome() -> None:
    # "a" every 10 from 0, lasting 5: a@0 runs over [0, 5).
    engine = make()
    add(engine, "a", Every(0, 10), duration=5)
    add(engine, "once", Once(100))
    engine.advance(2)
    codes = {
        "modify ok": engine.apply(ModifyJob.of("a", payload="v2")),
        "modify unknown job": engine.apply(ModifyJob.of("ghost", priority=1)),
        "modify unknown field": engine.apply(ModifyJob("a", (("job_id", "b"),))),
        "modify bad value": engine.apply(ModifyJob.of("a", max_attempts=0)),
        "cancel running": engine.apply(CancelOccurrence("a", 0)),
        "cancel not in schedule": engine.apply(CancelOccurrence("a", 5)),
        "cancel unknown job": engine.apply(CancelOccurrence("ghost")),
        "cancel future": engine.apply(CancelOccurrence("a", 30)),
        "cancel twice": engine.apply(CancelOccurrence("a", 30)),
        "delete running": engine.apply(DeleteJob("a")),
        "delete unknown": engine.apply(DeleteJob("ghost")),
        "pause": engine.apply(PauseJob("a")),
        "pause again": engine.apply(PauseJob("a")),
        "pause unknown": engine.apply(PauseJob("ghost")),
        "resume": engine.apply(ResumeJob("a")),
        "resume again": engine.apply(ResumeJob("a")),
        "resume unknown": engine.apply(ResumeJob("ghost")),
        "delete once": engine.apply(DeleteJob("once")),
        "delete deleted": engine.apply(DeleteJob("once")),
        "modify deleted": engine.apply(ModifyJob.of("once", priority=1)),
        "cancel deleted": engine.apply(CancelOccurrence("once")),
        "pause deleted": engine.apply(PauseJob("once")),
        "reuse a deleted id": engine.apply(ScheduleJob(JobSpec("once", Once(200)))),
    }
    assert {name: r.outcome.value for name, r in codes.items()} == {
        "modify ok": 200,
        "modify unknown job": 404,
        "modify unknown field": 422,
        "modify bad value": 422,
        "cancel running": 409,
        "cancel not in schedule": 404,
        "cancel unknown job": 404,
        "cancel future": 200,
        "cancel twice": 409,
        "delete running": 409,
        "delete unknown": 404,
        "pause": 200,
        "pause again": 409,
        "pause unknown": 404,
        "resume": 200,
        "resume again": 409,
        "resume unknown": 404,
        "delete once": 200,
        "delete deleted": 404,
        "modify deleted": 404,
        "cancel deleted": 404,
        "pause deleted": 404,
        "reuse a deleted id": 409,
    }
    assert codes["cancel future"].value == 30
    assert "job_id" in codes["modify unknown field"].message
    assert violations(engine) == []


def test_a_rejected_lifecycle_command_changes_nothing() -> None:
    engine = make()
    add(engine, "a", Every(0, 10), duration=5)
    engine.advance(2)
    before = state_snapshot(engine)
    for command in (
        ModifyJob.of("a", duration=0),
        ModifyJob.of("a", depends_on=()),
        CancelOccurrence("a", 0),
        DeleteJob("a"),
        ResumeJob("a"),
    ):
        assert not engine.apply(command).accepted
    assert state_snapshot(engine) == before


# ----------------------------------------------------------------------------------------- modify


def backlog_engine() -> Engine:
    """Seed 000 style: manual dispatch, reported completion, one worker.

    a (every 10 from 0, priority 0): the dispatch at 0 starts a@0 on w1; the dispatch at 30 creates
    a@10, a@20 and a@30, which wait (implicitly) because w1 is busy. b (once at 30, priority 1).
    """
    engine = make(
        order=DispatchOrder.PRIORITY,
        dispatch=DispatchMode.MANUAL,
        completion=CompletionMode.REPORTED,
    )
    add(engine, "a", Every(0, 10), priority=0)
    assert [x.scheduled for x in engine.apply(Dispatch()).value] == [0]
    engine.advance(30)
    add(engine, "b", Once(30), priority=1)
    assert engine.apply(Dispatch()).value == []
    assert [engine.query.run_state("a", t) for t in (10, 20, 30, 40)] == [S.QUEUED] * 3 + [
        S.SCHEDULED
    ]
    return engine


def test_modify_keeps_the_definition_of_the_implicit_backlog() -> None:
    engine = backlog_engine()
    assert engine.apply(ModifyJob.of("a", priority=5)).accepted
    # The three waiting occurrences were materialised with the old priority 0.
    assert {k: o.priority for k, o in engine.query.records().items()} == {
        ("a", 0): 0,
        ("a", 10): 0,
        ("a", 20): 0,
        ("a", 30): 0,
    }
    assert engine.apply(Complete("a", 0, 1, True)).accepted
    # Dispatch at 30: b (priority 1) beats the backlog (still priority 0). Had the backlog taken
    # priority 5, a@10 would go first.
    assert [(x.job_id, x.scheduled) for x in engine.apply(Dispatch()).value] == [("b", 30)]
    engine.advance(40)
    assert engine.apply(Complete("b", 30, 1, True)).accepted
    # Dispatch at 40 creates a@40 with the new priority 5: it beats the older a@10..a@30.
    assert [(x.job_id, x.scheduled) for x in engine.apply(Dispatch()).value] == [("a", 40)]
    assert engine.query.record("a", 40).priority == 5
    for scheduled, following in ((40, 10), (10, 20), (20, 30)):
        assert engine.apply(Complete("a", scheduled, 1, True)).accepted
        assert [x.scheduled for x in engine.apply(Dispatch()).value] == [following]
    assert started(engine, "a") == [
        (t, "a", s, 1) for t, s in [(0, 0), (40, 40), (40, 10), (40, 20), (40, 30)]
    ]
    assert violations(engine) == []


def test_modify_max_attempts_applies_to_occurrences_created_after_it() -> None:
    engine = backlog_engine()
    assert engine.apply(ModifyJob.of("a", max_attempts=2)).accepted
    # a@0 (running) and the backlog a@10..a@30 keep max_attempts 1: one failure is final.
    # (Dispatch order: b@30 has priority 1, so it runs between a@0 and the backlog.)
    assert engine.apply(Complete("a", 0, 1, False)).accepted
    assert [x.job_id for x in engine.apply(Dispatch()).value] == ["b"]
    assert engine.apply(Complete("b", 30, 1, True)).accepted
    for scheduled in (10, 20, 30):
        assert [x.scheduled for x in engine.apply(Dispatch()).value] == [scheduled]
        assert engine.apply(Complete("a", scheduled, 1, False)).accepted
    for scheduled in (0, 10, 20, 30):
        assert engine.query.record("a", scheduled).state is S.FAILED
        assert engine.query.record("a", scheduled).max_attempts == 1
    engine.advance(40)
    # a@40 is created after the change: its first failure is retried.
    assert [x.scheduled for x in engine.apply(Dispatch()).value] == [40]
    mark = engine.log.mark()
    assert engine.apply(Complete("a", 40, 1, False)).accepted
    assert engine.log.since(mark) == [
        ev.AttemptFailed(40, "a", 40, 1, "w1"),
        ev.RetryScheduled(40, "a", 40, 2, 40, 0),
    ]


def test_modify_does_not_cost_the_size_of_the_backlog() -> None:
    # Manual dispatch: a@0 runs; the dispatch at 20,000 creates a@1..a@20000 implicitly (one
    # record exists). A modify must keep their definition without creating 20,000 records
    # (under FIFO: an order that uses priority materialises them, see the module's docstring).
    engine = make(
        order=DispatchOrder.FIFO, dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED
    )
    add(engine, "a", Every(0, 1))
    engine.apply(Dispatch())
    engine.advance(20_000)
    engine.apply(Dispatch())
    assert len(engine.query.records()) == 1
    assert engine.apply(ModifyJob.of("a", priority=5)).accepted
    assert len(engine.query.records()) < 100


def test_a_running_attempt_is_never_lost_by_a_modify() -> None:
    # a@0 runs over [0, 10). At 5 every modifiable field changes; the attempt still ends at 10
    # with its own duration and no timeout (the new timeout of 2 would have reaped it at 2).
    engine = make()
    add(engine, "a", Once(0), duration=10)
    mark = engine.log.mark()
    change = ModifyJob.of(
        "a",
        schedule=Every(100, 50),
        payload="new",
        priority=9,
        max_attempts=3,
        timeout=2,
        duration=1,
        catch_up=CatchUp.ALL,
    )
    assert at(engine, 5, change).accepted
    engine.advance(160)
    assert engine.log.since(mark) == [
        ev.AttemptStarted(0, "a", 0, 1, "w1"),
        ev.JobModified(
            5,
            "a",
            ("catch_up", "duration", "max_attempts", "payload", "priority", "schedule", "timeout"),
        ),
        ev.AttemptSucceeded(10, "a", 0, 1, "w1"),
        # Future occurrences follow the new schedule (every 50 from 100) and duration (1).
        ev.AttemptStarted(100, "a", 100, 1, "w1"),
        ev.AttemptSucceeded(101, "a", 100, 1, "w1"),
        ev.AttemptStarted(150, "a", 150, 1, "w1"),
        ev.AttemptSucceeded(151, "a", 150, 1, "w1"),
    ]
    assert engine.query.job("a").spec.payload == "new"
    assert violations(engine) == []


def test_modify_schedule_moves_future_occurrences() -> None:
    # Every 10 from 0; at 12 (a@0 and a@10 done) the schedule becomes every 7 from 5:
    # 5, 12, 19, 26 ... from now on: a@12 falls due at once, then 19, 26.
    engine = make()
    add(engine, "a", Every(0, 10))
    assert at(engine, 12, ModifyJob.of("a", schedule=Every(5, 7))).accepted
    engine.advance(27)
    assert [(t, s) for t, _, s, _ in started(engine)] == [
        (0, 0),
        (10, 10),
        (12, 12),
        (19, 19),
        (26, 26),
    ]


def test_modifying_a_dependency_cannot_unblock_its_dependents_early() -> None:
    # D depends on X (once at 5) and Y (once at 100). X's schedule becomes every 10 from 5:
    # X@5 succeeds at 6 (D still waits for Y), X@15 succeeds at 16 and counts a second time, so
    # the engine would run D at 16 with Y not run. The modify is refused (422): a job others
    # depend on stays a one-time job.
    engine = make()
    add(engine, "X", Once(5))
    add(engine, "Y", Once(100))
    add(engine, "D", Once(0), depends_on=("X", "Y"))
    result = engine.apply(ModifyJob.of("X", schedule=Every(5, 10)))
    engine.advance(30)
    assert result.outcome is Outcome.INVALID
    assert started(engine, "D") == []
    assert engine.query.job("D").unmet_dependencies == 1


def test_modify_after_the_backlog_ran_out_applies_whole() -> None:
    # One worker. blocker@0 runs over [0, 5), so c@0 waits implicitly; the timeout change at 1
    # leaves it its old definition (Job.backlog). c@0 runs over [5, 6) and the job has no run
    # left. At 10 the run moves to 20: the modify is accepted, logged, and c@20 runs, once.
    # (It used to raise TypeError half-way, with the new spec kept and nothing logged.)
    engine = make()
    add(engine, "blocker", Once(0), duration=5)
    add(engine, "c", Once(0))
    assert at(engine, 1, ModifyJob.of("c", timeout=4)).accepted
    assert at(engine, 10, ModifyJob.of("c", schedule=Once(20))) == Result(Outcome.OK)
    assert engine.log[-1] == ev.JobModified(10, "c", ("schedule",))
    engine.advance(30)
    assert started(engine, "c") == [(5, "c", 0, 1), (20, "c", 20, 1)]
    assert engine.query.record("c", 20).timeout == 4
    assert violations(engine) == []


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        (Once(5), "run time 5 is before the current time 10"),
        (Once(9), "run time 9 is before the current time 10"),
    ],
)
def test_schedule_refuses_a_run_time_in_the_past(schedule, message: str) -> None:
    engine = make()
    engine.advance(10)
    before = state_snapshot(engine)
    result = engine.apply(ScheduleJob(JobSpec("late", schedule)))
    assert (result.outcome, result.message) == (Outcome.INVALID, message)
    assert result.outcome.value == 422
    assert state_snapshot(engine) == before and "late" not in engine.query.jobs()


def test_schedule_accepts_a_run_time_now_and_a_recurring_start_in_the_past() -> None:
    # Once(10) at 10 is due now. Every(5, 10) at 10 still has runs to come (15, 25, ...): it
    # runs from its first run at or after now; its past run at 5 is not an occurrence.
    engine = make(workers=2)
    engine.advance(10)
    add(engine, "now", Once(10))
    add(engine, "rec", Every(5, 10))
    engine.advance(26)
    assert started(engine) == [(10, "now", 10, 1), (15, "rec", 15, 1), (25, "rec", 25, 1)]
    assert engine.query.run_state("rec", 5) is None


def test_modify_refuses_a_run_time_in_the_past() -> None:
    engine = make()
    add(engine, "a", Once(50))
    engine.advance(10)
    before = state_snapshot(engine)
    result = engine.apply(ModifyJob.of("a", schedule=Once(5), priority=3))
    assert (result.outcome, result.message) == (
        Outcome.INVALID,
        "run time 5 is before the current time 10",
    )
    assert state_snapshot(engine) == before
    engine.advance(60)
    assert started(engine, "a") == [(50, "a", 50, 1)]


# ----------------------------------------------------------------------------------------- cancel


def test_cancel_next_cancels_the_earliest_occurrence_not_started() -> None:
    # Every 10 from 0. At 12, a@0 and a@10 are done; the next is a@20 (SCHEDULED): cancelled, it
    # never runs, and the job goes on with a@30.
    engine = make()
    add(engine, "a", Every(0, 10))
    result = at(engine, 12, CancelOccurrence("a"))
    assert result == Result(Outcome.OK, 20)
    assert engine.log[-1] == ev.OccurrenceCancelled(12, "a", 20, CancelReason.USER, None)
    engine.advance(35)
    assert [s for _, _, s, _ in started(engine)] == [0, 10, 30]
    assert engine.query.record("a", 20).state is S.CANCELLED
    assert engine.query.run_state("a", 20) is S.CANCELLED


def test_cancel_a_future_scheduled_tick_then_the_job_skips_it() -> None:
    engine = make()
    add(engine, "a", Every(0, 10))
    assert at(engine, 3, CancelOccurrence("a", 40)) == Result(Outcome.OK, 40)
    assert engine.query.run_state("a", 40) is S.CANCELLED
    assert engine.query.run_state("a", 30) is S.SCHEDULED
    engine.advance(61)
    assert [s for _, _, s, _ in started(engine)] == [0, 10, 20, 30, 50, 60]
    assert violations(engine) == []


def test_cancel_next_while_one_runs_skips_the_running_one() -> None:
    # a@0 runs over [0, 5): cancelling it is a conflict; "cancel next" takes a@10, the earliest
    # occurrence that has not started.
    engine = make()
    add(engine, "a", Every(0, 10), duration=5)
    conflict = at(engine, 2, CancelOccurrence("a", 0))
    assert conflict.outcome is Outcome.CONFLICT and "RUNNING" in conflict.message
    assert engine.apply(CancelOccurrence("a")) == Result(Outcome.OK, 10)
    engine.advance(25)
    assert [s for _, _, s, _ in started(engine)] == [0, 20]
    assert engine.query.record("a", 0).state is S.SUCCEEDED


def test_cancel_a_queued_occurrence_in_the_backlog() -> None:
    # One worker held by a blocker over [0, 30); "a" every 10 from 5 falls due at 5 and 15 and
    # waits. Cancelling a@15 (QUEUED, implicit) leaves a@5, which runs at 30; a@25 runs at 31.
    engine = make()
    add(engine, "blocker", Once(0), duration=30, priority=9)
    add(engine, "a", Every(5, 10))
    assert at(engine, 15, CancelOccurrence("a", 15)) == Result(Outcome.OK, 15)
    assert engine.query.run_state("a", 5) is S.QUEUED
    engine.advance(40)
    assert [(t, s) for t, j, s, _ in started(engine, "a")] == [(30, 5), (31, 25), (35, 35)]
    assert violations(engine) == []


def test_cancel_retry_pending_means_no_further_attempt() -> None:
    # Attempt 1 fails at 1; fixed backoff 10 makes it RETRY_PENDING until 11. Cancel at 4.
    from engine.model.backoff import Backoff, BackoffKind

    engine = make()
    add(
        engine,
        "a",
        Once(0),
        max_attempts=3,
        fail_attempts=frozenset({1}),
        backoff=Backoff(BackoffKind.FIXED, base=10),
    )
    engine.advance(4)
    assert engine.query.run_state("a", 0) is S.RETRY_PENDING
    assert engine.apply(CancelOccurrence("a")) == Result(Outcome.OK, 0)
    occurrence = engine.query.record("a", 0)
    assert (occurrence.state, occurrence.eligible_at) == (S.CANCELLED, None)
    engine.advance(50)
    assert started(engine) == [(0, "a", 0, 1)]
    assert engine.apply(CancelOccurrence("a")).outcome is Outcome.NOT_FOUND  # nothing left
    assert engine.apply(CancelOccurrence("a", 0)).outcome is Outcome.CONFLICT  # final


def test_cancel_a_finished_occurrence_is_a_conflict() -> None:
    engine = make()
    add(engine, "a", Every(0, 10))
    engine.advance(5)
    assert engine.query.run_state("a", 0) is S.SUCCEEDED
    assert engine.apply(CancelOccurrence("a", 0)).outcome is Outcome.CONFLICT


def test_cancelling_a_one_time_job_cancels_its_dependents() -> None:
    engine = make()
    add(engine, "build", Once(10))
    add(engine, "deploy", Once(0), depends_on=("build",))
    engine.advance(3)
    assert engine.query.run_state("deploy", 0) is S.BLOCKED
    assert engine.apply(CancelOccurrence("build")) == Result(Outcome.OK, 10)
    assert engine.log.since(len(engine.log) - 2) == [
        ev.OccurrenceCancelled(3, "build", 10, CancelReason.USER, None),
        ev.OccurrenceCancelled(3, "deploy", 0, CancelReason.CASCADE, "build"),
    ]
    engine.advance(20)
    assert started(engine) == []


# ----------------------------------------------------------------------------------------- delete


def test_delete_is_a_conflict_while_running_then_ok_and_history_stays() -> None:
    # a@0 runs over [0, 5). Delete at 2: conflict. Delete at 5 (a@0 ended at 5): ok.
    engine = make()
    add(engine, "a", Every(0, 10), duration=5)
    assert at(engine, 2, DeleteJob("a")).outcome is Outcome.CONFLICT
    assert not engine.query.job("a").deleted
    assert at(engine, 5, DeleteJob("a")) == Result(Outcome.OK)
    assert engine.log[-1] == ev.JobDeleted(5, "a")
    engine.advance(100)
    assert started(engine) == [(0, "a", 0, 1)]
    # History: the job record and its occurrences remain, marked deleted.
    assert engine.query.job("a").deleted
    assert engine.query.record("a", 0).state is S.SUCCEEDED
    assert engine.query.run_state("a", 10) is None
    view = engine.query.job_view("a")
    assert view is not None and (view.status, view.next_fire_times) == ("deleted", ())
    assert violations(engine) == []


def test_delete_cancels_materialised_waiting_occurrences() -> None:
    # a@0 fails at 1 and waits in RETRY_PENDING (backoff 10); a@40 was cancelled in advance.
    from engine.model.backoff import Backoff, BackoffKind

    engine = make()
    add(
        engine,
        "a",
        Every(0, 10),
        max_attempts=2,
        fail_attempts=frozenset({1}),
        backoff=Backoff(BackoffKind.FIXED, base=10),
    )
    engine.advance(3)
    mark = engine.log.mark()
    assert engine.apply(DeleteJob("a")).accepted
    assert engine.log.since(mark) == [
        ev.OccurrenceCancelled(3, "a", 0, CancelReason.DELETED, None),
        ev.JobDeleted(3, "a"),
    ]
    engine.advance(50)
    assert started(engine) == [(0, "a", 0, 1)]


def test_deleting_a_one_time_dependency_before_it_ran_cancels_dependents() -> None:
    engine = make()
    add(engine, "build", Once(10))
    add(engine, "deploy", Once(20), depends_on=("build",))
    assert engine.apply(DeleteJob("build")).accepted
    assert engine.query.record("build", 10).state is S.CANCELLED
    assert engine.query.record("build", 10).cancel_reason is CancelReason.DELETED
    assert engine.query.run_state("deploy", 20) is S.CANCELLED
    engine.advance(30)
    assert started(engine) == []


def test_delete_cancels_the_implicit_backlog_too() -> None:
    # Manual dispatch: the dispatch at 20 creates a@10 and a@20 (QUEUED, implicit) while w1 runs
    # b@0. Deleting a cancels both ("its waiting occurrences are cancelled") as one range, without
    # a record per occurrence, and they stay in history as CANCELLED.
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "b", Once(0))
    add(engine, "a", Every(10, 10))
    engine.apply(Dispatch())
    engine.advance(20)
    engine.apply(Dispatch())
    assert [engine.query.run_state("a", t) for t in (10, 20)] == [S.QUEUED, S.QUEUED]
    mark = engine.log.mark()
    assert engine.apply(DeleteJob("a")).accepted
    assert engine.log.since(mark) == [
        ev.BacklogCancelled(20, "a", 10, 20, 2, CancelReason.DELETED, None),
        ev.JobDeleted(20, "a"),
    ]
    assert [engine.query.run_state("a", t) for t in (10, 20, 30)] == [
        S.CANCELLED,
        S.CANCELLED,
        None,
    ]


# ---------------------------------------------------------------------------------- pause, resume


def paused_at_12(**fields: object) -> Engine:
    """a every 10 from 0 (duration 1): a@0 and a@10 ran, then it is paused at 12 after that tick's
    own events (so "created through 12"), and a@20, a@30 and a@40 fall due while paused."""
    engine = make()
    add(engine, "a", Every(0, 10), **fields)
    assert at(engine, 12, PauseJob("a")).accepted
    assert engine.log[-1] == ev.JobPaused(12, "a")
    engine.advance(45)
    assert started(engine) == [(0, "a", 0, 1), (10, "a", 10, 1)]  # nothing while paused
    assert engine.query.run_state("a", 20) is S.SCHEDULED
    assert engine.query.job_view("a").status == "paused"  # type: ignore[union-attr]
    return engine


@pytest.mark.parametrize(
    ("catch_up", "skipped", "runs"),
    [
        # skip: (12, 40] skipped; the next run is a@50.
        (CatchUp.SKIP, ev.OccurrencesSkipped(45, "a", 12, 40), [(50, 50)]),
        # latest: (12, 39] skipped; a@40 runs at 45, then a@50.
        (CatchUp.LATEST, ev.OccurrencesSkipped(45, "a", 12, 39), [(45, 40), (50, 50)]),
        # all: nothing skipped; a@20, a@30, a@40 run back to back on the one worker.
        (CatchUp.ALL, None, [(45, 20), (46, 30), (47, 40), (50, 50)]),
    ],
)
def test_resume_catch_up(catch_up: CatchUp, skipped, runs: list[tuple[int, int]]) -> None:
    engine = paused_at_12()
    mark = engine.log.mark()
    assert engine.apply(ResumeJob("a", catch_up)).accepted
    expected = [ev.JobResumed(45, "a", catch_up)] + ([skipped] if skipped else [])
    assert engine.log.since(mark) == expected
    engine.advance(51)
    assert [(t, s) for t, _, s, _ in started(engine)][2:] == runs
    for scheduled in (20, 30, 40):
        ran = any(s == scheduled for _, s in runs)
        assert (engine.query.run_state("a", scheduled) is S.SUCCEEDED) == ran
        assert ran or engine.query.run_state("a", scheduled) is None
    assert violations(engine) == []


def test_resume_uses_the_job_own_catch_up_choice_unless_overridden() -> None:
    engine = paused_at_12(catch_up=CatchUp.LATEST)
    assert engine.apply(ResumeJob("a")).accepted
    assert engine.log[-2:] == [
        ev.JobResumed(45, "a", CatchUp.LATEST),
        ev.OccurrencesSkipped(45, "a", 12, 39),
    ]
    engine = paused_at_12(catch_up=CatchUp.LATEST)
    assert engine.apply(ResumeJob("a", CatchUp.ALL)).accepted
    assert engine.log[-1] == ev.JobResumed(45, "a", CatchUp.ALL)


def test_resume_with_nothing_missed_skips_nothing() -> None:
    engine = make()
    add(engine, "a", Every(0, 10))
    assert at(engine, 12, PauseJob("a")).accepted
    assert at(engine, 18, ResumeJob("a", CatchUp.SKIP)).accepted
    assert engine.log[-1] == ev.JobResumed(18, "a", CatchUp.SKIP)
    engine.advance(21)
    assert [s for _, _, s, _ in started(engine)] == [0, 10, 20]


def test_pause_lets_occurrences_created_before_it_run() -> None:
    # A blocker holds w1 over [0, 30). a (every 10 from 5) has a@5 and a@15 due (and created) by
    # the pause at 15; they still run (30, 31) while a@25 and a@35, due while paused, do not.
    engine = make()
    add(engine, "blocker", Once(0), duration=30, priority=9)
    add(engine, "a", Every(5, 10))
    assert at(engine, 15, PauseJob("a")).accepted
    assert [engine.query.run_state("a", t) for t in (5, 15, 25)] == [
        S.QUEUED,
        S.QUEUED,
        S.SCHEDULED,
    ]
    engine.advance(40)
    assert [(t, s) for t, _, s, _ in started(engine, "a")] == [(30, 5), (31, 15)]
    assert at(engine, 40, ResumeJob("a", CatchUp.ALL)).accepted
    engine.advance(43)
    assert [(t, s) for t, _, s, _ in started(engine, "a")][2:] == [(40, 25), (41, 35)]


def test_pause_after_an_idle_jump_keeps_occurrences_that_fell_due_before_it() -> None:
    # A blocker holds w1 over [0, 100). a (every 10 from 1) falls due at 1, 11, 21, 31, all before
    # the pause at 35, so all four are QUEUED and all run after the blocker (100..103) despite the
    # skip-resume at 36. The engine last processed tick 1 (ticks 2..34 had nothing of its own to
    # do), reads a@11..a@31 as SCHEDULED, pauses "through 1" and skips (1, 31] on resume.
    engine = make()
    add(engine, "blocker", Once(0), duration=100, priority=9)
    add(engine, "a", Every(1, 10))
    engine.advance(35)
    states = [engine.query.run_state("a", t) for t in (1, 11, 21, 31)]
    assert engine.apply(PauseJob("a")).accepted
    engine.advance(36)
    assert engine.apply(ResumeJob("a", CatchUp.SKIP)).accepted
    engine.advance(104)
    assert states == [S.QUEUED] * 4
    assert [(t, s) for t, _, s, _ in started(engine, "a")] == [
        (100, 1),
        (101, 11),
        (102, 21),
        (103, 31),
    ]


def test_a_schedule_change_leaves_the_waiting_backlog_on_the_old_schedule_without_records() -> None:
    # FIFO, manual dispatch: a@0 runs; the dispatch at 30 creates a@10, a@20, a@30 (implicit).
    # At 30 the schedule becomes every 7 from 35 and max_attempts 3: the three waiting runs keep
    # the old definition (one attempt), the new schedule starts at the modify (35, 42, 49...),
    # and the old schedule's later ticks (40, 50...) are no longer occurrences.
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "a", Every(0, 10))
    engine.apply(Dispatch())
    engine.advance(30)
    engine.apply(Dispatch())
    records = len(engine.query.records())
    assert engine.apply(ModifyJob.of("a", schedule=Every(35, 7), max_attempts=3)).accepted
    assert len(engine.query.records()) == records
    assert [engine.query.run_state("a", t) for t in (10, 20, 30, 35, 40, 42)] == [
        S.QUEUED,
        S.QUEUED,
        S.QUEUED,
        S.SCHEDULED,
        None,
        S.SCHEDULED,
    ]
    taken = []
    for tick in (30, 31, 32, 36, 43):
        engine.advance(tick)
        running = [w.running for w in engine.query.workers().values() if w.running]
        for job_id, scheduled in running:
            attempt = engine.query.record(job_id, scheduled).running_attempt.number
            assert engine.apply(Complete(job_id, scheduled, attempt, True)).accepted
        taken += [
            (x.scheduled, engine.query.record("a", x.scheduled).max_attempts)
            for x in engine.apply(Dispatch()).value
        ]
    assert taken == [(10, 1), (20, 1), (30, 1), (35, 3), (42, 3)]
    assert violations(engine) == []


def test_a_job_a_cascade_cancelled_cannot_be_modified_back_to_life() -> None:
    """A new schedule used to give a cascaded job a fresh cursor: it ran although the job it
    depends on had failed for good."""
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("a", Once(0), fail_attempts=frozenset({1}))))
    engine.advance(5)
    assert engine.apply(ScheduleJob(JobSpec("b", Every(5, 5), depends_on=("a",)))).accepted
    result = engine.apply(ModifyJob.of("b", schedule=Every(10, 5)))
    assert result.outcome is Outcome.CONFLICT
    assert result.message == "b can never run: it was cancelled because a failed"
    engine.advance(40)
    assert not [e for e in engine.log if isinstance(e, ev.AttemptStarted) and e.job_id == "b"]


@pytest.mark.parametrize(
    ("doomed", "state"),
    [(DoomedSubmission.CANCEL, OccurrenceState.CANCELLED), (DoomedSubmission.WAIT, None)],
)
def test_a_job_submitted_behind_a_failed_dependency_follows_the_policy(doomed, state) -> None:
    """Scenarios cancel it at once (its run cannot come); seed 001 leaves it pending."""
    engine = Engine(Policy(doomed_submission=doomed))
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("a", Once(0), fail_attempts=frozenset({1}))))
    engine.advance(5)
    assert engine.apply(ScheduleJob(JobSpec("b", Once(5), depends_on=("a",)))).accepted
    engine.advance(10)
    cancelled = [e for e in engine.log if isinstance(e, ev.OccurrenceCancelled)]
    assert [(e.job_id, e.cause) for e in cancelled] == ([("b", "a")] if state else [])
    assert engine.query.run_state("b", 5) is (state or OccurrenceState.BLOCKED)


def test_modify_replaces_the_subscriptions_for_every_notification_from_then_on() -> None:
    engine = make()
    add(engine, "a", Every(0, 10))
    engine.advance(5)  # a@0 succeeded at 1, with no one to tell
    hook = Subscription(frozenset({NotifyOn.SUCCEEDED}), Channel.WEBHOOK, "http://hook")
    assert engine.apply(ModifyJob.of("a", notify=(hook,))).accepted
    engine.advance(15)
    assert [key[:2] for key in engine.query.notifications()] == [("a", 10)]
    assert engine.apply(ModifyJob.of("a", notify=())).accepted
    engine.advance(25)
    assert [key[:2] for key in engine.query.notifications()] == [("a", 10)]
