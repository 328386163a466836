"""Missed runs after a pause: ``catch_up`` (skip, latest, all) within the job's
``catch_up_window`` and ``max_missed`` (Temporal's catch-up window, Kubernetes'
startingDeadlineSeconds and its rule of 100 missed start times)."""

from __future__ import annotations

import pytest

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import Outcome, PauseJob, RegisterWorker, ResumeJob, ScheduleJob
from engine.model.records import CatchUp, JobSpec
from engine.schedules.kinds import Every


def paused_for_a_while(**fields: object) -> Engine:
    """A job every 10 ticks, paused at 5 and resumed at 95: runs 10 to 90 were missed."""
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    spec = JobSpec("j", Every(0, 10), duration=1, **fields)  # type: ignore[arg-type]
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(5)
    assert engine.apply(PauseJob("j")).accepted
    engine.advance(95)
    assert engine.apply(ResumeJob("j")).accepted
    engine.advance(120)
    assert violations(engine) == []
    return engine


def ran(engine: Engine) -> list[int]:
    """The runs started that were scheduled before the resume."""
    return [
        e.scheduled for e in engine.log if isinstance(e, ev.AttemptStarted) and e.scheduled < 95
    ]


@pytest.mark.parametrize(
    ("catch_up", "window", "expected"),
    [
        (CatchUp.SKIP, None, [0]),
        (CatchUp.LATEST, None, [0, 90]),
        (CatchUp.ALL, None, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]),
        (CatchUp.ALL, 30, [0, 70, 80, 90]),
        (CatchUp.LATEST, 30, [0, 90]),
        (CatchUp.LATEST, 2, [0]),  # the latest, at 90, is older than the window
        (CatchUp.ALL, 0, [0]),
    ],
)
def test_catch_up_within_its_window(catch_up, window, expected) -> None:
    engine = paused_for_a_while(catch_up=catch_up, catch_up_window=window)
    assert ran(engine) == expected


@pytest.mark.parametrize(
    ("catch_up", "expected"),
    [(CatchUp.LATEST, [0, 90]), (CatchUp.ALL, [0, 90]), (CatchUp.SKIP, [0])],
)
def test_more_missed_runs_than_max_missed_warn_and_only_the_latest_runs(
    catch_up: CatchUp, expected: list[int]
) -> None:
    """Kubernetes' CronJob controller (v2) records TooManyMissedTimes and still creates the most
    recent missed run (``mostRecentScheduleTime``); the old controller started none."""
    engine = paused_for_a_while(catch_up=catch_up, max_missed=5)
    assert ran(engine) == expected
    too_many = [e for e in engine.log if isinstance(e, ev.TooManyMissedRuns)]
    assert too_many == [ev.TooManyMissedRuns(95, "j", 6, 5)]  # counting stops at 6


def test_max_missed_counts_only_within_the_window() -> None:
    # Kubernetes: with startingDeadlineSeconds, only the missed schedules within it count.
    engine = paused_for_a_while(catch_up=CatchUp.LATEST, catch_up_window=30, max_missed=5)
    assert ran(engine) == [0, 90]
    assert not any(isinstance(e, ev.TooManyMissedRuns) for e in engine.log)


def test_a_missed_run_limit_costs_no_more_than_the_limit() -> None:
    engine = Engine()
    spec = JobSpec("j", Every(0, 1), catch_up=CatchUp.LATEST, max_missed=100)
    assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(1)
    assert engine.apply(PauseJob("j")).accepted
    engine.advance(10**9)
    assert engine.apply(ResumeJob("j")).accepted
    assert [e for e in engine.log if isinstance(e, ev.TooManyMissedRuns)] == [
        ev.TooManyMissedRuns(10**9, "j", 101, 100)
    ]


def test_limits_are_the_engines() -> None:
    result = Engine().apply(ScheduleJob(JobSpec("j", Every(0, 1), max_missed=-1)))
    assert result.outcome is Outcome.INVALID
    assert (
        result.message == "max_missed: expected a whole number from 0 to 1000000, got the number -1"
    )
