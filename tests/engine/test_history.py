"""Time travel: every state reached by stepping, seeking and rewinding equals a fresh run."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_fingerprint import state_fingerprint

from engine.core import Engine
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import (
    CancelOccurrence,
    DeleteJob,
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
from engine.model.events import OccurrenceCancelled, RetryScheduled
from engine.model.policies import (
    ChannelOutage,
    CompletionMode,
    DispatchMode,
    DispatchOrder,
    NotificationPolicy,
    Policy,
)
from engine.model.records import CatchUp, Channel, JobSpec, NotifyOn, OccurrenceState, Subscription
from engine.play.history import SPAN_COST, History
from engine.play.ticks import Phase, TimedCommand, at_ticks
from engine.schedules.kinds import Every, Once

pytestmark = pytest.mark.integration

UNTIL = 240
EMAIL = (Subscription(frozenset(NotifyOn), Channel.EMAIL, "ops@example.com"),)


def new_engine_for(order: DispatchOrder, archive: bool = False):
    def new_engine() -> Engine:
        return Engine(
            Policy(
                order=order,
                aging_step=4,
                backoff=Backoff(BackoffKind.EXPONENTIAL, base=3, cap=40, jitter=Jitter.FULL),
                notifications=NotificationPolicy(outages=(ChannelOutage(Channel.EMAIL, 10, 60),)),
            ),
            seed=11,
            archive=archive,
        )

    return new_engine


TIMELINE = [
    (0, RegisterWorker("w1")),
    (0, RegisterWorker("w2")),
    (
        0,
        ScheduleJob(
            JobSpec(
                "etl",
                Every(0, 10),
                duration=3,
                max_attempts=3,
                fail_attempts=frozenset({1}),
                notify=EMAIL,
            )
        ),
    ),
    (
        0,
        ScheduleJob(
            JobSpec(
                "flaky",
                Every(1, 3),
                duration=4,
                failure_rate=0.4,
                max_attempts=2,
                timeout=3,
                priority=1,
            )
        ),
    ),
    (
        25,
        ScheduleJob(
            JobSpec("extract", Once(30), duration=5, fail_attempts=frozenset({1}), notify=EMAIL)
        ),
    ),
    (26, ScheduleJob(JobSpec("load", Once(31), depends_on=("extract",)))),
    (27, ScheduleJob(JobSpec("report", Once(32), depends_on=("load",)))),
    (40, WorkerDown("w1")),
    (70, WorkerUp("w1")),
    (80, PauseJob("flaky")),
    (120, ResumeJob("flaky", CatchUp.LATEST)),
    (130, ModifyJob.of("etl", priority=3, schedule=Every(131, 7))),
    (140, CancelOccurrence("etl")),
    (150, DrainWorker("w2")),
    (200, DeleteJob("flaky")),
    (210, WorkerUp("w2")),
]

ORDERS = list(DispatchOrder)
SPAN_COSTS = st.sampled_from([1, 3, 10, SPAN_COST])
"""Keyframes after every tick, every few, and never (the timeline is shorter than a span)."""


def new_history(order: DispatchOrder, span_cost: int = 3, archive: bool = False) -> History:
    return History(
        new_engine_for(order, archive), at_ticks(TIMELINE), until=UNTIL, span_cost=span_cost
    )


_FRESH: dict[tuple[DispatchOrder, bool, int], tuple] = {}


def fresh(order: DispatchOrder, tick: int, archive: bool = False) -> tuple:
    """The fingerprint of a run straight from the start to ``tick`` (memoised)."""
    if (order, archive, tick) not in _FRESH:
        history = new_history(order, SPAN_COST, archive)
        history.seek(tick)
        _FRESH[order, archive, tick] = state_fingerprint(history.engine)
    return _FRESH[order, archive, tick]


moves = st.lists(
    st.one_of(
        st.tuples(st.just("seek"), st.integers(0, UNTIL)),
        st.tuples(st.just("back"), st.integers(1, 5)),
        st.tuples(st.just("forward"), st.integers(1, 5)),
        st.tuples(st.just("step_back"), st.just(1)),
        st.tuples(st.just("step_forward"), st.just(1)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60)
@given(order=st.sampled_from(ORDERS), moves=moves, span_cost=SPAN_COSTS, archive=st.booleans())
def test_any_walk_through_time_agrees_with_a_fresh_run(order, moves, span_cost, archive):
    """With the archive too: a rewind across an archived stretch gives its runs back exactly."""
    history = new_history(order, span_cost, archive)
    for move, amount in moves:
        if move == "seek":
            history.seek(amount)
        elif move == "back":
            history.back(amount)
        elif move == "forward":
            history.forward(amount)
        elif move == "step_back":
            history.step_back()
        else:
            history.step_forward()
        assert state_fingerprint(history.engine) == fresh(order, history.tick, archive), (
            move,
            amount,
        )


USER_COMMANDS = [
    RegisterWorker("w3"),
    WorkerDown("w2"),
    WorkerUp("w2"),
    PauseJob("etl"),
    ResumeJob("etl", CatchUp.ALL),
    CancelOccurrence("flaky"),
    ModifyJob.of("flaky", priority=2),
    ScheduleJob(JobSpec("late", Every(0, 6), duration=2, failure_rate=0.5, max_attempts=2)),
]


@settings(max_examples=40)
@given(
    order=st.sampled_from(ORDERS),
    moves=st.lists(
        st.one_of(
            st.tuples(st.just("seek"), st.integers(0, UNTIL)),
            st.tuples(st.just("apply"), st.integers(0, len(USER_COMMANDS) - 1)),
            st.tuples(st.just("redo"), st.just(0)),
        ),
        min_size=1,
        max_size=10,
    ),
    span_cost=SPAN_COSTS,
    archive=st.booleans(),
)
def test_any_walk_with_commands_while_rewound_agrees_with_a_fresh_run(
    order, moves, span_cost, archive
):
    history = new_history(order, span_cost, archive)
    for move, argument in moves:
        if move == "seek":
            history.seek(argument)
        elif move == "apply":
            history.apply(USER_COMMANDS[argument])
        else:
            history.redo_branch()
        fresh_run = new_history(order, SPAN_COST, archive)
        for timed in history._user:
            fresh_run.seek(timed.tick)
            fresh_run.apply(timed.command)
        fresh_run.seek(history.tick)
        assert state_fingerprint(history.engine) == state_fingerprint(fresh_run.engine), move


def test_a_rewind_across_a_jittered_retry_gives_the_same_retry_tick():
    history = new_history(DispatchOrder.FIFO)
    history.seek(UNTIL)
    retries = [e for e in history.engine.log if isinstance(e, RetryScheduled) and e.delay > 0]
    assert retries, "the timeline must produce a jittered retry"
    first = retries[0]
    history.seek(first.tick - 1)
    assert history.engine.query.record(first.job_id, first.scheduled).eligible_at != (
        first.eligible_at
    )
    history.seek(first.tick)
    occurrence = history.engine.query.record(first.job_id, first.scheduled)
    assert occurrence.state is OccurrenceState.RETRY_PENDING
    assert occurrence.eligible_at == first.eligible_at


def test_a_rewind_across_a_cascade_restores_every_cancelled_job():
    history = new_history(DispatchOrder.FIFO)
    history.seek(UNTIL)
    cascade = [e for e in history.engine.log if isinstance(e, OccurrenceCancelled) and e.cause]
    assert [e.job_id for e in cascade] == ["load", "report"]
    history.seek(cascade[0].tick - 1)
    for event in cascade:
        state = history.engine.query.run_state(event.job_id, event.scheduled)
        assert state is not OccurrenceState.CANCELLED
    history.seek(cascade[0].tick)
    assert [history.engine.query.run_state(e.job_id, e.scheduled) for e in cascade] == [
        OccurrenceState.CANCELLED,
        OccurrenceState.CANCELLED,
    ]


def test_a_command_while_rewound_starts_a_new_future_and_redo_brings_the_old_one_back():
    history = new_history(DispatchOrder.FIFO)
    history.seek(100)
    assert history.apply(CancelOccurrence("etl", 110)).accepted
    history.seek(50)
    assert history.apply(PauseJob("etl")).accepted
    history.seek(UNTIL)
    paused_future = state_fingerprint(history.engine)
    history.seek(50)
    assert history.redo_branch()
    history.seek(UNTIL)
    restored = state_fingerprint(history.engine)
    assert restored != paused_future
    assert history.engine.query.run_state("etl", 110) is OccurrenceState.CANCELLED
    assert not history.redo_branch()


def test_a_command_while_rewound_replaces_the_timelines_own_future_which_redo_brings_back():
    """With no user command after it, the future a command replaces is the file's own: redo
    takes the command out again, as it does when it set user commands aside."""
    history = new_history(DispatchOrder.FIFO)
    history.seek(UNTIL)
    own_future = state_fingerprint(history.engine)
    history.seek(20)
    assert history.apply(RegisterWorker("w3")).accepted
    history.seek(UNTIL)
    assert state_fingerprint(history.engine) != own_future
    history.seek(20)
    assert history.redo_branch()
    assert history.tick == 20 and not history.user_commands
    history.seek(UNTIL)
    assert state_fingerprint(history.engine) == own_future
    assert not history.redo_branch()


def test_a_command_at_the_furthest_tick_played_replaces_no_future():
    """Nothing after the tick had been played, so no future was seen to be replaced."""
    history = new_history(DispatchOrder.FIFO)
    history.seek(20)
    assert history.apply(RegisterWorker("w3")).accepted
    assert not history.redo_branch()


def test_stepping_visits_exactly_the_ticks_with_events():
    history = new_history(DispatchOrder.FIFO)
    visited = [history.tick]
    while history.step_forward():
        visited.append(history.tick)
    assert visited[1:] == [t for t in history.event_ticks if t > 0]
    backwards = [history.tick]
    while history.step_back():
        backwards.append(history.tick)
    assert backwards[-1] == 0
    assert sorted(set(backwards)) == sorted(set(visited))


def test_stepping_forward_ends_at_the_last_tick_after_the_last_events():
    """The ends are stops, as tick 0 is for stepping back: past the last tick with events,
    stepping forward goes to ``until``, where a run's expectations are checked."""

    def engine() -> Engine:
        made = Engine(Policy())
        made.apply(RegisterWorker("w1"))
        made.apply(ScheduleJob(JobSpec("once", Once(5), duration=3)))
        return made

    history = History(engine, [], until=50)
    visited = []
    while history.step_forward():
        visited.append(history.tick)
    assert visited == [5, 8, 50]
    assert history.step_back() and history.tick == 8


def test_events_at_gives_exactly_one_ticks_events():
    history = new_history(DispatchOrder.FIFO)
    history.seek(UNTIL)
    log = list(history.engine.log)
    for tick in history.event_ticks[:40]:
        assert history.events_at(tick) == [event for event in log if event.tick == tick]
    assert history.events_at(UNTIL + 1) == []


def test_a_timeline_out_of_run_order_plays_as_if_in_it():
    """A history plays its timeline by tick, then phase, each phase in the timeline's order:
    one in that order already is taken as it is, any other is sorted (a timeline of one phase
    given out of tick order, and one in tick order whose phases are not)."""
    ordered = sorted(at_ticks(TIMELINE), key=lambda timed: timed.tick)
    shuffled = [*ordered[1::2], *ordered[::2]]
    phased = [
        TimedCommand(timed.tick, Phase.BEFORE_EVENTS if index % 2 else timed.phase, timed.command)
        for index, timed in enumerate(ordered)
    ]
    for timeline in (shuffled, phased):
        runs_as = sorted(timeline, key=lambda timed: (timed.tick, timed.phase))
        given = History(new_engine_for(DispatchOrder.FIFO), timeline, until=UNTIL)
        given.seek(UNTIL)
        played = History(new_engine_for(DispatchOrder.FIFO), runs_as, until=UNTIL)
        played.seek(UNTIL)
        assert list(given.engine.log) == list(played.engine.log)


def test_history_leaves_the_collector_to_the_application() -> None:
    """Moving through time used to ``gc.freeze()`` every object of the host process and switch
    the collector off and on: a process-wide policy, which is the application's to choose."""
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    history = new_history(DispatchOrder.FIFO)
    history.seek(UNTIL)
    history.seek(3)
    history.step_forward()
    assert (gc.get_freeze_count(), gc.isenabled()) == (frozen, enabled)


def test_keyframes_after_a_command_keep_the_random_generators_state():
    # Tick 7 draws from the generator (a jittered retry), tick 8 does not. A command at 7 drops
    # the keyframe of 7; the keyframe of 8 must not take the generator's state from the one
    # before 7 (with restore points it did: going back to 8 then gave other draws than a fresh
    # run).
    history = new_history(DispatchOrder.FIFO)
    history.seek(6)
    before = history.engine._rng.getstate()
    history.seek(7)
    assert history.engine._rng.getstate() != before
    assert history.apply(RegisterWorker("w3")).accepted
    history.seek(8)
    drawn_at_8 = history.engine._rng.getstate()
    history.seek(40)
    history.seek(8)
    assert history.engine._rng.getstate() == drawn_at_8
    fresh_run = new_history(DispatchOrder.FIFO)
    fresh_run.seek(7)
    fresh_run.apply(RegisterWorker("w3"))
    fresh_run.seek(8)
    assert state_fingerprint(history.engine) == state_fingerprint(fresh_run.engine)


def test_returning_to_a_head_left_just_after_a_command_lands_on_the_right_tick():
    # The head was the state after a command at 225; a seek to 224 through the head must roll
    # back to 224 (it stayed at 225: the history took the head for the state at its last mark).
    history = new_history(DispatchOrder.FIFO)
    history.seek(225)
    assert history.apply(RegisterWorker("w3")).accepted
    history.seek(0)
    history.seek(224)
    assert history.engine.now == 224
    assert state_fingerprint(history.engine) == fresh(DispatchOrder.FIFO, 224)


@settings(max_examples=40)
@given(chunk=st.integers(1, 300), seeks=st.lists(st.integers(0, 900), min_size=1, max_size=6))
def test_an_open_ended_runs_horizon_is_the_furthest_tick_rounded_up_to_a_chunk(chunk, seeks):
    timeline = [(0, RegisterWorker("w1")), (0, ScheduleJob(JobSpec("j", Every(0, 7))))]
    history = History(Engine, at_ticks(timeline), horizon_chunk=chunk)
    furthest = 0
    for tick in seeks:
        history.seek(tick)
        furthest = max(furthest, tick)
        horizon = history.last_tick()
        assert history.open_ended and horizon >= max(furthest, 1)
        assert horizon % chunk == 0 and horizon - chunk < max(furthest, 1)


def test_a_recording_steps_on_the_ticks_the_engine_acts_on_its_own_between_commands():
    # With a keyframe due at every step, the keyframes are the steps: the commands' ticks and,
    # between them, the ticks a job fell due (5, 15, ...) or an attempt of it ended (7, 17, ...).
    timeline = [
        (0, RegisterWorker("w1")),
        (0, ScheduleJob(JobSpec("j", Every(5, 10), duration=2))),
        (30, RegisterWorker("w2")),
    ]
    history = History(Engine, at_ticks(timeline), until=40, span_cost=1)
    history.seek(40)
    assert list(history.keyframes) == [-1, 0, 5, 7, 15, 17, 25, 27, 30, 35, 37, 40]


def test_a_recording_asks_the_engine_its_next_tick_only_when_its_heaps_hold_one_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two commands the recording reads the first ticks of the engine's own heaps
    (``Engine.own_queues``) rather than ask: a manual dispatch's due runs and no timer are
    nothing it does on its own, and seed 000's recording asked 92,001 times for nothing."""
    asked: list[int | None] = []
    next_event_tick = Engine.next_event_tick

    def counted(engine: Engine) -> int | None:
        asked.append(next_event_tick(engine))
        return asked[-1]

    monkeypatch.setattr(Engine, "next_event_tick", counted)
    manual = Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    timeline = [(0, RegisterWorker("w1")), (0, ScheduleJob(JobSpec("j", Every(5, 10))))]
    timeline += [(tick, Dispatch()) for tick in range(20, 100, 20)]
    history = History(lambda: Engine(manual), at_ticks(timeline), until=80)
    history.seek(80)
    assert asked == [] and len(history.engine.log) > 0
    History(Engine, at_ticks(timeline), until=80).seek(80)  # dispatching on its own: asked
    assert asked


def test_the_engines_own_queues_are_the_lists_a_rewind_restores_in_place() -> None:
    history = new_history(DispatchOrder.FIFO)
    timers, due = history.engine.own_queues()
    history.seek(100)
    held = sorted(timers), sorted(due)
    history.seek(3)
    assert (sorted(timers), sorted(due)) != held
    history.seek(100)
    assert (sorted(timers), sorted(due)) == held
    assert all(a is b for a, b in zip(history.engine.own_queues(), (timers, due), strict=True))
    manual = Engine(Policy(dispatch=DispatchMode.MANUAL))
    assert manual.own_queues()[1] == ()
