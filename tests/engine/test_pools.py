"""Pools (Airflow): a run needs a free slot of its job's pool as well as an idle worker.

An attempt holds a slot from its start to its end (whatever ends it); a run waiting for its
retry's backoff holds none. Runs that cannot start because their pool is full wait in the pool's
own queue and compete again, in the policy's order, when a slot frees.
"""

from __future__ import annotations

import dataclasses

from engine_steps import add, run
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from test_engine_stateful import EngineMachine

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import CancelOccurrence, Outcome, RegisterWorker, ScheduleJob, WorkerDown
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.policies import DispatchOrder, Policy
from engine.model.records import JobSpec, OccurrenceState
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def fleet(workers: int, pools: dict[str, int], **policy: object) -> Engine:
    engine = Engine(Policy(pools=tuple(pools.items()), **policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def starts(engine: Engine) -> list[tuple[int, str, int]]:
    return [(e.tick, e.job_id, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptStarted)]


def test_a_full_pool_makes_its_runs_wait_though_workers_are_idle() -> None:
    engine = fleet(4, {"db": 2}, order=DispatchOrder.FIFO)
    for job_id in ("a", "b", "c"):
        add(engine, job_id, Once(0), duration=10, pool="db")
    add(engine, "free", Once(0), duration=10)
    run(engine, 20)
    assert starts(engine) == [(0, "a", 0), (0, "b", 0), (0, "free", 0), (10, "c", 0)]


def test_a_freed_slot_goes_to_the_best_waiting_run_of_the_pool() -> None:
    engine = fleet(3, {"db": 1}, order=DispatchOrder.PRIORITY)
    add(engine, "first", Once(0), duration=10, pool="db")
    add(engine, "low", Once(1), duration=1, pool="db", priority=0)
    add(engine, "high", Once(2), duration=1, pool="db", priority=5)
    run(engine, 12)
    assert starts(engine) == [(0, "first", 0), (10, "high", 2), (11, "low", 1)]


def test_a_retry_waiting_for_its_backoff_holds_no_slot() -> None:
    engine = fleet(2, {"db": 1}, backoff=Backoff(BackoffKind.FIXED, base=10))
    add(engine, "flaky", Once(0), duration=2, pool="db", max_attempts=2, fail_attempts={1})
    add(engine, "other", Once(1), duration=3, pool="db")
    run(engine, 15)
    # flaky fails at 2 and waits until 12 for its retry; other takes the slot at 2.
    assert starts(engine) == [(0, "flaky", 0), (2, "other", 1), (12, "flaky", 0)]


def test_a_lost_attempt_frees_its_slot() -> None:
    engine = fleet(2, {"db": 1})
    add(engine, "a", Once(0), duration=10, pool="db")
    add(engine, "b", Once(0), duration=10, pool="db")
    run(engine, 3)
    assert engine.apply(WorkerDown("w1")).accepted  # a's attempt is lost and waits again
    run(engine, 30)
    # The slot freed at 4 goes to the better of a's retry and b (fifo: tie on 0, then "a").
    assert starts(engine) == [(0, "a", 0), (4, "a", 0), (14, "b", 0)]


def test_a_run_cancelled_while_it_waits_for_the_pool_is_not_started_later() -> None:
    engine = fleet(2, {"db": 1})
    add(engine, "a", Once(0), duration=10, pool="db")
    add(engine, "b", Once(0), duration=10, pool="db")
    run(engine, 3)
    assert engine.apply(CancelOccurrence("b", 0)).accepted
    run(engine, 30)
    assert starts(engine) == [(0, "a", 0)]
    assert engine.query.run_state("b", 0) is S.CANCELLED


def test_a_recurring_job_in_a_pool_keeps_its_backlog_implicit() -> None:
    engine = fleet(3, {"db": 1})
    add(engine, "hog", Once(0), duration=10_000, pool="db")
    add(engine, "tick", Every(0, 1), duration=1, pool="db")
    engine.advance(10_000)
    assert len(engine.query.records()) == 1  # hog's run; tick's 10,000 due runs are one front
    assert engine.query.run_state("tick", 9_999) is S.QUEUED


def test_pools_and_overlap_rules_combine() -> None:
    engine = fleet(4, {"db": 1})
    add(engine, "a", Every(0, 10), duration=25, pool="db", overlap=OverlapRule(Overlap.FORBID))
    add(engine, "b", Every(5, 10), duration=5, pool="db")
    run(engine, 40)
    # a@0 holds the one slot 0-25 (b@5 waits), so a@10 and a@20 are skipped; a@30 is not (a@0
    # ended at 25) but waits for the slot behind b's runs 5, 15 and 25, which fell due first.
    assert [s for s in starts(engine) if s[1] == "a"] == [(0, "a", 0), (40, "a", 30)]
    # a@30, waiting for the slot, is active: a@40 falls due at 40, before it starts, and is skipped.
    skipped = [e.scheduled for e in engine.log if isinstance(e, ev.OccurrenceSkipped)]
    assert skipped == [10, 20, 40]


def test_a_job_in_an_unknown_pool_is_refused() -> None:
    engine = fleet(1, {"db": 1})
    result = engine.apply(ScheduleJob(JobSpec("x", Once(0), pool="dbb")))
    assert (result.outcome, result.message) == (
        Outcome.INVALID,
        "pool 'dbb' does not exist: expected one of db",
    )
    bare = Engine()
    result = bare.apply(ScheduleJob(JobSpec("x", Once(0), pool="db")))
    assert result.message == "pool 'db' does not exist: the policy defines no pools"


# ------------------------------------------------------------------ exactly-once, with pools


POOLS = (("p", 1), ("q", 2))


class PoolMachine(EngineMachine):
    """The engine's state machine with two small pools that most jobs draw from."""

    def new_engine(self) -> Engine:
        self.policy = dataclasses.replace(self.policy, pools=POOLS)
        return super().new_engine()

    def draw_spec(self, data: st.DataObject) -> JobSpec:
        spec = super().draw_spec(data)
        pool = data.draw(st.sampled_from((None, "p", "q", "q")), label="pool")
        return dataclasses.replace(spec, pool=pool)


PoolMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestPoolMachine = PoolMachine.TestCase


def test_the_checker_catches_a_pool_running_more_attempts_than_its_slots() -> None:
    # Planted in the log: a second attempt of the one-slot pool starts while the first runs,
    # and one of a job outside any pool, which the check leaves alone.
    engine = fleet(3, {"db": 1}, order=DispatchOrder.FIFO)
    add(engine, "a", Once(0), duration=10, pool="db")
    add(engine, "b", Once(0), duration=10, pool="db")
    add(engine, "free", Once(0), duration=10)
    run(engine, 2)
    assert violations(engine) == []
    engine.log.append(ev.AttemptStarted(1, "free", 0, 2, "w3"))
    assert not [v for v in violations(engine) if "pool" in v.text]
    engine.log.append(ev.AttemptStarted(1, "b", 0, 1, "w2"))
    found = [str(v) for v in violations(engine) if "pool" in v.text]
    assert found == ["tick 1: pool db runs 2 attempts, over its 1 slots"]
