"""Backfill over a range (Airflow's ``dags backfill``, Temporal's schedule backfill): the runs of
the range that do not exist, created in parallel or in order, through the engine's own rules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_fingerprint import state_fingerprint

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import (
    BackfillJob,
    CancelOccurrence,
    DeleteJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
    ScriptFailure,
)
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.records import BackfillOrder, Job, JobSpec, OccurrenceState
from engine.play.history import History
from engine.play.ticks import Phase, TimedCommand
from engine.rules.backfill import BackfillError
from engine.schedules.kinds import Every, Once

S = OccurrenceState
SEQUENTIAL, PARALLEL = BackfillOrder.SEQUENTIAL, BackfillOrder.PARALLEL


def skipped_for_a_while(workers: int = 4, **fields: object) -> Engine:
    """``etl`` every 10 ticks, paused at 5 and resumed at 95 without catching up: 10 to 90 were
    skipped; it is tick 100."""
    engine = Engine()
    for number in range(workers):
        engine.apply(RegisterWorker(f"w{number}"))
    spec = JobSpec("etl", Every(0, 10), duration=3, **fields)  # type: ignore[arg-type]
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(5)
    assert engine.apply(PauseJob("etl")).accepted
    engine.advance(95)
    assert engine.apply(ResumeJob("etl")).accepted
    engine.advance(100)
    return engine


def backfilled(engine: Engine, job: str = "etl") -> list[int]:
    return [e.scheduled for e in engine.log if isinstance(e, ev.RunBackfilled) and e.job_id == job]


def started(engine: Engine, job: str = "etl") -> dict[int, int]:
    """When each run of ``job`` started."""
    return {
        e.scheduled: e.tick
        for e in engine.log
        if isinstance(e, ev.AttemptStarted) and e.job_id == job and e.attempt == 1
    }


def test_parallel_creates_the_missing_runs_at_once() -> None:
    engine = skipped_for_a_while()
    result = engine.apply(BackfillJob("etl", 0, 60))
    assert (result.outcome, result.value) == (Outcome.OK, 6)
    engine.advance(101)
    assert backfilled(engine) == [10, 20, 30, 40, 50, 60]
    assert {10, 20, 30} <= {t for t, at in started(engine).items() if at == 100}  # 4 workers
    engine.advance(200)
    ran = [*range(0, 70, 10), *range(100, 200, 10)]
    assert all(engine.query.run_state("etl", t) is S.SUCCEEDED for t in ran)
    assert violations(engine) == []


def test_runs_that_exist_are_not_created_twice_and_the_log_says_so() -> None:
    engine = skipped_for_a_while()
    engine.apply(BackfillJob("etl", 0, 100))
    engine.advance(101)
    existing = [e.scheduled for e in engine.log if isinstance(e, ev.BackfillRunExists)]
    assert existing[0] == 0  # ran before the pause
    assert 100 in existing  # the schedule's own run
    assert backfilled(engine) == list(range(10, 91, 10))
    assert violations(engine) == []


def test_sequential_creates_each_run_once_the_one_before_is_final() -> None:
    engine = skipped_for_a_while()
    engine.apply(BackfillJob("etl", 10, 40, SEQUENTIAL))
    engine.advance(200)
    assert [started(engine)[t] for t in (10, 20, 30, 40)] == [100, 103, 106, 109]
    assert [e.tick for e in engine.log if isinstance(e, ev.BackfillFinished)] == [112]
    assert violations(engine) == []


def test_sequential_goes_on_after_a_failed_run() -> None:
    engine = skipped_for_a_while()
    engine.apply(ScriptFailure("etl", 1))
    engine.apply(BackfillJob("etl", 10, 30, SEQUENTIAL))
    engine.advance(200)
    assert [started(engine)[t] for t in (10, 20, 30)] == [100, 103, 106]
    assert engine.query.run_state("etl", 20) is S.FAILED
    assert violations(engine) == []


def test_sequential_goes_on_after_a_cancelled_run() -> None:
    engine = skipped_for_a_while(workers=0)
    engine.apply(BackfillJob("etl", 10, 30, SEQUENTIAL))
    assert backfilled(engine) == [10]
    assert engine.apply(CancelOccurrence("etl", 10)).accepted
    assert backfilled(engine) == [10, 20]
    assert engine.apply(CancelOccurrence("etl", 20)).accepted
    assert backfilled(engine) == [10, 20, 30]


def test_the_range_must_have_passed_and_the_job_must_recur() -> None:
    engine = skipped_for_a_while()
    assert engine.apply(BackfillJob("etl", 0, 101)).outcome is Outcome.INVALID
    assert engine.apply(BackfillJob("etl", 50, 40)).outcome is Outcome.INVALID
    assert engine.apply(BackfillJob("nope", 0, 10)).outcome is Outcome.NOT_FOUND
    engine.apply(ScheduleJob(JobSpec("once", Once(100))))
    assert engine.apply(BackfillJob("once", 0, 100)).outcome is Outcome.INVALID
    assert engine.apply(BackfillJob("etl", 10, 20, SEQUENTIAL)).accepted
    assert engine.apply(BackfillJob("etl", 30, 40)).outcome is Outcome.CONFLICT  # under way
    refused = [e for e in engine.log if isinstance(e, ev.BackfillStarted)]
    assert len(refused) == 1  # a refused backfill changes nothing


def test_a_range_beyond_max_runs_is_refused_after_counting_max_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A billion ticks of a job every 60: refused, at the cost of max_runs schedule steps."""
    engine = Engine()
    engine.apply(ScheduleJob(JobSpec("hourly", Every(0, 60))))
    engine.advance(10**9)
    steps = 0
    first_fire = Job.first_fire

    def counted(job: Job, tick: int) -> int | None:
        nonlocal steps
        steps += 1
        return first_fire(job, tick)

    monkeypatch.setattr(Job, "first_fire", counted)
    result = engine.apply(BackfillJob("hourly", 0, 10**9, max_runs=500))
    assert result.outcome is Outcome.INVALID
    assert "more than 500 runs" in (result.message or "")
    assert steps <= 502
    assert not any(isinstance(e, ev.BackfillStarted) for e in engine.log)


def test_the_dry_run_lists_what_the_backfill_creates() -> None:
    engine = skipped_for_a_while()
    planned = engine.query.backfill_plan(BackfillJob("etl", 0, 100))
    assert planned.create == tuple(range(10, 91, 10))
    assert planned.exist == (0, 100)
    engine.apply(BackfillJob("etl", 0, 100))
    assert tuple(backfilled(engine)) == planned.create
    with pytest.raises(BackfillError, match="max_runs"):
        engine.query.backfill_plan(BackfillJob("etl", 0, 100, max_runs=3))


def test_a_backfilled_run_waits_for_the_upstream_run_of_its_logical_time() -> None:
    engine = Engine()
    for worker in ("w1", "w2", "w3"):
        engine.apply(RegisterWorker(worker))
    engine.advance(100)
    engine.apply(ScheduleJob(JobSpec("extract", Every(0, 20), duration=5)))
    downstream = JobSpec("transform", Every(0, 20), duration=5, depends_on=("extract",))
    engine.apply(ScheduleJob(downstream))
    engine.apply(BackfillJob("extract", 20, 60, SEQUENTIAL))
    engine.apply(BackfillJob("transform", 20, 60))
    engine.advance(200)
    extract, transform = started(engine, "extract"), started(engine, "transform")
    for tick in (20, 40, 60):
        assert transform[tick] >= extract[tick] + 5  # after its extract run ended
    assert violations(engine) == []


def test_an_upstream_failure_cascades_to_the_backfilled_run() -> None:
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.advance(100)
    engine.apply(ScheduleJob(JobSpec("extract", Every(0, 20), duration=5)))
    downstream = JobSpec("transform", Every(0, 20), duration=5, depends_on=("extract",))
    engine.apply(ScheduleJob(downstream))
    engine.apply(ScriptFailure("extract", 1))
    engine.apply(BackfillJob("extract", 20, 20))
    engine.apply(BackfillJob("transform", 20, 20))
    engine.advance(150)
    assert engine.query.run_state("extract", 20) is S.FAILED
    assert engine.query.run_state("transform", 20) is S.CANCELLED
    assert violations(engine) == []


def test_deleting_the_job_ends_its_backfill() -> None:
    engine = skipped_for_a_while(workers=0)
    engine.apply(BackfillJob("etl", 10, 90, SEQUENTIAL))
    engine.advance(101)
    assert engine.apply(DeleteJob("etl")).accepted
    engine.advance(200)
    assert backfilled(engine) == [10]
    assert engine.query.job("etl").backfill is None


TIMELINE = [
    TimedCommand(0, Phase.AFTER_EVENTS, RegisterWorker("w1")),
    TimedCommand(0, Phase.AFTER_EVENTS, RegisterWorker("w2")),
    TimedCommand(0, Phase.AFTER_EVENTS, ScheduleJob(JobSpec("a", Every(0, 7), duration=4))),
    TimedCommand(
        0,
        Phase.AFTER_EVENTS,
        ScheduleJob(JobSpec("b", Every(0, 7), duration=2, depends_on=("a",))),
    ),
    TimedCommand(3, Phase.AFTER_EVENTS, PauseJob("a")),
    TimedCommand(40, Phase.AFTER_EVENTS, ResumeJob("a")),
]


@settings(max_examples=25)
@given(
    at=st.integers(41, 60),
    first=st.integers(0, 40),
    length=st.integers(0, 40),
    order=st.sampled_from(BackfillOrder),
    job=st.sampled_from(["a", "b"]),
    back=st.integers(0, 60),
)
def test_rewinding_past_a_backfill_restores_the_state(
    at: int, first: int, length: int, order: BackfillOrder, job: str, back: int
) -> None:
    """Forward past a backfill, back to any tick, forward again: each state is a fresh run's."""
    command = TimedCommand(
        at, Phase.AFTER_EVENTS, BackfillJob(job, first, min(first + length, at), order)
    )
    history = History(Engine, [*TIMELINE, command], until=120)
    history.seek(120)
    after = state_fingerprint(history.engine)
    assert violations(history.engine) == []
    history.seek(back)
    fresh = History(Engine, [*TIMELINE, command], until=120)
    fresh.seek(back)
    assert state_fingerprint(history.engine) == state_fingerprint(fresh.engine)
    history.seek(120)
    assert state_fingerprint(history.engine) == after


@pytest.mark.parametrize("policy", [Overlap.FORBID, Overlap.REPLACE, Overlap.BUFFER_ALL])
@pytest.mark.parametrize("order", [PARALLEL, SEQUENTIAL])
def test_a_backfill_waits_for_a_slot_under_the_jobs_overlap_limit(
    policy: Overlap, order: BackfillOrder
) -> None:
    """Airflow's backfill keeps max_active_runs: the backfilled runs take the job's slots one at a
    time, each waiting for a free one rather than being skipped or taking another's place (a run
    falling due later may still replace one under Replace, as any active run), and the limit
    holds at every tick."""
    engine = skipped_for_a_while(overlap=OverlapRule(policy, 1))
    assert engine.apply(BackfillJob("etl", 0, 40, order)).accepted
    engine.advance(130)
    assert backfilled(engine) == [10, 20, 30, 40]
    runs = started(engine)
    ended = {S.SUCCEEDED, S.CANCELLED} if policy is Overlap.REPLACE else {S.SUCCEEDED}
    assert all(engine.query.run_state("etl", t) in ended for t in (10, 20, 30, 40))
    if policy is not Overlap.REPLACE:
        assert all(t in runs for t in (10, 20, 30, 40)), "each started: none skipped"
    spans = sorted((runs[t], runs[t] + 3) for t in runs)
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    assert violations(engine) == []
