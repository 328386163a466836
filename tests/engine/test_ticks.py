"""The tick driver: commands run at their tick and phase, in the one order, and never go back."""

from __future__ import annotations

import pytest

from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.play.ticks import OutOfOrder, Phase, TickDriver, TimedCommand
from engine.schedules.kinds import Once


def driver_with_a_job() -> TickDriver:
    """One worker; ``a`` runs at 2 for 3 ticks, so its attempt ends at 5."""
    driver = TickDriver(Engine())
    driver.apply(TimedCommand(0, Phase.BEFORE_EVENTS, RegisterWorker("w1")))
    driver.apply(
        TimedCommand(0, Phase.BEFORE_EVENTS, ScheduleJob(JobSpec("a", Once(2), duration=3)))
    )
    return driver


def kinds_at(engine: Engine, tick: int) -> list[str]:
    return [type(event).__name__ for event in engine.log if event.tick == tick]


def test_phases_run_before_the_events_after_them_and_after_dispatch() -> None:
    driver = driver_with_a_job()
    engine = driver.engine
    b = ScheduleJob(JobSpec("b", Once(5)))
    c = ScheduleJob(JobSpec("c", Once(5)))
    d = ScheduleJob(JobSpec("d", Once(5)))
    driver.apply(TimedCommand(5, Phase.BEFORE_EVENTS, b))  # before a's attempt ends at 5
    driver.apply(TimedCommand(5, Phase.AFTER_EVENTS, c))
    driver.apply(TimedCommand(5, Phase.AFTER_DISPATCH, d))
    assert kinds_at(engine, 5) == [
        "JobScheduled",  # b, before the tick's events
        "AttemptSucceeded",  # a's attempt ends: the worker is free
        "JobScheduled",  # c
        "AttemptStarted",  # the dispatch takes b, which fell due first
        "JobScheduled",  # d, then the tick settles again: no worker is free
    ]
    started = [e.job_id for e in engine.log if isinstance(e, ev.AttemptStarted)]
    assert started == ["a", "b"]


def test_a_place_in_time_that_has_passed_is_refused_and_changes_nothing() -> None:
    driver = driver_with_a_job()
    driver.finish(5)
    events = len(driver.engine.log)
    late = ScheduleJob(JobSpec("late", Once(9)))
    with pytest.raises(OutOfOrder, match="has passed"):
        driver.apply(TimedCommand(5, Phase.AFTER_EVENTS, late))
    with pytest.raises(OutOfOrder, match="has passed"):
        driver.apply(TimedCommand(4, Phase.AFTER_DISPATCH, late))
    with pytest.raises(OutOfOrder, match="has passed"):
        driver.apply_now(late)
    with pytest.raises(OutOfOrder, match="has passed"):
        driver.start(4)
    assert len(driver.engine.log) == events and "late" not in driver.engine.query.jobs()


def test_apply_now_runs_at_the_start_of_the_current_tick() -> None:
    driver = driver_with_a_job()
    driver.start(5)
    assert driver.apply_now(ScheduleJob(JobSpec("b", Once(5)))).accepted
    driver.finish(5)
    assert kinds_at(driver.engine, 5) == ["JobScheduled", "AttemptSucceeded", "AttemptStarted"]


def test_settled_at_tells_the_driver_where_a_restore_left_the_engine() -> None:
    driver = driver_with_a_job()
    keyframe = driver.engine.keyframe()
    driver.finish(3)
    driver.engine.restore(keyframe)
    driver.settled_at(-1)
    assert driver.apply_now(ScheduleJob(JobSpec("b", Once(4)))).accepted
