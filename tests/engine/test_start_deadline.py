"""``start_deadline: N``: a run that has not started N ticks after its scheduled tick expires
(Celery's ``expires``; Kubernetes' ``startingDeadlineSeconds`` applied to the start)."""

from __future__ import annotations

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import (
    BackfillJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
)
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.limits import spec_problem
from engine.model.records import CancelReason, JobSpec, OccurrenceState
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def shortage(**fields: object) -> Engine:
    """One worker, held by ``long`` from 0 to 50; ``etl`` falls due every 10 meanwhile."""
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("long", Once(0), duration=50)))
    spec = JobSpec("etl", Every(10, 10), duration=1, **fields)  # type: ignore[arg-type]
    assert engine.apply(ScheduleJob(spec)).accepted
    return engine


def expired(engine: Engine) -> list[tuple[int, int]]:
    """(tick, scheduled) of each run that expired."""
    return [(e.tick, e.scheduled) for e in engine.log if isinstance(e, ev.RunExpired)]


def test_a_run_not_started_within_n_ticks_expires() -> None:
    engine = shortage(start_deadline=15)
    engine.advance(80)
    # 10 and 20 wait past 25 and 35; 30 (deadline 45) and 40 (55) wait too: 30 expires at 46;
    # 40 starts at 50, when long ends.
    assert expired(engine) == [(26, 10), (36, 20), (46, 30)]
    assert engine.query.run_state("etl", 10) is S.CANCELLED
    assert engine.query.record("etl", 10).cancel_reason is CancelReason.EXPIRED
    assert engine.query.run_state("etl", 40) is S.SUCCEEDED
    assert violations(engine) == []


def test_a_run_may_start_at_its_last_tick_and_zero_means_on_time_only() -> None:
    engine = shortage(start_deadline=10)
    engine.advance(80)
    assert (50, 40) not in expired(engine)  # 40 may start at 50: it does
    assert engine.query.run_state("etl", 40) is S.SUCCEEDED
    engine = shortage(start_deadline=0)
    engine.advance(80)
    assert [scheduled for _, scheduled in expired(engine)] == [10, 20, 30, 40]
    assert engine.query.run_state("etl", 50) is S.SUCCEEDED  # the worker is free at 50


def test_without_the_rule_runs_wait_however_long() -> None:
    engine = shortage()
    engine.advance(80)
    assert expired(engine) == []
    assert all(engine.query.run_state("etl", t) is S.SUCCEEDED for t in (10, 20, 30, 40))


def test_an_expired_run_frees_its_slot_under_an_overlap_rule() -> None:
    rule = OverlapRule(Overlap.BUFFER_ALL, 1)
    engine = shortage(start_deadline=5, overlap=rule)
    engine.advance(80)
    assert [scheduled for _, scheduled in expired(engine)][:2] == [10, 20]
    assert violations(engine) == []


def test_a_run_created_after_its_deadline_is_not_expired_by_it() -> None:
    """Backfilled (or caught up) late, a run is not judged by a start deadline already past."""
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("etl", Every(0, 10), duration=1, start_deadline=5)))
    engine.advance(5)
    engine.apply(PauseJob("etl"))
    engine.advance(95)
    engine.apply(ResumeJob("etl"))
    engine.advance(100)
    assert engine.apply(BackfillJob("etl", 10, 90)).accepted
    engine.advance(200)
    assert all(engine.query.run_state("etl", t) is S.SUCCEEDED for t in range(10, 100, 10))
    assert expired(engine) == [(106, 100)]  # the schedule's own run waited behind them
    assert violations(engine) == []


def test_the_limit_is_the_engines() -> None:
    assert spec_problem(JobSpec("x", Every(0, 1), start_deadline=-1)) is not None
    assert spec_problem(JobSpec("x", Every(0, 1), start_deadline=0)) is None
    engine = Engine()
    bad = ScheduleJob(JobSpec("x", Every(0, 1), start_deadline=-1))
    assert engine.apply(bad).outcome is Outcome.INVALID
