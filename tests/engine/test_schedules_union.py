"""AnyOf (a timer's several triggers) and Repeating (OnUnitActiveSec= after any of them), checked
against the brute-force sets they stand for, and counted as ``engine.parts.ranges`` counts runs."""

from __future__ import annotations

from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from engine.parts.ranges import _fires
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock, parse_zone
from engine.schedules.kinds import AnyOf, Every, Once, Repeating, Schedule, last_at_or_before
from engine.schedules.schedule_clock import calendar_clock

HORIZON = 400
ZONE = parse_zone("Europe/Berlin")
CLOCK = Clock(datetime(2026, 3, 28, 23, tzinfo=ZONE), ZONE, 60)
"""Minute ticks from the night before the spring change: the calendar parts cross it."""


def brute(schedule: Schedule, high: int) -> list[int]:
    """Every fire tick in ``[0, high]``, asked tick by tick."""
    return [tick for tick in range(high + 1) if schedule.contains(tick)]


def within(tick: int | None, high: int) -> int | None:
    """``tick`` if the brute-force sets reach it."""
    return tick if tick is not None and tick <= high else None


def union_of(parts: tuple[Schedule, ...], high: int) -> list[int]:
    return sorted({tick for part in parts for tick in range(high + 1) if part.contains(tick)})


def repeated(anchors: list[int], interval: int, high: int) -> list[int]:
    """systemd's rule walked by hand: each anchor fires, then every ``interval`` after the last
    fire until the next anchor."""
    fires = []
    for index, anchor in enumerate(anchors):
        end = anchors[index + 1] if index + 1 < len(anchors) else high + 1
        fires += range(anchor, end, interval)
    return [tick for tick in fires if tick <= high]


simple = st.one_of(
    st.builds(Once, st.integers(0, 300)),
    st.builds(Every, st.integers(0, 300), st.integers(1, 90)),
    st.sampled_from(
        [CronSchedule(e, CLOCK) for e in ("*/45 * * * *", "0 2 * * *", "30 * * * *", "7 1 * * *")]
    ),
)
parts = st.lists(simple, min_size=1, max_size=4).map(tuple)


@given(parts=parts, low=st.integers(0, HORIZON), span=st.integers(-1, HORIZON))
def test_any_of_fires_where_any_part_fires_once(parts, low, span):
    schedule = AnyOf(parts)
    expected = union_of(parts, HORIZON * 2)
    high = low + span
    assert brute(schedule, HORIZON * 2) == expected
    found = within(schedule.first_at_or_after(low), HORIZON * 2)
    assert found == next((t for t in expected if t >= low), None)
    window = [t for t in expected if low <= t <= high]
    assert list(schedule.fire_ticks(low, high)) == window
    assert _fires(schedule, low, high) == len(window)
    assert last_at_or_before(schedule, high, low) == (window[-1] if window else None)


@given(anchors=parts, interval=st.integers(1, 200), low=st.integers(0, HORIZON))
def test_repeating_restarts_its_count_at_every_anchor(anchors, interval, low):
    schedule = Repeating(AnyOf(anchors), interval)
    high = HORIZON * 2
    expected = repeated(union_of(anchors, high), interval, high)
    assert brute(schedule, high) == expected
    found = within(schedule.first_at_or_after(low), high)
    assert found == next((t for t in expected if t >= low), None)
    window = [t for t in expected if low <= t <= high]
    assert list(schedule.fire_ticks(low, high)) == window
    assert _fires(schedule, low, high) == len(window)


@given(first=st.integers(0, 300), interval=st.integers(1, 90), low=st.integers(0, HORIZON))
def test_repeating_one_run_is_every(first, interval, low):
    assert Repeating(Once(first), interval).first_at_or_after(low) == Every(
        first, interval
    ).first_at_or_after(low)


def test_the_calendar_clock_of_a_union_is_its_calendar_parts():
    cron = CronSchedule("0 2 * * *", CLOCK)
    assert calendar_clock(AnyOf((Once(3), cron))) == CLOCK
    assert calendar_clock(Repeating(AnyOf((cron, Once(3))), 60)) == CLOCK
    assert calendar_clock(AnyOf((Once(3), Every(0, 5)))) is None


def test_descriptions_name_every_part():
    cron = CronSchedule("0 2 * * *", CLOCK)
    assert AnyOf((cron, Once(5))).describe() == "cron 0 2 * * * (Europe/Berlin) or once at 5"
    assert Repeating(cron, 360).describe() == (
        "cron 0 2 * * * (Europe/Berlin), then every 360 after each run"
    )


@given(first=st.integers(-50, 300), interval=st.integers(1, 90), low=st.integers(-100, HORIZON))
def test_every_answers_the_first_fire_at_or_after_a_tick_as_its_fires_say(first, interval, low):
    fires = range(first, max(first, low) + interval + 1, interval)
    assert Every(first, interval).first_at_or_after(low) == next(t for t in fires if t >= low)
