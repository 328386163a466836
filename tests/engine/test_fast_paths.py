"""The facades' fast paths give what the general path gives.

Seed 000's ``schedule_job`` checks its arguments itself, then enters the job through
:meth:`Engine.schedule_checked`, which skips what those checks already settled (the limits,
dependencies, pools, deadlines, a first run in the past) and the command's routing; its
``complete_job`` calls :meth:`Engine.complete` without a ``Complete`` command, and its
``dispatch_jobs`` :meth:`Engine.dispatch` without a ``Dispatch`` command. Seed 001's SUBMIT
enters its job through ``schedule_checked`` too, dependencies and all, when its numbers are
within the limits. These tests hold that for every call the facades may make, the fast paths
leave the engine in the state, with the events, that the commands through ``Engine.apply``
leave it in.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CronJobScheduler
from engine.core import Engine
from engine.facades.script import PrintedLines, ScriptSession, execute_script
from engine.model import events as ev
from engine.model.commands import Command, Complete, Dispatch, ScheduleJob
from engine.model.event_log import EventLog
from engine.model.policies import DispatchOrder, DoomedSubmission, Policy
from engine.model.records import JobSpec, OccurrenceState
from engine.play.ticks import TickDriver
from engine.schedules.kinds import Every, Once
from tests.engine.script_strategies import dependency_graphs, scripts
from tests.engine.state_fingerprint import assert_same_state

COMMAND_TYPES = set(Command.__args__)

IDS = ["a", "b", "job-1", "é", "\U0001f600", "x" * 100]


class GeneralPathScheduler(CronJobScheduler):
    """Seed 000's scheduler with ``schedule_job``, ``dispatch_jobs`` and ``complete_job`` through
    the engine's command route: what the facade did before its fast paths, call for call."""

    def schedule_job(self, job_id, first_run_time, interval, max_retries, current_time):
        if not self._move_to(current_time):
            return False
        if (
            job_id not in IDS
            or not current_time <= first_run_time <= 10**12
            or not 0 <= interval <= 10**9
            or not 0 <= max_retries <= 10
        ):
            return False
        schedule = Every(first_run_time, interval) if interval else Once(first_run_time)
        spec = JobSpec(job_id, schedule, max_retries + 1)
        return self._driver.apply_now(ScheduleJob(spec)).accepted

    def dispatch_jobs(self, current_time):
        if not self._move_to(current_time):
            return []
        assignments = self._driver.apply_now(Dispatch()).value
        return [f"{a.job_id},{a.scheduled},{a.attempt},{a.worker_id}" for a in assignments]

    def complete_job(self, job_id, scheduled_time, attempt_number, successful, current_time):
        if not self._move_to(current_time):
            return False
        if not 1 <= attempt_number <= 11 or not 0 <= scheduled_time <= 10**12:
            return False
        report = Complete(job_id, scheduled_time, attempt_number, successful)
        return self._driver.apply_now(report).accepted


calls = st.one_of(
    st.tuples(
        st.just("schedule"),
        st.sampled_from(IDS),
        st.integers(0, 30),  # first run, after the time step
        st.sampled_from([0, 0, 1, 3, 7, 10**9, 10**9 + 1, -1]),
        st.sampled_from([0, 1, 3, 10, 11, -1]),
        st.integers(0, 3),  # time step
    ),
    st.tuples(st.just("register"), st.sampled_from(["w1", "w2"])),
    st.tuples(st.just("dispatch"), st.integers(0, 5)),
    st.tuples(st.just("complete"), st.integers(0, 9), st.booleans(), st.integers(0, 3)),
)


@settings(max_examples=300)
@given(st.lists(calls, max_size=30))
def test_schedule_job_fast_path_leaves_the_state_and_events_of_the_general_path(steps) -> None:
    fast, general = CronJobScheduler(), GeneralPathScheduler()
    now = 0
    running: list[tuple[str, int, int]] = []
    for step in steps:
        if step[0] == "complete" and not running:
            continue
        answers = []
        for scheduler in (fast, general):
            if step[0] == "schedule":
                _, job_id, first, interval, retries, later = step
                at = now + later
                answers.append(scheduler.schedule_job(job_id, at + first, interval, retries, at))
            elif step[0] == "register":
                answers.append(scheduler.register_worker(step[1]))
            elif step[0] == "dispatch":
                answers.append(scheduler.dispatch_jobs(now + step[1]))
            else:
                job_id, at, attempt = running[step[1] % len(running)]
                answers.append(scheduler.complete_job(job_id, at, attempt, step[2], now + step[3]))
        assert answers[0] == answers[1], step
        if step[0] == "complete" and step[1] % 3 == 0:  # a stale report too: refused alike
            job_id, at, attempt = running[step[1] % len(running)]
            for scheduler in (fast, general):
                answers.append(scheduler.complete_job(job_id, at, attempt + 1, True, now + step[3]))
            assert answers[-1] is answers[-2] is False
        if step[0] == "schedule":
            now += step[5]
        elif step[0] == "dispatch":
            now += step[1]
            for text in answers[0]:
                job_id, at, attempt, _ = text.split(",")
                running.append((job_id, int(at), int(attempt)))
        elif step[0] == "complete":
            running.pop(step[1] % len(running))
            now += step[3]
        assert_same_state(fast.engine, general.engine)


@given(
    st.sampled_from(IDS),
    st.integers(0, 50),
    st.sampled_from([0, 1, 5, 10**9]),
    st.integers(1, 11),
    st.integers(0, 50),
    st.booleans(),
)
def test_schedule_checked_is_schedule_for_a_checked_definition(
    job_id, first, interval, max_attempts, now, twice
) -> None:
    fast, general = CronJobScheduler().engine, CronJobScheduler().engine
    for engine in (fast, general):
        engine.advance(now)
    first += now
    spec = JobSpec(job_id, Every(first, interval) if interval else Once(first), max_attempts)
    for _ in range(2 if twice else 1):
        created = fast.schedule_checked(spec, first)
        result = general.apply(ScheduleJob(spec))
        assert created is result.accepted
        assert_same_state(fast, general)


@given(
    st.sampled_from(DoomedSubmission),
    st.lists(st.sampled_from(["waits", "succeeds", "fails"]), min_size=1, max_size=3),
    st.integers(0, 12),
    st.integers(0, 3),
)
def test_schedule_checked_is_schedule_for_a_job_with_dependencies(
    doomed, upstream, played, later
) -> None:
    """Seed 001's SUBMIT enters a job with dependencies through ``schedule_checked`` too: on
    dependencies that wait, have succeeded, or have failed (a doomed job, cancelled at once
    under ``DoomedSubmission.CANCEL``), the state and events are ``schedule``'s, then and after
    both engines play on."""
    policy = Policy(order=DispatchOrder.AGING, aging_step=2, doomed_submission=doomed)
    fast, general = Engine(policy), Engine(policy)
    for engine in (fast, general):
        engine.register_worker("w")
        for number, outcome in enumerate(upstream):
            duration = 100 if outcome == "waits" else 1
            failures = frozenset({1}) if outcome == "fails" else frozenset()
            engine.schedule(JobSpec(f"u{number}", Once(0), 1, 0, duration, (), failures))
        engine.advance(played)
    dependencies = tuple(f"u{number}" for number in range(len(upstream)))
    spec = JobSpec("d", Once(played), 1, 5, 2, dependencies)
    assert fast.schedule_checked(spec, played)
    assert general.apply(ScheduleJob(spec)).accepted
    assert_same_state(fast, general)
    for engine in (fast, general):
        engine.advance(played + later + 200)
    assert_same_state(fast, general)


@settings(max_examples=150)
@given(scripts())
def test_a_script_session_leaves_the_state_its_commands_leave_through_the_general_path(
    lines: list[str],
) -> None:
    """Seed 001's SUBMIT enters its job through ``Engine.schedule`` without a ``ScheduleJob``
    (the session keeps the definition, and ``commands`` wraps it): replaying the session's
    commands through the tick driver and ``Engine.apply`` gives the same state and events."""
    session = ScriptSession()
    for number, line in enumerate(lines, start=1):
        session.feed(number, line)
    if session.engine is None:
        return
    commands = session.commands
    assert all(type(timed.command) in COMMAND_TYPES for timed in commands)
    engine = Engine(session.policy)
    driver = TickDriver(engine)
    for timed in commands:
        driver.apply(timed)
    driver.start(session.engine.now)
    assert_same_state(session.engine, engine)


def _played(lines: list[str], headless: bool) -> ScriptSession:
    session = ScriptSession(headless=headless)
    for number, line in enumerate(lines, start=1):
        session.feed(number, line)
    return session


@settings(max_examples=150)
@given(st.one_of(scripts(), dependency_graphs()))
def test_a_headless_script_session_prints_what_a_session_keeping_every_event_prints(
    lines: list[str],
) -> None:
    """``cronlapse script``'s session (``execute_script``) prints each event's line as the
    engine writes it (``PrintedLines``); the sessions whose engine others read print them from
    a log of every event, after each TICK. Same lines, same problems."""
    headless, kept = _played(lines, headless=True), _played(lines, headless=False)
    assert headless.result == kept.result
    assert execute_script(lines) == kept.result


def test_a_headless_script_session_keeps_no_events() -> None:
    """What nobody reads is not kept: the engine of ``cronlapse script`` logs its events
    into the output lines, and the kinds the protocol does not print nowhere; its runs are not
    indexed by state."""
    lines = ["INIT 1 0", "SUBMIT a 0 1 1 0", "SUBMIT b 0 1 1 1 a", "FAIL b 1", "TICK 5"]
    headless, kept = _played(lines, headless=True), _played(lines, headless=False)
    output = ["OK a", "OK b", "START a 0", "DONE a 1", "START b 1", "FAILATTEMPT b 2 1"]
    assert headless.result.output == kept.result.output == [*output, "FAILED b 2"]
    assert headless.engine is not None and kept.engine is not None
    assert len(headless.engine.log) == 0 and list(headless.engine.log) == []
    assert len(kept.engine.log) > 7
    with pytest.raises(TypeError):
        headless.engine.query.record_keys(OccurrenceState.SUCCEEDED)


class _KeepsStarts(EventLog):
    """A log that keeps only ``AttemptStarted``, and notes every kind it is given."""

    __slots__ = ("given",)

    kinds = frozenset({ev.AttemptStarted})

    def __init__(self) -> None:
        super().__init__()
        self.given: list[type] = []

    def add(self, kind: type, *fields: object) -> None:
        self.given.append(kind)


def test_a_submission_to_a_log_that_drops_job_scheduled_does_not_describe_the_job() -> None:
    """``schedule_checked`` (the facades' SUBMIT) makes a ``JobScheduled``, and the schedule's
    description it carries, only for a log whose ``kinds`` keep it; a log of every kind gets it."""
    dropping, keeping = Engine(log=_KeepsStarts()), Engine()
    for engine in (dropping, keeping):
        assert engine.schedule_checked(JobSpec("a", Once(0)), 0)
    assert isinstance(dropping.log, _KeepsStarts) and dropping.log.given == []
    assert list(keeping.log) == [ev.JobScheduled(0, "a", "once at 0")]
    assert ev.JobScheduled not in PrintedLines.kinds  # cronlapse script's log drops it


def test_feeding_a_script_s_lines_at_once_is_feeding_them_one_by_one() -> None:
    """``feed_lines`` (``execute_script``'s one call) numbers its lines from ``first``, as the
    calls of ``feed`` it stands for would, problems included."""
    lines = ["INIT 1 0", "SUBMIT a 0 1 1 0", "BOGUS", "SUBMIT b -1 0 1 0", "TICK 3", "STATUS a"]
    at_once, one_by_one = ScriptSession(headless=True), ScriptSession(headless=True)
    at_once.feed_lines(lines, first=10)
    for number, line in enumerate(lines, start=10):
        one_by_one.feed(number, line)
    assert at_once.result == one_by_one.result
    assert [problem.line for problem in at_once.result.problems] == [12, 13]
    assert at_once.result.output[-1] == "a SUCCEEDED 1"
