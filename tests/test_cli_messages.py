"""The command line's messages an audit found wrong, each pinned here: every bad input is one
clear line naming the place and what was expected, a usage error exits 2 as in every command,
and nothing is written half-way."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
OUTAGE = str(SCENARIOS / "semantics" / "scheduler-outage.yaml")
DST = str(SCENARIOS / "nightly-etl-dst.yaml")
TEAM = str(SCENARIOS / "imports" / "team.crontab")

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run ``cronlapse ARGS`` in-process: its exit status, standard output and standard error."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as leaving:
            status = int(leaving.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


# explain missed --window


@pytest.mark.parametrize("window", ["-1", "1000000000001", "99999999999999999999"])
def test_a_window_past_its_limits_says_the_limits(cli: Cli, window: str) -> None:
    """Past the engine's limit for catch_up_window the answer was that the outage does not
    hold the job back, which is not why."""
    status, out, err = cli(
        "explain", "missed", "--job", "sync", "--outage", "5..95", OUTAGE, "--window", window
    )
    assert (status, out) == (2, "")
    assert err == (
        "cronlapse explain missed: --window: expected a whole number of ticks from 0 to "
        f"1000000000000, got {window}\n"
    )


def test_the_largest_window_is_answered(cli: Cli) -> None:
    status, out, err = cli(
        "explain", "missed", "--job", "sync", "--outage", "5..95", OUTAGE, "--window", str(10**12)
    )
    assert (status, err) == (0, "")
    assert "catch_up_window: 1000000000000" in out


# import's options


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (["--days", "0"], "--days: expected a whole number of days from 1 to 3660, got 0"),
        (["--days", "3661"], "--days: expected a whole number of days from 1 to 3660, got 3661"),
        (
            ["--duration", "0"],
            "--duration: expected a whole number of minutes from 1 to 1000000, got 0",
        ),
        (
            ["--duration", "1000001"],
            "--duration: expected a whole number of minutes from 1 to 1000000, got 1000001",
        ),
        (["--from", "soon"], "--from: expected an ISO 8601 time such as 2026-03-28T00:00:00"),
        (
            ["--from", "2026-03-29T02:30:00"],
            "--from: 2026-03-29T02:30:00 does not exist in Europe/Berlin",
        ),
        (
            ["--from", "9999-12-25T00:00:00"],
            "--days: 7 days from 9999-12-25T00:00:00 run past the year 9999",
        ),
    ],
)
def test_a_bad_import_option_is_a_usage_error_said_once(
    cli: Cli, tmp_path: Path, options: list[str], problem: str
) -> None:
    """Exit 2, as every other command's bad option, where it was 1; one line, where a bad
    --duration was said by its own check and again, with other limits, for every job."""
    output = tmp_path / "out.yaml"
    status, out, err = cli("import", "crontab", TEAM, "-o", str(output), *options)
    assert (status, out, output.exists()) == (2, "", False)
    assert err.startswith(f"cronlapse import: {problem}"), err
    assert err.count("\n") == 1, err


def test_every_bad_import_option_is_said_and_no_file_is_read(cli: Cli) -> None:
    status, _, err = cli("import", "crontab", "/no/such/crontab", "--days", "0", "--duration", "0")
    assert status == 2
    assert err == (
        "cronlapse import: --days: expected a whole number of days from 1 to 3660, got 0\n"
        "cronlapse import: --duration: expected a whole number of minutes from 1 to 1000000, "
        "got 0\n"
    )


def test_an_import_that_cannot_be_written_exits_2_as_export_does(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir.yaml"
    status, out, err = cli("import", "crontab", TEAM, "-o", str(target))
    assert (status, out) == (2, "")
    assert err.endswith(f"cronlapse import: cannot write {target}: No such file or directory\n")


# script: the same refusals as run


def _script_from_stdin(data: bytes) -> subprocess.CompletedProcess[bytes]:
    """``cronlapse script -`` with ``data`` on standard input, as a shell would run it."""
    code = "import sys; from engine.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "script", "-"],
        input=data,
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.parametrize("content", [b"", b"\n\n   \n"])
def test_an_empty_script_is_refused_as_run_refuses_it(
    cli: Cli, tmp_path: Path, content: bytes
) -> None:
    """It printed nothing and exited 0, where ``run`` says what is missing."""
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    run = cli("run", str(path))
    script = cli("script", str(path))
    message = f"{path}:1:1: the script is empty: its first command must be INIT\n"
    assert run == (2, "", message)
    assert script == (2, "", message)
    piped = _script_from_stdin(content)
    assert (piped.returncode, piped.stdout) == (2, b"")
    assert piped.stderr.decode() == message.replace(str(path), "<stdin>")


def test_a_script_that_is_not_utf8_is_refused_as_run_refuses_it(cli: Cli, tmp_path: Path) -> None:
    """On standard input its bytes were read as unknown commands (exit 1) or refused (exit 2)
    depending on the locale."""
    content = b"INIT 2 1\n\xff\xfeTICK\n"
    path = tmp_path / "binary.txt"
    path.write_bytes(content)
    message = f"{path}:2:1: not UTF-8 text: byte 0xff cannot be decoded\n"
    assert cli("run", str(path)) == (2, "", message)
    assert cli("script", str(path)) == (2, "", message)
    piped = _script_from_stdin(content)
    assert (piped.returncode, piped.stdout) == (2, b"")
    assert piped.stderr.decode() == message.replace(str(path), "<stdin>")


def test_a_script_from_standard_input_still_runs(cli: Cli) -> None:
    piped = _script_from_stdin(b"INIT 2 1\nSUBMIT a 1 3 2 0\nBOGUS\n")
    assert (piped.returncode, piped.stdout) == (1, b"OK a\n")
    assert piped.stderr == b"line 3: unknown command 'BOGUS'\n"


# explain run: +N counts from the scenario's start, in JOB@TICK as in --at


@pytest.mark.parametrize(
    ("run", "at"),
    [
        ("extract@1560", "1565"),
        ("extract@+1560", "1565"),
        ("extract@+1560", "+1565"),
        ("extract@+26h", "+1565"),
        ("extract@1560", "+1565"),
    ],
)
def test_a_relative_tick_counts_from_the_start_in_the_run_as_in_at(
    cli: Cli, run: str, at: str
) -> None:
    """``extract@+1560 --at +1565`` named the run at 3125: +N counted from --at in the run's
    tick, and from the start in --at."""
    status, out, err = cli("explain", "run", run, DST, "--at", at)
    assert (status, err) == (0, "")
    assert out.startswith("extract@1560 is QUEUED at tick 1565 ")


def test_a_relative_run_without_at_counts_from_the_start(cli: Cli) -> None:
    """Without --at it counted from the end of the run, where no run of the scenario is."""
    status, out, err = cli("explain", "run", "extract@+1560", DST)
    assert (status, err) == (0, "")
    assert out.startswith("extract@1560 is SUCCEEDED at tick 4320")
