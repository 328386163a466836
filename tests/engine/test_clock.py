"""Clock: ticks to wall time and back, with real elapsed time across DST changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.schedules.calendar import CronSchedule, DstRule
from engine.schedules.clock import Clock, ClockError, TickTimes, parse_time

BERLIN = ZoneInfo("Europe/Berlin")


def test_parse_reads_a_local_epoch_in_the_zone() -> None:
    clock = Clock.parse("2026-03-28T00:00:00", "Europe/Berlin", 60)
    assert clock.epoch.isoformat() == "2026-03-28T00:00:00+01:00"
    assert clock.zone.key == "Europe/Berlin"
    assert clock.tick_seconds == 60


def test_parse_keeps_the_instant_of_an_epoch_with_offset_and_shows_it_in_the_zone() -> None:
    clock = Clock.parse("2026-03-28T00:00:00+00:00", "Europe/Berlin")
    assert clock.epoch.isoformat() == "2026-03-28T01:00:00+01:00"


def test_default_epoch_is_local_midnight_1970() -> None:
    assert Clock.parse(None, "America/New_York").epoch.isoformat() == "1970-01-01T00:00:00-05:00"
    assert Clock.parse(None).format(1_000_000_000) == "2001-09-09T01:46:40+00:00"


def test_constructor_converts_the_epoch_to_the_zone() -> None:
    clock = Clock(datetime(2026, 1, 1, tzinfo=UTC), BERLIN, 5)
    assert clock.format(0) == "2026-01-01T01:00:00+01:00"


def test_ticks_count_real_time_across_spring_forward() -> None:
    clock = Clock.parse("2026-03-29T00:00:00", "Europe/Berlin", 3600)
    assert [clock.format(t) for t in range(4)] == [
        "2026-03-29T00:00:00+01:00",
        "2026-03-29T01:00:00+01:00",
        "2026-03-29T03:00:00+02:00",
        "2026-03-29T04:00:00+02:00",
    ]


def test_ticks_count_real_time_across_fall_back() -> None:
    clock = Clock.parse("2026-10-25T01:00:00", "Europe/Berlin", 3600)
    assert [clock.format(t) for t in range(4)] == [
        "2026-10-25T01:00:00+02:00",
        "2026-10-25T02:00:00+02:00",
        "2026-10-25T02:00:00+01:00",
        "2026-10-25T03:00:00+01:00",
    ]


def test_to_tick_ceil_moves_a_time_between_ticks_to_the_next_tick() -> None:
    clock = Clock.parse("2026-01-01T00:00:00", "UTC", 7)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    assert clock.to_tick_ceil(at) == 0
    assert clock.to_tick_ceil(at + timedelta(microseconds=1)) == 1
    assert clock.to_tick_ceil(at + timedelta(seconds=14)) == 2
    assert clock.to_tick_ceil(at + timedelta(seconds=15)) == 3
    assert clock.to_tick_ceil(at + timedelta(seconds=21)) == 3
    assert clock.to_tick_ceil(at - timedelta(seconds=1)) == 0
    assert clock.to_tick_ceil(at - timedelta(seconds=7)) == -1


def test_to_tick_ceil_tells_the_two_passes_of_a_repeated_hour_apart() -> None:
    clock = Clock.parse("2026-10-25T00:00:00", "Europe/Berlin")
    first = datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN)
    second = datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN, fold=1)
    assert clock.to_tick_ceil(first) == 9000
    assert clock.to_tick_ceil(second) == 12600


def test_to_tick_ceil_refuses_a_naive_datetime() -> None:
    with pytest.raises(ValueError, match="aware"):
        Clock.parse(None).to_tick_ceil(datetime(2026, 1, 1))


def test_a_local_time_in_a_repeated_hour_means_the_first_pass() -> None:
    assert parse_time("2026-10-25T02:30:00", BERLIN).isoformat() == "2026-10-25T02:30:00+02:00"
    assert (
        parse_time("2026-10-25T02:30:00+01:00", BERLIN).isoformat() == "2026-10-25T02:30:00+01:00"
    )


@pytest.mark.parametrize(
    ("epoch", "timezone", "tick", "field", "expected"),
    [
        (None, "Mars/Olympus", 1, "timezone", "IANA name"),
        (None, "", 1, "timezone", "IANA name"),
        (None, "Europe", 1, "timezone", "IANA name"),
        ("yesterday", "UTC", 1, "epoch", "ISO 8601"),
        ("2026-03-29T02:30:00", "Europe/Berlin", 1, "epoch", "does not exist in Europe/Berlin"),
        ("0001-01-01T00:00:00", "Europe/Berlin", 1, "epoch", "from 0001-01-02 to 9999-12-31"),
        ("0001-01-01T00:00:00", "UTC", 1, "epoch", "from 0001-01-02 to 9999-12-31"),
        ("0001-01-01T23:59:59+00:00", "UTC", 1, "epoch", "from 0001-01-02 to 9999-12-31"),
        ("9999-12-31T23:00:00-05:00", "UTC", 1, "epoch", "from 0001-01-02 to 9999-12-31"),
        ("9999-12-31T23:00:00+00:00", "Asia/Tokyo", 1, "epoch", "from 0001-01-02 to 9999-12-31"),
        (None, "UTC", 0, "tick", "positive whole number of seconds"),
        (None, "UTC", -5, "tick", "positive whole number of seconds"),
        (None, "UTC", 1.5, "tick", "positive whole number of seconds"),
        (None, "UTC", True, "tick", "positive whole number of seconds"),
    ],
)
def test_invalid_settings_name_the_field_and_what_was_expected(
    epoch: str | None, timezone: str, tick: int, field: str, expected: str
) -> None:
    with pytest.raises(ClockError) as caught:
        Clock.parse(epoch, timezone, tick)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ")
    assert expected in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_first_day_of_the_calendar_is_left_as_margin() -> None:
    """Schedules look a moment before the epoch (a cron run due exactly at tick 0): a clock
    starting on 0001-01-01 made ``cronlapse run`` an internal error (OverflowError)."""
    assert Clock.parse("0001-01-02T00:00:00", "UTC").to_datetime(0).year == 1


def test_a_naive_epoch_is_refused() -> None:
    with pytest.raises(ClockError) as caught:
        Clock(datetime(2026, 1, 1), BERLIN)
    assert caught.value.field == "epoch"


@settings(max_examples=200, database=None)
@given(
    tick=st.integers(min_value=-(10**7), max_value=10**7),
    tick_seconds=st.sampled_from([1, 7, 60, 90, 3600]),
    zone=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]),
)
def test_a_tick_maps_back_to_itself_and_a_moment_later_to_the_next_tick(
    tick: int, tick_seconds: int, zone: str
) -> None:
    clock = Clock.parse("2026-03-01T00:00:00", zone, tick_seconds)
    moment = clock.to_datetime(tick)
    assert clock.to_tick_ceil(moment) == tick
    assert clock.to_tick_ceil(moment.astimezone(UTC) + timedelta(microseconds=1)) == tick + 1


@settings(max_examples=200, database=None)
@given(
    ticks=st.lists(st.integers(min_value=-(10**7), max_value=10**7), min_size=1, max_size=5),
    tick_seconds=st.sampled_from([1, 7, 60, 90, 3600]),
    epoch=st.sampled_from(
        ["2026-03-29T01:59:00", "2026-10-25T02:30:00+01:00", "2026-01-01T00:00:00.25"]
    ),
    zone=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]),
)
def test_tick_times_format_each_tick_as_the_clock_does(
    ticks: list[int], tick_seconds: int, epoch: str, zone: str
) -> None:
    clock = Clock.parse(epoch, zone, tick_seconds)
    times = TickTimes(clock)
    assert [times.format(tick) for tick in ticks] == [clock.format(tick) for tick in ticks]


def test_tick_times_fail_as_the_clock_does_past_the_calendar() -> None:
    clock = Clock.parse("9999-12-31T00:00:00", "Europe/Berlin", 3600)
    with pytest.raises(OverflowError):
        clock.format(10**6)
    with pytest.raises(OverflowError):
        TickTimes(clock).format(10**6)


def test_clocks_from_the_two_passes_of_a_repeated_hour_differ() -> None:
    """Python compares two aware datetimes of one zone by their wall times, ignoring ``fold``:
    02:00 CEST and 02:00 CET were equal, so a clock starting at either was the other, and the
    remembered fire ticks of one schedule answered for the other (a test drawing both failed
    one time in ten)."""
    first_pass = datetime(2026, 10, 25, 0, 0, tzinfo=UTC)
    second_pass = first_pass + timedelta(hours=1)
    one, other = Clock(first_pass, BERLIN, 60), Clock(second_pass, BERLIN, 60)
    assert one.epoch.replace(tzinfo=None) == other.epoch.replace(tzinfo=None)  # both 02:00
    assert one != other
    assert len({one, other}) == 2
    late = CronSchedule("30 2 * * *", other, DstRule.SYSTEMD)
    assert [other.format(tick) for tick in late.fire_ticks(0, 180)] == []
    early = CronSchedule("30 2 * * *", one, DstRule.SYSTEMD)
    assert [one.format(tick) for tick in early.fire_ticks(0, 180)] == ["2026-10-25T02:30:00+02:00"]
