"""``cronlapse explain run``: the same text as the dashboard's, and clear errors."""

from __future__ import annotations

import pytest

from cronlapse.cli.explain import SUBCOMMANDS
from tests.engine.explain_helpers import SCENARIOS, bundled, why

DST = str(SCENARIOS / "nightly-etl-dst.yaml")


@pytest.mark.parametrize("tick", ["1560", "03:00", "2026-03-29T03:00"])
def test_the_tick_reads_as_the_dashboards_g_reads_it(cli, tick: str) -> None:
    status, out, err = cli("explain", "run", f"extract@{tick}", DST, "--at", "1565")
    assert (status, err) == (0, "")
    assert out == why(bundled("nightly-etl-dst.yaml"), "extract", 1560, at=1565)


def test_without_at_it_asks_at_the_end_of_the_run(cli) -> None:
    status, out, _ = cli("explain", "run", "extract@1560", DST)
    assert status == 0
    assert out.startswith("extract@1560 is SUCCEEDED at tick 4320")


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ("extract", "expected JOB@TICK (e.g. extract@1560), got 'extract'"),
        ("extrct@1560", "has no job 'extrct'; did you mean extract, close-extract?"),
        ("extract@25:99", "is not a time of day"),
    ],
)
def test_a_run_that_is_not_named_right_exits_2_with_one_line(cli, run: str, message: str) -> None:
    status, out, err = cli("explain", "run", run, DST)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_an_endless_scenario_needs_at(cli, tmp_path) -> None:
    path = tmp_path / "endless.yaml"
    path.write_text("scenario: e\nworkers: [w]\njobs: [{id: x, every: 5}]\n")
    status, _, err = cli("explain", "run", "x@0", str(path))
    assert status == 2 and "pass --at TICK" in err
    status, out, _ = cli("explain", "run", "x@0", str(path), "--at", "12")
    assert status == 0 and out.startswith("x@0 is SUCCEEDED at tick 12")


def test_at_after_the_end_is_refused_before_anything_plays(cli, tmp_path) -> None:
    """Played there, a recurring job would make runs until memory ran out (a MemoryError, after
    minutes, was the answer)."""
    status, out, err = cli("explain", "run", f"extract@{10**6}", DST, "--at", str(10**23))
    assert (status, out) == (2, "")
    assert "is after the scenario ends (clock.until: " in err and err.count("\n") == 1
    path = tmp_path / "endless.yaml"
    path.write_text("scenario: e\nworkers: [w]\njobs: [{id: x, every: 5}]\n")
    status, _, err = cli("explain", "run", "x@0", str(path), "--at", str(10**23))
    assert status == 2 and "after the last tick a scenario may name (10" in err


FAR_SCENARIO = """\
scenario: far
clock: {epoch: "2026-01-05T00:00:00", tick: 60, until: 100}
workers: [w1]
jobs:
  - {id: far, every: 100000000000000, first: 10}
"""


def test_a_next_fire_time_past_the_year_9999_is_named_by_its_tick(cli, tmp_path) -> None:
    """A date stops at the year 9999; a schedule's next fire time need not (it was an
    OverflowError, reported as an internal error)."""
    path = tmp_path / "far.yaml"
    path.write_text(FAR_SCENARIO)
    status, out, err = cli("explain", "run", "far@50", str(path))
    assert (status, err) == (0, "")
    assert "its next fire time from there: tick 100000000000010 (past the year 9999)" in out


def test_a_first_run_past_the_year_9999_is_refused_where_it_is_written(cli, tmp_path) -> None:
    path = tmp_path / "far.yaml"
    path.write_text(FAR_SCENARIO.replace("first: 10}", "first: 100000000000000}"))
    status, _, err = cli("run", str(path))
    assert status != 0
    assert f"{path}:5:46: jobs[0].first: tick 100000000000000 with 60-second ticks" in err
    assert "is past the year 9999" in err


def test_a_script_is_refused_with_a_reason(cli) -> None:
    status, _, err = cli("explain", "run", "a@0", str(SCENARIOS / "seed-001-aging-cascade.txt"))
    assert status == 2 and "explain reads a .yaml scenario" in err


def test_each_subcommand_is_one_entry_of_the_table(cli) -> None:
    status, out, _ = cli("explain", "--help")
    assert status == 0
    for subcommand in SUBCOMMANDS:
        assert subcommand.name in out
