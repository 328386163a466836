"""``cronlapse explain run``: the same text as the dashboard's, and clear errors."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.cli import main
from engine.cli_explain import SUBCOMMANDS
from tests.engine.explain_helpers import SCENARIOS, bundled, why

DST = str(SCENARIOS / "nightly-etl-dst.yaml")


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``cronlapse ARGS``: its exit status, standard output and standard error."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = int(exit_.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


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


def test_a_script_is_refused_with_a_reason(cli) -> None:
    status, _, err = cli("explain", "run", "a@0", str(SCENARIOS / "seed-001-aging-cascade.txt"))
    assert status == 2 and "explain reads a .yaml scenario" in err


def test_each_subcommand_is_one_entry_of_the_table(cli) -> None:
    status, out, _ = cli("explain", "--help")
    assert status == 0
    for subcommand in SUBCOMMANDS:
        assert subcommand.name in out
