"""systemd's own rules in an imported timer, held against its calendar parser
(``src/shared/calendarspec.c``) and tests (``src/test/test-calendarspec.c``): every event it
accepts is imported or listed as not imported with the true reason, and only what it rejects is
refused (issue 37, item 6)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from import_helpers import cronlapse

from cronlapse.importers.calendar_event import CalendarError, NoCronForm, parse_calendar_event
from cronlapse.importers.fleet import ImportOptions, import_fleet


@pytest.mark.parametrize(
    ("event", "cron"),
    [
        ("Wed, 17:48", "48 17 * * 3"),  # a trailing comma after the weekdays
        ("semi-annually", "0 0 1 1,7 *"),
        ("bi-annually", "0 0 1 1,7 *"),
        ("anually", "0 0 1 1 *"),  # systemd's old misspelling, still accepted
        ("*-*-* 02:00 Utc", "0 2 * * *"),  # " UTC" in any case
        ("daily utc", "0 0 * * *"),
        ("*-*~1", "0 0 L * *"),
    ],
)
def test_events_systemd_accepts_are_read(event: str, cron: str) -> None:
    assert parse_calendar_event(event).cron() == cron


def test_utc_in_any_case_is_utc() -> None:
    assert parse_calendar_event("*-*-* 02:00 Utc").timezone == "UTC"


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ("26-01-01 00:00", "a year (2026)"),  # two digits: 2026, as systemd reads it
        ("89-01-01 00:00", "a year (1989)"),
        ("*-*-* 00:00:00.5", "seconds 00.5"),
        ("*-*-* 00:00:10..20", "seconds 10..20"),
        ("@1700000000", "a single instant, 2023-11-14T22:13:20 UTC"),
        ("*-*~7/2", "days counted from the month's end"),
    ],
)
def test_events_systemd_runs_but_cron_cannot_say_are_listed_with_the_reason(
    event: str, reason: str
) -> None:
    with pytest.raises(NoCronForm, match=re.escape(reason)):
        parse_calendar_event(event).cron()


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ("*-*~5/5", "systemd refuses"),
        ("*~29", "more than 28 days from the month's end"),
        ("*~16..31", "more than 28 days from the month's end"),
        ("Mon.. 12:00", "weekday"),
    ],
)
def test_events_systemd_rejects_are_refused(event: str, reason: str) -> None:
    with pytest.raises(CalendarError, match=reason) as refused:
        parse_calendar_event(event).cron()
    assert not isinstance(refused.value, NoCronForm)


def test_a_timer_systemd_runs_but_cron_cannot_say_is_listed_and_the_import_goes_on(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.timer").write_text("[Timer]\nOnCalendar=26-01-01 00:00\n")
    (tmp_path / "b.timer").write_text("[Timer]\nOnCalendar=Wed, 17:48\n")
    fleet = import_fleet(
        "systemd", [str(tmp_path / "a.timer"), str(tmp_path / "b.timer")], ImportOptions()
    )
    assert fleet.jobs == 1
    assert len(fleet.skipped) == 1 and "a year (2026)" in fleet.skipped[0]


def test_the_machines_zone_reads_timers_and_crontab_lines_without_one(tmp_path: Path) -> None:
    """systemd reads an event without a zone, and cron a line before any CRON_TZ=, in the zone
    the machine runs in: --zone says which."""
    timer = tmp_path / "backup.timer"
    timer.write_text("[Timer]\nOnCalendar=*-*-* 02:30\n")
    crontab = tmp_path / "crontab"
    crontab.write_text("30 2 * * * /usr/local/bin/backup\n")
    for kind, path in (("systemd", timer), ("crontab", crontab)):
        fleet = import_fleet(kind, [str(path)], ImportOptions(zone="Europe/Berlin"))
        (job,) = fleet.scenario.jobs
        assert job.schedule.clock.zone.key == "Europe/Berlin", kind
        assert fleet.scenario.clock is not None
        assert fleet.scenario.clock.zone.key == "Europe/Berlin"
        unset = import_fleet(kind, [str(path)], ImportOptions()).scenario.jobs[0]
        assert unset.schedule.clock.zone.key == "UTC"


def test_the_zone_option_is_checked_before_any_file_is_read(tmp_path: Path) -> None:
    status, _, err = cronlapse("import", "systemd", str(tmp_path / "x.timer"), "--zone", "Mars")
    assert status == 2
    assert err == (
        "cronlapse import: --zone: unknown time zone 'Mars': expected an IANA name such as "
        "'Europe/Berlin' or 'UTC'\n"
    )
