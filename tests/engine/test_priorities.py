"""Priorities (seed 003): named levels, the ``priority`` dispatch order, and aging on top.

Every expected start tick is worked out by hand in the comments. Ticks follow the engine's time
model: ``advance(t)`` processes every tick before ``t``; an attempt started at ``s`` with duration
``d`` ends at ``s + d`` and its worker can start the next attempt in that same tick.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.ordering import java_order_key
from engine.model.policies import DispatchOrder, Policy
from engine.model.records import PRIORITY_LEVELS, JobSpec
from engine.schedules.kinds import Every, Once

HIGH, MEDIUM, LOW = PRIORITY_LEVELS["high"], PRIORITY_LEVELS["medium"], PRIORITY_LEVELS["low"]


def engine_with(order: DispatchOrder, workers: int = 1, aging_step: int | None = None) -> Engine:
    engine = Engine(Policy(order=order, aging_step=aging_step))
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def schedule(engine: Engine, job_id: str, at: int, priority: int, duration: int = 1) -> None:
    spec = JobSpec(job_id, Once(at), priority=priority, duration=duration)
    assert engine.apply(ScheduleJob(spec)).accepted


def starts(engine: Engine) -> list[tuple[int, str, str]]:
    """(tick, job id, worker) of every attempt start, in log order."""
    return [(e.tick, e.job_id, e.worker_id) for e in engine.log if isinstance(e, ev.AttemptStarted)]


def test_named_levels_are_two_one_zero() -> None:
    assert PRIORITY_LEVELS == {"high": 2, "medium": 1, "low": 0}


def test_with_free_workers_nothing_waits() -> None:
    # Three workers, three jobs due at 5: all start at 5, whatever their priority. The best
    # occurrence takes the lowest worker id: high -> w1, medium -> w2, low -> w3.
    engine = engine_with(DispatchOrder.PRIORITY, workers=3)
    schedule(engine, "low", 5, LOW)
    schedule(engine, "medium", 5, MEDIUM)
    schedule(engine, "high", 5, HIGH)
    engine.advance(6)
    assert starts(engine) == [(5, "high", "w1"), (5, "medium", "w2"), (5, "low", "w3")]
    assert violations(engine) == []


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        # The blocker holds w1 over [0, 10). early-low fell due at 1, late-high at 8.
        # priority: at 10 late-high goes first although it is scheduled later; early-low at 11.
        (
            DispatchOrder.PRIORITY,
            [(0, "blocker", "w1"), (10, "late-high", "w1"), (11, "early-low", "w1")],
        ),
        # fifo (seed 000) ignores priority: scheduled tick first.
        (
            DispatchOrder.FIFO,
            [(0, "blocker", "w1"), (10, "early-low", "w1"), (11, "late-high", "w1")],
        ),
    ],
)
def test_under_contention_the_higher_priority_goes_first(
    order: DispatchOrder, expected: list[tuple[int, str, str]]
) -> None:
    engine = engine_with(order)
    schedule(engine, "blocker", 0, LOW, duration=10)
    schedule(engine, "early-low", 1, LOW)
    schedule(engine, "late-high", 8, HIGH)
    engine.advance(20)
    assert starts(engine) == expected


def test_same_priority_then_earlier_scheduled_tick_wins() -> None:
    # Both medium; "z" is scheduled at 2, "a" at 3: the tick decides before the id does.
    engine = engine_with(DispatchOrder.PRIORITY)
    schedule(engine, "blocker", 0, HIGH, duration=10)
    schedule(engine, "a", 3, MEDIUM)
    schedule(engine, "z", 2, MEDIUM)
    engine.advance(20)
    assert starts(engine) == [(0, "blocker", "w1"), (10, "z", "w1"), (11, "a", "w1")]


def test_same_priority_and_tick_then_job_id_in_java_utf16_order() -> None:
    # Java compares UTF-16 code units: U+1F600 is the surrogate pair D83D DE00, so it sorts before
    # U+FFFF (Python's code-point order says the opposite); "B" (0x42) sorts before "a" (0x61).
    emoji, last_bmp = "\U0001f600", "\uffff"
    assert java_order_key(emoji) < java_order_key(last_bmp)
    assert emoji > last_bmp
    engine = engine_with(DispatchOrder.PRIORITY)
    schedule(engine, "blocker", 0, HIGH, duration=10)
    for job_id in ("a", last_bmp, "B", emoji):
        schedule(engine, job_id, 4, LOW)
    engine.advance(20)
    assert [job for _, job, _ in starts(engine)] == ["blocker", "B", "a", emoji, last_bmp]


def test_plain_integers_rank_beyond_and_between_the_levels() -> None:
    # 7 beats high (2); -3 loses to low (0). All four due at 1 while the blocker runs to 10.
    engine = engine_with(DispatchOrder.PRIORITY)
    schedule(engine, "blocker", 0, HIGH, duration=10)
    schedule(engine, "minus3", 1, -3)
    schedule(engine, "low", 1, LOW)
    schedule(engine, "high", 1, HIGH)
    schedule(engine, "seven", 1, 7)
    engine.advance(20)
    assert [(t, job) for t, job, _ in starts(engine)] == [
        (0, "blocker"),
        (10, "seven"),
        (11, "high"),
        (12, "low"),
        (13, "minus3"),
    ]


def test_recurring_low_priority_backlog_yields_to_each_new_high() -> None:
    # "tick" (low, every 1 from 0) keeps one worker busy with a growing backlog; "urgent" (high,
    # every 5 from 0) preempts the queue whenever it falls due: each urgent run starts at its own
    # tick, because the worker frees every tick (duration 1).
    engine = engine_with(DispatchOrder.PRIORITY)
    assert engine.apply(ScheduleJob(JobSpec("tick", Every(0, 1), priority=LOW))).accepted
    assert engine.apply(ScheduleJob(JobSpec("urgent", Every(0, 5), priority=HIGH))).accepted
    engine.advance(12)
    urgent = [
        (e.tick, e.scheduled)
        for e in engine.log
        if isinstance(e, ev.AttemptStarted) and e.job_id == "urgent"
    ]
    assert urgent == [(0, 0), (5, 5), (10, 10)]
    # Ticks 0..11 ran 12 attempts: 3 urgent, 9 tick runs (tick@0..tick@8), in scheduled order.
    ticks = [
        e.scheduled for e in engine.log if isinstance(e, ev.AttemptStarted) and e.job_id == "tick"
    ]
    assert ticks == list(range(9))


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(st.integers(-3, 5), st.integers(1, 6)),
        min_size=1,
        max_size=8,
    )
)
def test_contended_start_order_is_priority_then_tick_then_id(jobs: list[tuple[int, int]]) -> None:
    # One worker held over [0, 10) by a blocker; every job falls due while it waits. Each job takes
    # one tick, so the start order is exactly the sort by (priority desc, scheduled tick, id).
    engine = engine_with(DispatchOrder.PRIORITY)
    schedule(engine, "blocker", 0, 100, duration=10)
    expected = []
    for n, (priority, at) in enumerate(jobs):
        job_id = f"j{n}"
        schedule(engine, job_id, at, priority)
        expected.append((-priority, at, java_order_key(job_id), job_id))
    engine.advance(10 + len(jobs) + 1)
    order = [job_id for *_, job_id in sorted(expected)]
    assert starts(engine) == [(0, "blocker", "w1")] + [
        (10 + n, job_id, "w1") for n, job_id in enumerate(order)
    ]


# ------------------------------------------------------------------------------------------ aging


@pytest.mark.parametrize(
    ("blocker_ends", "high_due", "first"),
    [
        # aging_step 10; "low" (priority 0) ready since 0, "high" (priority 2) ready since high_due.
        # At blocker_ends the effective priorities are 0 + floor(end / 10) and
        # 2 + floor((end - high_due) / 10):
        (19, 15, "high"),  # low 0+1 = 1, high 2+0 = 2: high
        (20, 15, "low"),  # low 0+2 = 2, high 2+0 = 2: tie, low fell due first
        (30, 25, "low"),  # low 0+3 = 3, high 2+0 = 2: low overtakes
        (30, 10, "high"),  # low 0+3 = 3, high 2+2 = 4: high aged too
    ],
)
def test_aging_lets_a_waiting_low_priority_catch_up(
    blocker_ends: int, high_due: int, first: str
) -> None:
    engine = engine_with(DispatchOrder.AGING, aging_step=10)
    schedule(engine, "blocker", 0, 100, duration=blocker_ends)
    schedule(engine, "low", 0, LOW)
    schedule(engine, "high", high_due, HIGH)
    engine.advance(blocker_ends + 3)
    second = "low" if first == "high" else "high"
    assert starts(engine) == [
        (0, "blocker", "w1"),
        (blocker_ends, first, "w1"),
        (blocker_ends + 1, second, "w1"),
    ]


@pytest.mark.parametrize(("blocker_ends", "high_due"), [(19, 15), (20, 15), (30, 25), (30, 10)])
def test_without_aging_high_always_wins(blocker_ends: int, high_due: int) -> None:
    # The same four set-ups under the plain priority order: high first every time.
    engine = engine_with(DispatchOrder.PRIORITY)
    schedule(engine, "blocker", 0, 100, duration=blocker_ends)
    schedule(engine, "low", 0, LOW)
    schedule(engine, "high", high_due, HIGH)
    engine.advance(blocker_ends + 3)
    assert [job for _, job, _ in starts(engine)] == ["blocker", "high", "low"]


def test_aging_starvation_is_bounded() -> None:
    # A low job (priority 0) against a stream of high ones (priority 2, one new every tick, each
    # lasting one tick), aging_step 5. A fresh high has effective priority 2; the low one reaches 2
    # after floor(wait / 5) = 2, i.e. at wait 10, and then wins the tie because it fell due first.
    # It starts at tick 10, not never.
    engine = engine_with(DispatchOrder.AGING, aging_step=5)
    schedule(engine, "low", 0, LOW)
    assert engine.apply(ScheduleJob(JobSpec("stream", Every(0, 1), priority=HIGH))).accepted
    engine.advance(30)
    low = [t for t, job, _ in starts(engine) if job == "low"]
    # Ticks 0..9: the stream's backlog never builds (one run a tick); stream@t starts at t, since
    # 2 > floor(t / 5) for t < 10. At 10: low (2, fell due at 0) ties stream@10 (2) and wins.
    assert low == [10]


def test_aging_needs_a_step() -> None:
    with pytest.raises(ValueError, match="aging_step"):
        Policy(order=DispatchOrder.AGING)
    with pytest.raises(ValueError, match="aging_step"):
        Policy(order=DispatchOrder.AGING, aging_step=0)


def test_aging_tie_break_is_the_order_occurrences_fell_due_even_in_a_backlog() -> None:
    # aging_step 100 (so nothing ages within the test): blocker holds w1 over [0, 10).
    # A (every 1 from 0) has A@0 and A@1 fall due at 0 and 1; B (once at 2) falls due at 2.
    # At 10: A@0 (fell due first) runs. At 11: A@1 and B@2 tie on effective priority
    # 0 + floor(10 / 100) = 0 + floor(9 / 100) = 0; A@1 fell due at 1, before B@2, so A@1 runs at
    # 11, although it was still implicit behind A@0 until A@0 was taken at 10. At 12, A@2 and B@2
    # both fell due at 2: A was submitted first (so its run fell due first within the tick), A@2
    # runs; at 13, B@2 (fell due at 2) beats A@3 (fell due at 3).
    engine = engine_with(DispatchOrder.AGING, aging_step=100)
    schedule(engine, "blocker", 0, 50, duration=10)
    assert engine.apply(ScheduleJob(JobSpec("A", Every(0, 1)))).accepted
    schedule(engine, "B", 2, 0)
    engine.advance(15)
    started = [
        (e.tick, e.job_id, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptStarted)
    ]
    assert started == [
        (0, "blocker", 0),
        (10, "A", 0),
        (11, "A", 1),
        (12, "A", 2),
        (13, "B", 2),
        (14, "A", 3),
    ]
