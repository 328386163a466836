"""systemd calendar events (``OnCalendar=``) read as systemd reads them and written as cron.

The elapses in corpus/systemd/calendar-events.json were printed by ``systemd-analyze calendar
--iterations=5`` (systemd 252); cronlapse's reading must give the same times, and where the
machine has systemd-analyze, it is asked again so that the file cannot drift from it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cronsim import CronSim
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.importers.calendar_event import CalendarError, parse_calendar_event
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock, parse_zone
from engine.schedules.kinds import next_fire_times

EVENTS = json.loads(
    (Path(__file__).parent / "corpus" / "systemd" / "calendar-events.json").read_text()
)
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _cronlapse_elapses(event: str, after: str) -> list[str]:
    parsed = parse_calendar_event(event)
    clock = Clock(_instant(after), parse_zone(parsed.timezone or "UTC"), 60)
    ticks = next_fire_times(CronSchedule(parsed.cron(), clock), 1, 5)
    return [clock.to_datetime(t).astimezone(UTC).isoformat().replace("+00:00", "Z") for t in ticks]


@pytest.mark.parametrize("case", EVENTS, ids=[case["event"] for case in EVENTS])
def test_cronlapse_reads_each_event_as_systemd_analyze_did(case: dict) -> None:
    assert _cronlapse_elapses(case["event"], case["after"]) == case["elapses"]


@pytest.mark.e2e
@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed here")
@pytest.mark.parametrize("case", EVENTS, ids=[case["event"] for case in EVENTS])
def test_the_recorded_elapses_are_what_systemd_analyze_prints(case: dict) -> None:
    epoch = int(_instant(case["after"]).timestamp())
    command = [str(SYSTEMD_ANALYZE), "calendar", "--iterations=5", f"--base-time=@{epoch}"]
    printed = subprocess.run(
        [*command, case["event"]],
        env={**os.environ, "TZ": "UTC"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    elapses = [
        line.split(": ", 1)[1].split(" ", 1)[1].removesuffix(" UTC").replace(" ", "T") + "Z"
        for line in printed.splitlines()
        if line.strip().startswith(("Next elapse:", "Iter. #"))
    ]
    assert elapses == case["elapses"]


@pytest.mark.parametrize(
    ("event", "cron"),
    [
        ("daily", "0 0 * * *"),
        ("weekly", "0 0 * * 1"),
        ("quarterly", "0 0 1 */3 *"),
        ("Mon..Fri *:0/15", "*/15 * * * 1-5"),
        ("Mon-Fri 10:00", "0 10 * * 1-5"),
        ("Sat..Sun 0:0", "0 0 * * 0,6"),
        ("*-*-* 8..18/2:00", "0 8-18/2 * * *"),
        ("0/20:0", "0 0,20 * * *"),
        ("*-*~01 23:00", "0 23 L * *"),
        ("Sat *-*-1..7 18:00", "0 18 * * 6#1"),
        ("Mon,Fri *-*-22..28 18:00", "0 18 * * 1#4,5#4"),
        ("Mon *-05~07/1", "0 0 * 5 1L"),
        ("*-*-* 07:30 Europe/London", "30 7 * * *"),
    ],
)
def test_each_event_becomes_the_cron_expression_of_the_same_minutes(event: str, cron: str) -> None:
    assert parse_calendar_event(event).cron() == cron


@pytest.mark.parametrize(
    ("event", "column", "message"),
    [
        ("*-*-* 25:00", 6, "hour '25': expected values from 0 to 23"),
        ("*:*/15", 2, "minute '*/15': expected '*', a number"),
        ("Tue..Mon 1:00", 0, "weekday range 'Tue..Mon' runs backwards"),
        ("Mon Wed 1:0", 4, "'Wed': expected WEEKDAYS YEAR-MONTH-DAY"),
        ("Funday 1:0", 0, "weekday 'Funday': expected Mon"),
        ("*-13-01", 2, "month '13': expected values from 1 to 12"),
        ("*-*-* 18/6:00", 6, "hour '18/6': a repetition must repeat: expected 18 + 6 to be at"),
        ("2026-*-* 1:00", 0, "a year (2026) cannot be written as cron"),
        ("*-*-* 1:00:30", 0, "seconds 30: a scenario's tick is a minute"),
        ("*-*-* 1:00:00.²", 11, "second '00.²': expected 0-59"),
        ("*-*~7/2 3:00", 0, "days counted from the month's end other than the last"),
        ("Wed *-*-1,2,3 00:00", 0, "a weekday and a day of the month together"),
        ("", 0, "expected a calendar event"),
    ],
)
def test_an_event_cron_cannot_say_is_refused_with_its_column(
    event: str, column: int, message: str
) -> None:
    with pytest.raises(CalendarError) as caught:
        parse_calendar_event(event).cron()
    assert (caught.value.column, str(caught.value)[: len(message)]) == (column, message)


@given(st.sets(st.integers(0, 59), min_size=1))
def test_any_set_of_minutes_is_written_as_a_cron_field_of_exactly_those(minutes: set[int]) -> None:
    text = ",".join(str(m) for m in sorted(minutes))
    cron = parse_calendar_event(f"*-*-* 0:{text}").cron()
    fires = CronSim(cron, datetime(2026, 1, 4, 23, 59))  # the next fires: 00:MM on the 5th
    found = {fire.minute for fire in (next(fires) for _ in range(len(minutes))) if fire.hour == 0}
    assert found == minutes


@given(st.integers(0, 1439 * 2))
def test_a_delay_moves_a_daily_time_to_that_many_minutes_later(delay: int) -> None:
    moved = parse_calendar_event("*-*-* 01:00").shifted(delay)
    assert moved is not None
    (hour,), (minute,) = moved.hours, moved.minutes
    assert hour * 60 + minute == (60 + delay) % 1440


def test_a_delay_that_would_cross_midnight_on_chosen_days_is_not_a_shift() -> None:
    assert parse_calendar_event("Mon 23:30").shifted(45) is None
    assert parse_calendar_event("*-*-* 1:00,30").shifted(45) is None  # 01:45, 02:15: not a grid
    assert parse_calendar_event("Mon 23:30").shifted(20) is not None


def _values(draw: st.DrawFn, low: int, high: int) -> str:
    """A systemd component: ``*``, a list of values, a range ``a..b`` or a repetition ``a/n``."""
    form = draw(st.sampled_from(["*", "list", "range", "repetition"]))
    if form == "*":
        return "*"
    first = draw(st.integers(low, high))
    if form == "range":
        return f"{first:02d}..{draw(st.integers(first, high)):02d}"
    if form == "repetition":
        return f"{first:02d}/{draw(st.integers(1, high - low + 1))}"
    values = sorted(draw(st.sets(st.integers(low, high), min_size=1, max_size=4)))
    return ",".join(f"{value:02d}" for value in values)


@st.composite
def _events(draw: st.DrawFn) -> str:
    names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    weekdays = draw(st.one_of(st.none(), st.sets(st.sampled_from(names), min_size=1)))
    day = "*" if weekdays else _values(draw, 1, 28)
    parts = [",".join(sorted(weekdays, key=names.index))] if weekdays else []
    parts.append(f"*-{_values(draw, 1, 12)}-{day}")
    parts.append(f"{_values(draw, 0, 23)}:{_values(draw, 0, 59)}:00")
    parts.append(draw(st.sampled_from(["UTC", "Asia/Kolkata", "Asia/Tokyo"])))  # no DST
    return " ".join(parts)


@pytest.mark.e2e
@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed here")
@settings(max_examples=40)
@given(_events())
def test_any_event_of_values_lists_and_zones_elapses_as_systemd_analyze_says(event: str) -> None:
    after = "2026-01-05T00:00:00Z"
    command = [str(SYSTEMD_ANALYZE), "calendar", "--iterations=5", "--base-time=@1767571200"]
    printed = subprocess.run(
        [*command, event], env={**os.environ, "TZ": "UTC"}, capture_output=True, text=True
    )
    if printed.returncode != 0:  # systemd refuses it: so must cronlapse
        with pytest.raises(CalendarError):
            parse_calendar_event(event)
        return
    elapses = [
        line.split(": ", 1)[1].split(" ", 1)[1].removesuffix(" UTC").replace(" ", "T") + "Z"
        for line in printed.stdout.splitlines()
        if line.strip().startswith(("Next elapse:", "Iter. #"))
    ]
    assert _cronlapse_elapses(event, after) == elapses
