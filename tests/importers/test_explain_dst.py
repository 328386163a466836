"""``cronlapse explain dst``: each scheduler's fires around a year's DST changes, side by side."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from import_helpers import cronlapse

from cronlapse.analyses.explain.dst import RULES, changes, first_pass_fires

LONDON, NEW_YORK = ZoneInfo("Europe/London"), ZoneInfo("America/New_York")

NEW_YORK_0230 = """\
30 2 * * * in America/New_York, 2026

Spring forward, 2026-03-08: 02:00 jumps to 03:00 (-05:00 to -04:00); 02:00-02:59 do not exist
  fires from 00:00 to 04:59, local:
  cronlapse (cronsim, Debian cron)  03:00-04:00
  Kubernetes (robfig/cron v3)       none
  Nomad (periodic)                  none
  systemd (OnCalendar=)             none
  Airflow (cron timetables)         03:30-04:00
  differ from cronlapse: Kubernetes, Nomad, systemd, Airflow

Fall back, 2026-11-01: 02:00 goes back to 01:00 (-04:00 to -05:00); 01:00-01:59 happen twice
  fires from 00:00 to 02:59, local:
  cronlapse (cronsim, Debian cron)  02:30-05:00
  Kubernetes (robfig/cron v3)       02:30-05:00
  Nomad (periodic)                  02:30-05:00
  systemd (OnCalendar=)             02:30-05:00
  Airflow (cron timetables)         02:30-05:00
  all agree
"""

LONDON_0130 = """\
30 1 * * * in Europe/London, 2026

Spring forward, 2026-03-29: 01:00 jumps to 02:00 (+00:00 to +01:00); 01:00-01:59 do not exist
  fires from 23:00 to 03:59, local:
  cronlapse (cronsim, Debian cron)  02:00+01:00
  Kubernetes (robfig/cron v3)       none
  Nomad (periodic)                  none
  systemd (OnCalendar=)             none
  Airflow (cron timetables)         02:30+01:00
  differ from cronlapse: Kubernetes, Nomad, systemd, Airflow

Fall back, 2026-10-25: 02:00 goes back to 01:00 (+01:00 to +00:00); 01:00-01:59 happen twice
  fires from 00:00 to 02:59, local:
  cronlapse (cronsim, Debian cron)  01:30+01:00
  Kubernetes (robfig/cron v3)       01:30+01:00, 01:30+00:00
  Nomad (periodic)                  01:30+01:00, 01:30+00:00
  systemd (OnCalendar=)             01:30+01:00
  Airflow (cron timetables)         01:30+01:00
  differ from cronlapse: Kubernetes, Nomad
"""


@pytest.mark.parametrize(
    ("cron", "zone", "table"),
    [
        ("30 2 * * *", "America/New_York", NEW_YORK_0230),
        ("30 1 * * *", "Europe/London", LONDON_0130),
    ],
)
def test_a_fixed_time_job_in_the_gap_and_the_fold_side_by_side(
    cron: str, zone: str, table: str
) -> None:
    assert cronlapse("explain", "dst", "--cron", cron, "--tz", zone, "--year", "2026") == (
        0,
        table,
        "",
    )


def _fires(cron: str, zone: ZoneInfo, day: str) -> dict[str, list[str]]:
    """Each rule's fires, as local HH:MM+offset, within two hours of the change on ``day``."""
    (change,) = [c for c in changes(zone, 2026) if f"{c.instant:%Y-%m-%d}" == day]
    start, end = change.instant - timedelta(hours=2), change.instant + timedelta(hours=2)
    return {
        rule.name.split(" (")[0]: [
            f"{f.astimezone(zone):%H:%M%z}" for f in rule.fires(cron, zone, start, end)
        ]
        for rule in RULES
    }


def test_an_hourly_job_runs_in_both_passes_of_the_fold_except_under_systemd() -> None:
    fires = _fires("30 * * * *", NEW_YORK, "2026-11-01")
    both = ["00:30-0400", "01:30-0400", "01:30-0500", "02:30-0500"]
    assert fires == {
        "cronlapse": both,
        "Kubernetes": both,
        "Nomad": both,
        "systemd": ["00:30-0400", "01:30-0400", "02:30-0500"],
        "Airflow": both,
    }


def test_an_hourly_job_skips_the_gap_everywhere() -> None:
    fires = _fires("30 * * * *", LONDON, "2026-03-29")
    assert set(map(tuple, fires.values())) == {
        ("23:30+0000", "00:30+0000", "02:30+0100", "03:30+0100")
    }


def test_airflow_moves_a_gap_time_by_the_gap_and_cronlapse_to_the_jump() -> None:
    fires = _fires("15 2 * * *", NEW_YORK, "2026-03-08")
    assert (fires["Airflow"], fires["cronlapse"]) == (["03:15-0400"], ["03:00-0400"])


def test_the_changes_of_a_year_are_found_to_the_second() -> None:
    assert [(c.instant, c.gap) for c in changes(LONDON, 2026)] == [
        (datetime(2026, 3, 29, 1, tzinfo=UTC), True),
        (datetime(2026, 10, 25, 1, tzinfo=UTC), False),
    ]
    assert [c.instant.hour for c in changes(NEW_YORK, 2026)] == [7, 6]
    assert changes(ZoneInfo("Asia/Tokyo"), 2026) == []


def test_a_zone_without_changes_says_so() -> None:
    status, out, _ = cronlapse(
        "explain", "dst", "--cron", "@daily", "--tz", "UTC", "--year", "2026"
    )
    assert (status, out) == (
        0,
        "0 0 * * * in UTC, 2026\nUTC does not change its UTC offset in 2026\n",
    )


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (["--cron", "0 25 * * *", "--tz", "UTC", "--year", "2026"], "hour field '25' is invalid"),
        (["--cron", "@daily", "--tz", "Mars/Olympus", "--year", "2026"], "--tz: unknown time zone"),
        (["--cron", "@daily", "--tz", "UTC", "--year", "12026"], "--year: expected 1970 to 2200"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(arguments: list[str], problem: str) -> None:
    status, out, err = cronlapse("explain", "dst", *arguments)
    assert (status, out) == (2, "") and err.startswith(f"cronlapse explain dst: {problem}")
    assert err.count("\n") == 1


SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


@pytest.mark.e2e
@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed here")
@pytest.mark.parametrize("zone", [LONDON, NEW_YORK])
@pytest.mark.parametrize(("cron", "event"), [("30 1 * * *", "01:30"), ("15 * * * *", "*:15")])
def test_the_systemd_rule_is_what_systemd_analyze_prints(
    zone: ZoneInfo, cron: str, event: str
) -> None:
    for change in changes(zone, 2026):
        start = change.instant - timedelta(hours=2)
        expected = first_pass_fires(cron, zone, start, change.instant + timedelta(hours=2))
        base = int((start - timedelta(seconds=1)).timestamp())
        iterations, base_time = f"--iterations={len(expected)}", f"--base-time=@{base}"
        printed = subprocess.run(
            [str(SYSTEMD_ANALYZE), "calendar", iterations, base_time, f"*-*-* {event} {zone.key}"],
            env={**os.environ, "TZ": "UTC"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        elapses = [
            datetime.strptime(line.split(": ", 1)[1][4:], "%Y-%m-%d %H:%M:%S UTC").replace(
                tzinfo=UTC
            )
            for line in printed.splitlines()
            if line.strip().startswith(("Next elapse:", "Iter. #"))
        ]
        assert elapses == expected
