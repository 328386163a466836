"""``cronlapse next``: the preview subcommand, called through its argparse parser."""

from __future__ import annotations

import argparse
import io
from datetime import datetime
from itertools import pairwise

from cronlapse.cli import next as cli_next


def run(*argv: str) -> tuple[int, list[str], list[str]]:
    """Parse ``argv`` after ``next`` like the cronlapse command does, run, capture both streams."""
    parser = argparse.ArgumentParser(prog="cronlapse")
    cli_next.add_parser(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    code = cli_next.run(parser.parse_args(["next", *argv]), out, err)
    return code, out.getvalue().splitlines(), err.getvalue().splitlines()


def test_daily_job_in_the_spring_gap() -> None:
    assert run(
        "30 2 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-28T12:00:00", "-n", "2"
    ) == (
        0,
        ["2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"],
        [],
    )


def test_daily_job_in_the_repeated_hour_runs_once() -> None:
    code, out, _ = run(
        "30 1 * * *", "--tz", "America/New_York", "--from", "2026-10-31T12:00", "-n", "2"
    )
    assert (code, out) == (0, ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"])


def test_times_are_strictly_after_from() -> None:
    _, out, _ = run(
        "30 2 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-28T02:30:00", "-n", "1"
    )
    assert out == ["2026-03-29T03:00:00+02:00"]


def test_an_offset_in_from_picks_the_pass_of_a_repeated_hour() -> None:
    args = ("30 * * * *", "--tz", "Europe/Berlin", "-n", "2", "--from")
    assert run(*args, "2026-10-25T02:40:00")[1] == [
        "2026-10-25T02:30:00+01:00",
        "2026-10-25T03:30:00+01:00",
    ]
    assert run(*args, "2026-10-25T02:40:00+01:00")[1] == [
        "2026-10-25T03:30:00+01:00",
        "2026-10-25T04:30:00+01:00",
    ]


def test_defaults_are_five_times_in_utc() -> None:
    code, out, err = run("@daily", "--from", "2026-01-01T00:00:00")
    assert (code, err) == (0, [])
    assert out == [f"2026-01-0{day}T00:00:00+00:00" for day in range(2, 7)]


def test_without_from_it_starts_now() -> None:
    code, out, _ = run("* * * * *", "--tz", "Asia/Kolkata", "-n", "3")
    assert code == 0
    times = [datetime.fromisoformat(line) for line in out]
    assert len(times) == 3
    assert all(t.second == 0 and t.utcoffset() is not None for t in times)
    assert [int((b - a).total_seconds()) for a, b in pairwise(times)] == [
        60,
        60,
    ]


def test_an_invalid_expression_prints_one_line_naming_the_field() -> None:
    code, out, err = run("0 9 * * funday", "--from", "2026-01-01T00:00:00")
    assert (code, out, len(err)) == (2, [], 1)
    assert err[0].startswith("cronlapse next: day-of-week field 'funday' is invalid: expected")


def test_invalid_settings_print_one_line_naming_the_option() -> None:
    cases = [
        (("0 0 * * *", "--tz", "Europe/Nowhere"), "--tz: unknown time zone"),
        (("0 0 * * *", "--from", "soon"), "--from: expected an ISO 8601 time"),
        (("0 0 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-29T02:30"), "does not exist"),
        (("0 0 * * *", "-n", "0"), "-n: expected a positive count"),
        (("0 0 * *",), "expected 5 fields"),
        (("@reboot",), "unknown nickname '@reboot'"),
    ]
    for argv, expected in cases:
        code, out, err = run(*argv)
        assert (code, out, len(err)) == (2, [], 1)
        assert err[0].startswith("cronlapse next: ")
        assert expected in err[0]


def test_a_schedule_that_ends_prints_what_there_is_and_says_why() -> None:
    note = (
        "cronlapse next: no more fire times: the schedule does not fire again before the end of "
        "year 9999 (printed 0 of 5)"
    )
    assert run("0 0 1 1 *", "--from", "9999-06-01T00:00:00") == (0, [], [note])


def test_dst_picks_another_systems_rule() -> None:
    fold = ("30 2 * * *", "--tz", "Europe/Berlin", "--from", "2026-10-25T00:00:00", "-n", "2")
    assert run(*fold, "--dst", "kubernetes")[1] == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:30:00+01:00",
    ]
    gap = ("30 2 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-29T00:00:00", "-n", "1")
    assert run(*gap, "--dst", "systemd")[1] == ["2026-03-30T02:30:00+02:00"]
    assert run(*gap)[1] == ["2026-03-29T03:00:00+02:00"]
