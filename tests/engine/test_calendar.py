"""Calendar schedules: cron in a time zone, its sugar, DST changes, and the tick mapping."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, timedelta
from itertools import pairwise

import pytest
from cronsim import CronSim
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.schedules import calendar
from engine.schedules.calendar import (
    CronSchedule,
    DstRule,
    ScheduleError,
    daily,
    monthly,
    parse_schedule_expression,
    weekly,
)
from engine.schedules.clock import Clock
from engine.schedules.kinds import Every, Once, Schedule, next_fire_times


def fires(expression: str, zone: str, start: str, n: int, tick: int = 1) -> list[str]:
    """The first ``n`` fire times at or after ``start`` (local time in ``zone``), as ISO text."""
    clock = Clock.parse(start, zone, tick)
    return [clock.format(t) for t in next_fire_times(CronSchedule(expression, clock), 0, n)]


# DST changes (Debian cron's rule, as cronsim implements it).


def test_berlin_daily_job_in_the_spring_gap_runs_once_at_the_jump() -> None:
    assert fires("30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00", 3) == [
        "2026-03-28T02:30:00+01:00",
        "2026-03-29T03:00:00+02:00",
        "2026-03-30T02:30:00+02:00",
    ]


def test_berlin_daily_job_in_the_repeated_hour_runs_once_in_the_first_pass() -> None:
    assert fires("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00", 2) == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-26T02:30:00+01:00",
    ]


def test_berlin_hourly_job_follows_real_time() -> None:
    assert fires("30 * * * *", "Europe/Berlin", "2026-03-29T00:00:00", 3) == [
        "2026-03-29T00:30:00+01:00",
        "2026-03-29T01:30:00+01:00",
        "2026-03-29T03:30:00+02:00",
    ]
    assert fires("30 * * * *", "Europe/Berlin", "2026-10-25T01:00:00", 4) == [
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:30:00+01:00",
        "2026-10-25T03:30:00+01:00",
    ]


def test_berlin_quarter_hour_job_runs_in_both_passes() -> None:
    assert fires("*/15 * * * *", "Europe/Berlin", "2026-10-25T02:00:00", 9) == [
        "2026-10-25T02:00:00+02:00",
        "2026-10-25T02:15:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:45:00+02:00",
        "2026-10-25T02:00:00+01:00",
        "2026-10-25T02:15:00+01:00",
        "2026-10-25T02:30:00+01:00",
        "2026-10-25T02:45:00+01:00",
        "2026-10-25T03:00:00+01:00",
    ]


def test_new_york_daily_job_in_the_spring_gap_runs_once_at_the_jump() -> None:
    assert fires("30 2 * * *", "America/New_York", "2026-03-07T00:00:00", 3) == [
        "2026-03-07T02:30:00-05:00",
        "2026-03-08T03:00:00-04:00",
        "2026-03-09T02:30:00-04:00",
    ]


def test_new_york_daily_job_in_the_repeated_hour_runs_once_in_the_first_pass() -> None:
    assert fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00", 2) == [
        "2026-11-01T01:30:00-04:00",
        "2026-11-02T01:30:00-05:00",
    ]


def test_new_york_hourly_job_follows_real_time() -> None:
    assert fires("30 * * * *", "America/New_York", "2026-03-08T00:00:00", 3) == [
        "2026-03-08T00:30:00-05:00",
        "2026-03-08T01:30:00-05:00",
        "2026-03-08T03:30:00-04:00",
    ]
    assert fires("30 * * * *", "America/New_York", "2026-11-01T00:00:00", 4) == [
        "2026-11-01T00:30:00-04:00",
        "2026-11-01T01:30:00-04:00",
        "2026-11-01T01:30:00-05:00",
        "2026-11-01T02:30:00-05:00",
    ]


def test_several_fixed_times_in_the_gap_become_one_run_at_the_jump() -> None:
    assert fires("0,30 2 * * *", "Europe/Berlin", "2026-03-29T00:00:00", 3) == [
        "2026-03-29T03:00:00+02:00",
        "2026-03-30T02:00:00+02:00",
        "2026-03-30T02:30:00+02:00",
    ]


def test_starting_in_the_second_pass_never_goes_back_to_the_first() -> None:
    # cronsim started here answers 02:50+02:00, which is 55 minutes before the start.
    assert fires("50 2 * * *", "Europe/Berlin", "2026-10-25T02:45:00+01:00", 1) == [
        "2026-10-26T02:50:00+01:00"
    ]
    assert fires("50 1 * * *", "America/New_York", "2026-11-01T01:45:00-05:00", 1) == [
        "2026-11-02T01:50:00-05:00"
    ]


def test_lord_howe_half_hour_changes() -> None:
    # Back from +11:00 to +10:30 at 02:00, forward from +10:30 to +11:00 at 02:00.
    assert fires("*/15 1 * * *", "Australia/Lord_Howe", "2026-04-05T00:00:00", 7) == [
        "2026-04-05T01:00:00+11:00",
        "2026-04-05T01:15:00+11:00",
        "2026-04-05T01:30:00+11:00",
        "2026-04-05T01:45:00+11:00",
        "2026-04-05T01:30:00+10:30",
        "2026-04-05T01:45:00+10:30",
        "2026-04-06T01:00:00+10:30",
    ]
    assert fires("45 1 * * *", "Australia/Lord_Howe", "2026-04-05T00:00:00", 2) == [
        "2026-04-05T01:45:00+11:00",
        "2026-04-06T01:45:00+10:30",
    ]
    assert fires("15 2 * * *", "Australia/Lord_Howe", "2026-10-04T00:00:00", 2) == [
        "2026-10-04T02:30:00+11:00",
        "2026-10-05T02:15:00+11:00",
    ]


def test_lord_howe_real_time_job_keeps_its_grid_after_the_change() -> None:
    # cronsim walking in the zone from before the change answers 00:30 the next day, not 00:00.
    assert fires("*/15 0 * * *", "Australia/Lord_Howe", "2026-04-05T00:00:00", 6) == [
        "2026-04-05T00:00:00+11:00",
        "2026-04-05T00:15:00+11:00",
        "2026-04-05T00:30:00+11:00",
        "2026-04-05T00:45:00+11:00",
        "2026-04-06T00:00:00+10:30",
        "2026-04-06T00:15:00+10:30",
    ]


# Month ends, names, nicknames.


def test_day_31_skips_short_months() -> None:
    assert fires("0 0 31 * *", "UTC", "2026-01-01T00:00:00", 7) == [
        "2026-01-31T00:00:00+00:00",
        "2026-03-31T00:00:00+00:00",
        "2026-05-31T00:00:00+00:00",
        "2026-07-31T00:00:00+00:00",
        "2026-08-31T00:00:00+00:00",
        "2026-10-31T00:00:00+00:00",
        "2026-12-31T00:00:00+00:00",
    ]


def test_last_day_of_month_includes_february_29_in_a_leap_year() -> None:
    assert fires(monthly("last", "06:00"), "UTC", "2028-01-01T00:00:00", 4) == [
        "2028-01-31T06:00:00+00:00",
        "2028-02-29T06:00:00+00:00",
        "2028-03-31T06:00:00+00:00",
        "2028-04-30T06:00:00+00:00",
    ]


def test_february_29_fires_only_in_leap_years() -> None:
    assert fires("0 0 29 2 *", "UTC", "2026-01-01T00:00:00", 2) == [
        "2028-02-29T00:00:00+00:00",
        "2032-02-29T00:00:00+00:00",
    ]


def test_weekday_and_month_names() -> None:
    # 2026-03-07 is a Saturday.
    assert fires("0 9 * * mon,fri", "UTC", "2026-03-07T00:00:00", 3) == [
        "2026-03-09T09:00:00+00:00",
        "2026-03-13T09:00:00+00:00",
        "2026-03-16T09:00:00+00:00",
    ]
    assert fires("*/15 9-17 * * MON-FRI", "UTC", "2026-03-07T00:00:00", 2) == [
        "2026-03-09T09:00:00+00:00",
        "2026-03-09T09:15:00+00:00",
    ]
    assert fires("0 0 1 jan,jul *", "UTC", "2026-03-07T00:00:00", 2) == [
        "2026-07-01T00:00:00+00:00",
        "2027-01-01T00:00:00+00:00",
    ]


@pytest.mark.parametrize(
    ("nickname", "expression", "first"),
    [
        ("@hourly", "0 * * * *", "2026-01-01T01:00:00+00:00"),
        ("@daily", "0 0 * * *", "2026-01-02T00:00:00+00:00"),
        ("@midnight", "0 0 * * *", "2026-01-02T00:00:00+00:00"),
        ("@weekly", "0 0 * * 0", "2026-01-04T00:00:00+00:00"),
        ("@monthly", "0 0 1 * *", "2026-02-01T00:00:00+00:00"),
        ("@yearly", "0 0 1 1 *", "2027-01-01T00:00:00+00:00"),
        ("@annually", "0 0 1 1 *", "2027-01-01T00:00:00+00:00"),
        ("@Daily", "0 0 * * *", "2026-01-02T00:00:00+00:00"),
    ],
)
def test_nicknames(nickname: str, expression: str, first: str) -> None:
    assert parse_schedule_expression(nickname) == expression
    assert fires(nickname, "UTC", "2026-01-01T00:30:00", 1) == [first]


# Builders: sugar over the cron path.


def test_builders_produce_cron_expressions() -> None:
    assert daily("02:30") == "30 2 * * *"
    assert daily("9:05") == "5 9 * * *"
    assert weekly(["mon", "fri"], "09:00") == "0 9 * * mon,fri"
    assert weekly([1, 5], "09:00") == "0 9 * * 1,5"
    assert monthly(15, "06:00") == "0 6 15 * *"
    assert monthly("last", "06:00") == "0 6 L * *"


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: daily("24:00"), "at"),
        (lambda: daily("2:5"), "at"),
        (lambda: daily("noon"), "at"),
        (lambda: daily(930), "at"),
        (lambda: weekly([], "09:00"), "days"),
        (lambda: weekly("mon", "09:00"), "days"),
        (lambda: weekly(["mon, fri"], "09:00"), "days"),
        (lambda: weekly(["mon fri"], "09:00"), "days"),
        (lambda: weekly(5, "09:00"), "days"),
        (lambda: weekly(["mon", "someday"], "09:00"), "day-of-week"),
        (lambda: monthly(0, "06:00"), "day-of-month"),
        (lambda: monthly(32, "06:00"), "day-of-month"),
        (lambda: monthly(True, "06:00"), "day"),
        (lambda: monthly("first", "06:00"), "day-of-month"),
    ],
)
def test_builders_reject_bad_input_naming_the_field(build: Callable[[], str], field: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        build()
    assert caught.value.field == field


# Validation messages.


@pytest.mark.parametrize(
    ("expression", "field", "expected"),
    [
        ("60 * * * *", "minute", "0-59"),
        ("*/0 * * * *", "minute", "0-59"),
        ("5-1 * * * *", "minute", "0-59"),
        ("* 24 * * *", "hour", "0-23"),
        ("* * 0 * *", "day-of-month", "1-31"),
        ("* * 32 * *", "day-of-month", "1-31"),
        ("* * * 13 *", "month", "jan-dec"),
        ("* * * foo *", "month", "jan-dec"),
        ("* * * * 8", "day-of-week", "sun-sat"),
        ("* * * * xyz", "day-of-week", "sun-sat"),
        ("0 0 30 2 *", "day-of-month", "never occurs in month field '2'"),
        ("* * * *", "expression", "expected 5 fields"),
        ("0 * * * * *", "expression", "expected 5 fields"),
        ("", "expression", "expected 5 fields"),
        ("@reboot", "expression", "expected one of @hourly"),
        (None, "expression", "expected a cron expression as text"),
    ],
)
def test_invalid_expressions_name_the_field_and_what_was_expected(
    expression: str, field: str, expected: str
) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule_expression(expression)
    message = str(caught.value)
    assert caught.value.field == field
    assert expected in message
    assert "\n" not in message
    if field in {"minute", "hour", "day-of-month", "month", "day-of-week"}:
        assert message.startswith(f"{field} field ")


def test_expression_whitespace_is_normalised() -> None:
    assert parse_schedule_expression("  30   2 * *\t* ") == "30 2 * * *"


# The tick mapping: ceil, collapse, the epoch.


def test_a_fire_time_between_ticks_fires_at_the_next_tick() -> None:
    clock = Clock.parse("2026-01-01T00:00:00", "UTC", 7)
    schedule = CronSchedule("* * * * *", clock)
    # 00:00 is tick 0; 00:01 (60 s) rounds up to tick 9 (63 s); 00:02 (120 s) to 18 (126 s).
    assert next_fire_times(schedule, 0, 3) == [0, 9, 18]
    assert schedule.contains(9)
    assert not schedule.contains(8)
    assert not schedule.contains(10)


def test_an_epoch_between_fire_times_shifts_them_to_the_next_tick() -> None:
    assert fires("* * * * *", "UTC", "2026-01-01T00:00:30", 2, tick=60) == [
        "2026-01-01T00:01:30+00:00",
        "2026-01-01T00:02:30+00:00",
    ]


def test_fire_times_within_one_tick_collapse_into_one_fire() -> None:
    clock = Clock.parse("2026-01-01T00:00:00", "UTC", 3600)
    schedule = CronSchedule("*/15 * * * *", clock)
    # 00:15, 00:30, 00:45 and 01:00 all round up to tick 1 (01:00).
    assert next_fire_times(schedule, 0, 3) == [0, 1, 2]
    clock = Clock.parse("2026-01-01T00:00:00", "UTC", 90)
    # 120 s and 180 s both round up to tick 2 (180 s).
    assert next_fire_times(CronSchedule("* * * * *", clock), 0, 4) == [0, 1, 2, 3]


def test_nothing_fires_before_the_epoch() -> None:
    clock = Clock.parse("2026-01-01T00:00:30", "UTC", 60)
    schedule = CronSchedule("0 0 * * *", clock)
    # Midnight is 30 s before the epoch: ignored, not moved to tick 0.
    assert schedule.first_at_or_after(-100) == 1440
    assert not schedule.contains(0)
    assert not schedule.contains(-1)
    assert clock.format(1440) == "2026-01-02T00:00:30+00:00"


def test_a_fire_time_at_the_epoch_is_tick_0() -> None:
    schedule = CronSchedule("0 0 * * *", Clock.parse("2026-01-01T00:00:00", "UTC", 60))
    assert schedule.first_at_or_after(0) == 0
    assert schedule.contains(0)


def test_queries_far_from_the_epoch_start_near_the_requested_tick() -> None:
    schedule = CronSchedule("0 0 1 1 *", Clock.parse(None, "UTC"))
    assert schedule.first_at_or_after(1_767_225_601) == 1_798_761_600  # 2026 -> 2027-01-01


def test_describe_and_protocol() -> None:
    clock = Clock.parse(None, "Europe/Berlin")
    assert CronSchedule("30 2 * * *", clock).describe() == "cron 30 2 * * * (Europe/Berlin)"
    assert CronSchedule("@daily", Clock.parse(None)).describe() == "cron @daily (UTC)"
    assert isinstance(CronSchedule("30 2 * * *", clock), Schedule)


def test_an_invalid_expression_cannot_make_a_schedule() -> None:
    with pytest.raises(ScheduleError):
        CronSchedule("* * * * 9", Clock.parse(None))


def test_next_fire_times_works_for_any_schedule() -> None:
    assert next_fire_times(Every(3, 5), 0, 3) == [3, 8, 13]
    assert next_fire_times(Every(3, 5), 4, 2) == [8, 13]
    assert next_fire_times(Once(4), 0, 5) == [4]
    assert next_fire_times(Once(4), 5, 5) == []


# Properties across zones and expressions, near each zone's DST changes.

# Local midnight two days before a change (Kolkata and UTC have none), so a four-day window
# covers the change with quiet time on both sides.
WINDOW_STARTS = [
    ("UTC", "2026-03-27"),
    ("Asia/Kolkata", "2026-03-27"),
    ("Europe/Berlin", "2026-03-27"),
    ("Europe/Berlin", "2026-10-23"),
    ("America/New_York", "2026-03-06"),
    ("America/New_York", "2026-10-30"),
    ("Australia/Lord_Howe", "2026-04-03"),
    ("Australia/Lord_Howe", "2026-10-02"),
]

expressions = st.tuples(
    st.sampled_from(["0", "30", "45", "59", "*/15", "*/7", "*", "0,30", "5-10"]),
    st.sampled_from(["*", "0", "1", "2", "3", "1-3", "2,3", "*/2"]),
    st.sampled_from(["*", "*", "*", "L", "1", "4-6", "29", "31"]),
    st.sampled_from(["*", "*", "*", "mon-fri", "sun", "0,6"]),
).map(lambda f: f"{f[0]} {f[1]} {f[2]} * {f[3]}")

schedules = st.builds(
    lambda start, tick, expression: CronSchedule(
        expression, Clock.parse(f"{start[1]}T00:00:00", start[0], tick)
    ),
    st.sampled_from(WINDOW_STARTS),
    st.sampled_from([1, 7, 60, 90, 300, 3600]),
    expressions,
)

WINDOW = 4 * 86_400  # seconds of simulated time the properties look at
SPAN = 8 * 3_600  # seconds walked per example


def walk(schedule: CronSchedule, low: int, high: int) -> list[int]:
    """Every fire tick in [low, high], found by walking first_at_or_after forward."""
    ticks = []
    tick = schedule.first_at_or_after(low)
    while tick is not None and tick <= high:
        ticks.append(tick)
        tick = schedule.first_at_or_after(tick + 1)
    return ticks


@settings(max_examples=150, database=None)
@given(schedule=schedules, data=st.data())
def test_walk_is_strictly_increasing_and_agrees_with_contains(
    schedule: CronSchedule, data: st.DataObject
) -> None:
    size = schedule.clock.tick_seconds
    low = data.draw(st.integers(0, WINDOW // size), label="low")
    high = low + SPAN // size
    ticks = walk(schedule, low, high)
    assert all(a < b for a, b in pairwise(ticks))
    assert all(low <= t <= high for t in ticks)
    fired = set(ticks)
    probes = data.draw(st.lists(st.integers(low, high), max_size=30), label="probes")
    for t in probes + ticks:
        assert schedule.contains(t) == (t in fired)
        # What the engine's binary searches rely on: the next fire at or after t is stable.
        following = schedule.first_at_or_after(t)
        assert following is None or schedule.first_at_or_after(following) == following


@settings(max_examples=150, database=None)
@given(schedule=schedules, data=st.data())
def test_one_walk_gives_the_fire_ticks_that_first_at_or_after_gives(
    schedule: CronSchedule, data: st.DataObject
) -> None:
    """A backlog is counted from one cronsim walk; each fire must be the one a fresh query
    from the tick after the last gives (the engine's own walk), across DST changes too."""
    size = schedule.clock.tick_seconds
    low = data.draw(st.integers(0, WINDOW // size), label="low")
    high = low + data.draw(st.integers(0, SPAN // size), label="span")
    assert list(schedule.fire_ticks(low, high)) == walk(schedule, low, high)


def real_time_oracle(schedule: CronSchedule, low: int, high: int) -> list[int]:
    """Fire ticks in [low, high] by checking every minute's own wall time against the fields."""
    clock, cron = schedule.clock, schedule.cron
    found: set[int] = set()
    instant = clock.to_datetime(low - 1).astimezone(UTC).replace(second=0, microsecond=0)
    end = clock.to_datetime(high).astimezone(UTC)
    while instant <= end:
        wall = instant.astimezone(clock.zone).replace(tzinfo=None)
        matches = next(CronSim(cron, wall - timedelta(seconds=1))) == wall
        if matches and instant >= clock.epoch and low <= clock.to_tick_ceil(instant) <= high:
            found.add(clock.to_tick_ceil(instant))
        instant += timedelta(minutes=1)
    return sorted(found)


@settings(max_examples=60, database=None)
@given(schedule=schedules, data=st.data())
def test_real_time_jobs_fire_when_the_local_wall_clock_matches(
    schedule: CronSchedule, data: st.DataObject
) -> None:
    minute, hour = schedule.cron.split()[:2]
    if not (minute.startswith("*") or hour.startswith("*")):
        minute = "*/15"  # keep every example a real-time job
        schedule = CronSchedule(" ".join([minute, *schedule.cron.split()[1:]]), schedule.clock)
    size = schedule.clock.tick_seconds
    low = data.draw(st.integers(0, WINDOW // size), label="low")
    high = low + 4 * 3_600 // size
    assert walk(schedule, low, high) == real_time_oracle(schedule, low, high)


def test_jobs_on_one_expression_share_its_cron_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API shows every job's next runs: a thousand jobs on one expression cost the walks
    of one, not a thousand (each walk builds a cronsim iterator)."""
    walks = []
    real = calendar._fire_times_after

    def counted(*args):
        walks.append(args)
        return real(*args)

    monkeypatch.setattr(calendar, "_fire_times_after", counted)
    calendar._first_fire_tick.cache_clear()
    clock = Clock.parse("2026-01-01T00:00:00", "Europe/Berlin", 60)
    schedules = [CronSchedule("0 3 1 1 *", clock) for _ in range(1_000)]
    answers = {tuple(next_fire_times(schedule, 10, 5)) for schedule in schedules}
    assert len(answers) == 1 and len(next(iter(answers))) == 5
    assert len(walks) == 5


@pytest.mark.parametrize("tick", [10**14, 10**15])
def test_a_tick_past_the_year_9999_has_no_fire_time(tick: int) -> None:
    """A date stops at the year 9999, and so does a calendar schedule: asked about a tick the
    clock cannot name, it answers, where it raised OverflowError (``cronlapse explain run
    extract@100000000000000`` was an internal error)."""
    schedule = CronSchedule("30 2 * * *", Clock.parse("2026-03-23T00:00:00", "Europe/Berlin", 60))
    assert schedule.first_at_or_after(tick) is None
    assert not schedule.contains(tick)


def test_a_clock_from_the_first_day_it_can_name_has_a_first_fire_time() -> None:
    schedule = CronSchedule("0 0 * * *", Clock.parse("0001-01-02T00:00:00", "UTC", 60))
    assert schedule.first_at_or_after(0) == 0


# Santiago changes its clocks at midnight: a day there can start in a skipped or repeated hour.
COUNT_WINDOW_STARTS = [
    *WINDOW_STARTS,
    ("America/Santiago", "2026-04-02"),
    ("America/Santiago", "2026-09-04"),
]
DAYS = 86_400
# Hours whose last run falls in a skipped or repeated hour (02:00 in Berlin and New York,
# midnight in Santiago) as well as around them.
count_expressions = st.tuples(
    st.sampled_from(["0", "30", "*/15", "*/7", "*", "0,30", "5-10"]),
    st.sampled_from(["*", "0-1", "0-2", "1-2", "1-3", "2", "*/3", "22-23", "23", "0,23"]),
    st.sampled_from(["*", "*", "*", "L", "1", "4-6", "31"]),
    st.sampled_from(["*", "*", "*", "mon-fri", "sun", "0,6"]),
).map(lambda f: f"{f[0]} {f[1]} {f[2]} * {f[3]}")


@settings(max_examples=120, database=None)
@given(
    start=st.sampled_from(COUNT_WINDOW_STARTS),
    tick=st.sampled_from([1, 7, 30, 60, 90, 3600]),
    expression=count_expressions,
    data=st.data(),
)
def test_a_count_of_fire_ticks_is_the_length_of_their_walk(
    start: tuple[str, str], tick: int, expression: str, data: st.DataObject
) -> None:
    """A backlog's count skips whole days that are like a day already walked; it must give what
    walking every fire gives, over spans of several days across DST changes (a day of a
    change, a day ending in one, one starting in a skipped hour)."""
    schedule = CronSchedule(expression, Clock.parse(f"{start[1]}T00:00:00", start[0], tick))
    low = data.draw(st.integers(0, 2 * DAYS // tick), label="low")
    high = low + data.draw(st.integers(-1, 5 * DAYS // tick), label="span")
    assert schedule.count_fire_ticks(low, high) == sum(1 for _ in schedule.fire_ticks(low, high))


@pytest.mark.parametrize("start", COUNT_WINDOW_STARTS)
@pytest.mark.parametrize(
    "expression", ["*/15 0-2 * * *", "* 0-1 * * *", "*/30 22-23 * * *", "5-10 2 * * *"]
)
def test_a_count_across_a_dst_change_is_the_length_of_the_walk(
    start: tuple[str, str], expression: str
) -> None:
    """The days the properties above reach rarely: a whole day walked, then a day whose last
    run is in the hour the clocks skip or repeat (its count must not be a plain day's)."""
    schedule = CronSchedule(expression, Clock.parse(f"{start[1]}T00:00:00", start[0], 60))
    high = 5 * DAYS // 60
    assert schedule.count_fire_ticks(1, high) == sum(1 for _ in schedule.fire_ticks(1, high))


def test_a_year_of_minutely_runs_is_counted_a_day_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Complexity, not time: counting a year of ``* * * * *`` in Berlin starts cronsim about
    once a day (plus the walked days: the first two and the two DST changes), where walking it
    steps cronsim once a fire (525,600)."""
    schedule = CronSchedule("* * * * *", Clock.parse("2026-01-01T00:00:00", "Europe/Berlin", 60))
    starts = 0
    original = calendar._fire_times_after

    def counted(*arguments):
        nonlocal starts
        starts += 1
        return original(*arguments)

    monkeypatch.setattr(calendar, "_fire_times_after", counted)
    fires = schedule.count_fire_ticks(1, 365 * 1440)
    assert fires == 365 * 1440  # a minutely job keeps to real time: 1,440 fires every day
    assert starts < 400


def test_a_count_from_tick_0_starts_at_the_epoch_even_right_after_a_jump() -> None:
    """The instant before the epoch is taken in UTC: a microsecond before 03:00 CEST on the day
    Berlin springs forward is a wall time the clocks skip."""
    clock = Clock.parse("2026-03-29T03:00:00", "Europe/Berlin", 60)
    schedule = CronSchedule("*/15 * * * *", clock)
    assert schedule.count_fire_ticks(0, 200) == sum(1 for _ in schedule.fire_ticks(0, 200))


def test_equal_schedules_hash_alike_and_unequal_ones_stay_apart() -> None:
    # A schedule's and a clock's hash leave out what is slow to hash (the epoch, the rule):
    # equal ones must still hash alike, and the others be told apart by equality, also by the
    # remembered fire ticks.
    berlin = "Europe/Berlin"
    one = CronSchedule("0 2 * * *", Clock.parse("2026-10-25T00:00:00", berlin, 60))
    same = CronSchedule("0 2 * * *", Clock.parse("2026-10-24T22:00:00+00:00", berlin, 60))
    assert one == same and hash(one) == hash(same) and hash(one.clock) == hash(same.clock)
    later = CronSchedule("0 2 * * *", Clock.parse("2026-10-26T01:00:00", berlin, 60))
    systemd = CronSchedule("0 2 * * *", one.clock, DstRule.SYSTEMD)
    assert len({one, same, later, systemd}) == 3
    assert (one.first_at_or_after(0), later.first_at_or_after(0)) == (120, 60)
