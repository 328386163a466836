"""The command line's messages an audit found wrong, each pinned here: every bad input is one
clear line naming the place and what was expected, a usage error exits 2 as in every command,
and nothing is written half-way."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
OUTAGE = str(SCENARIOS / "semantics" / "scheduler-outage.yaml")
DST = str(SCENARIOS / "nightly-etl-dst.yaml")
TEAM = str(SCENARIOS / "imports" / "team.crontab")


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
    code = "import sys; from cronlapse.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "script", "-"],
        input=data,
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.e2e
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


@pytest.mark.e2e
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


@pytest.mark.e2e
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


# FILE as -: a scenario from standard input, named <stdin>


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes | None], None]:
    """Give the command ``data`` as its standard input (None: started with it closed, ``<&-``)."""

    def give(data: bytes | None) -> None:
        stream = None if data is None else io.TextIOWrapper(io.BytesIO(data), encoding="latin-1")
        monkeypatch.setattr(sys, "stdin", stream)

    return give


PLAYS = [
    ("run", DST),
    ("run", DST, "--jsonl"),
    ("check", OUTAGE),
    ("export", OUTAGE, "--csv", "-"),
    ("explain", "run", "extract@1560", DST),
    ("explain", "missed", "--job", "sync", "--outage", "5..95", OUTAGE),
    ("backfill", "--dry-run", "--job", "extract", "--from", "0", "--to", "2880", DST),
    ("compare", DST, DST, "--until", "100"),
    ("sweep", OUTAGE, "--vary", "workers=1..2", "--processes", "1", "--no-plot"),
]


@pytest.mark.parametrize("argv", PLAYS, ids=" ".join)
def test_dash_reads_the_scenario_from_standard_input(
    cli: Cli, stdin: Callable[[bytes | None], None], argv: tuple[str, ...]
) -> None:
    """``run -`` said "-: cannot read: No such file or directory", where ``script -`` reads
    standard input: every command that reads a scenario once now reads it from there, as from
    the file, and names it ``<stdin>``."""
    path = OUTAGE if OUTAGE in argv else DST
    from_file = cli(*argv)
    index = argv.index(path)
    stdin(Path(path).read_bytes())
    from_stdin = cli(*argv[:index], "-", *argv[index + 1 :])
    status, out, err = from_file
    assert status == 0, err
    assert from_stdin == (status, out.replace(path, "<stdin>", 1), err)


@pytest.mark.e2e
def test_run_dash_reads_standard_input_as_a_shell_gives_it() -> None:
    code = "import sys; from cronlapse.cli.main import main; sys.exit(main(sys.argv[1:]))"
    piped = subprocess.run(
        [sys.executable, "-c", code, "run", "-", "--jsonl"],
        input=Path(OUTAGE).read_bytes(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout.startswith(b'{"type": ')


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "<stdin>:1:1: the file is empty: expected a mapping with 'scenario:'\n"),
        (b"scenario: x\n\xff\n", "<stdin>:2:1: not UTF-8 text: byte 0xff cannot be decoded\n"),
        (b"scenario: x\nworkers: [\n", "<stdin>:3:1: YAML syntax error: "),
        (b"scenario: x\npriorty: 1\n", "<stdin>:2:1: priorty: unknown key 'priorty'"),
        (
            b"#" * (5 * 1024 * 1024 + 1),
            "<stdin>: standard input is larger than 5 MB: too large for a scenario\n",
        ),
        (None, "<stdin>: cannot read: Bad file descriptor\n"),
    ],
    ids=["empty", "not-utf8", "syntax", "unknown-key", "too-large", "closed"],
)
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_bad_scenario_on_standard_input_is_refused_as_a_file_is(
    cli: Cli, stdin: Callable[[bytes | None], None], command: str, data: bytes, message: str
) -> None:
    """The same size limit, UTF-8 check and validation as a file's, at ``<stdin>:LINE:COLUMN``;
    standard input closed (``<&-``) is a file that cannot be read."""
    stdin(data)
    status, out, err = cli(command, "-")
    assert status == 2
    assert err.startswith(message), err
    assert out == (
        "1 file, 0 expectations, 0 mismatches, 1 invalid file\n" if command == "check" else ""
    )


@pytest.mark.parametrize("argv", [("check", "-", OUTAGE, "-"), ("compare", "-", "-")], ids=" ".join)
def test_standard_input_is_read_once(
    cli: Cli, stdin: Callable[[bytes | None], None], argv: tuple[str, ...]
) -> None:
    """The second ``-`` would read an empty input, and say the scenario is empty: a usage
    error instead, before anything is read."""
    stdin(Path(OUTAGE).read_bytes())
    status, out, err = cli(*argv)
    assert (status, out) == (2, "")
    assert err == (
        f"cronlapse {argv[0]}: - (standard input) may be given once: it can be read only once\n"
    )


def test_the_dashboard_refuses_standard_input(
    cli: Cli, stdin: Callable[[bytes | None], None]
) -> None:
    """The dashboard reloads its file when it is saved (and with r), which standard input cannot
    give twice: a usage error, not "-: no such file"."""
    stdin(Path(OUTAGE).read_bytes())
    status, out, err = cli("tui", "-")
    assert (status, out) == (2, "")
    assert err == (
        "cronlapse tui: - (standard input): the dashboard reloads its file when it changes, "
        "so it cannot read standard input: save the scenario to a file and open that\n"
    )


# cannot read: one format, run's


READERS = [
    ("run",),
    ("script",),
    ("check",),
    ("export", "--csv", "-"),
    ("explain", "run", "a@1"),
    ("explain", "missed", "--job", "a", "--outage", "1..2"),
    ("backfill", "--dry-run", "--job", "a", "--from", "0", "--to", "1"),
    ("compare", DST),
    ("sweep", "--vary", "workers=1..2"),
]
"""Every command that reads a FILE (but import, whose status for files with problems is 1)."""
UNREADABLE = ["missing", "missing.txt", "missing.timer", "missing.crontab", "dir"]
"""A scenario, a script, a timer and a crontab that are not there, and a directory."""


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        pytest.param(argv, name, id=f"{' '.join(argv)} {name}")
        for argv in READERS
        for name in UNREADABLE
        # explain missed refuses a .txt FILE by its name (a script), before reading it
        if not (argv[:2] == ("explain", "missed") and name.endswith(".txt"))
    ],
)
def test_a_file_that_cannot_be_read_is_said_so_in_one_format(
    cli: Cli, tmp_path: Path, argv: tuple[str, ...], name: str
) -> None:
    """``cronlapse script: cannot read X: ...`` (script) and ``X: cannot read it (...)`` (a
    crontab, manifest or timer) said what ``X: cannot read: ...`` (run) says."""
    path = tmp_path / name
    if name == "dir":
        path.mkdir()
    status, _, err = cli(*argv, str(path))
    reason = "Is a directory" if name == "dir" else "No such file or directory"
    assert status == 2
    assert err.splitlines()[0] == f"{path}: cannot read: {reason}"


@pytest.mark.parametrize("kind", ["crontab", "k8s", "systemd"])
def test_import_says_cannot_read_as_run_does(cli: Cli, tmp_path: Path, kind: str) -> None:
    status, _, err = cli("import", kind, str(tmp_path / "missing"))
    assert status == 1
    assert (
        err == f"cronlapse import: {tmp_path / 'missing'}: cannot read: No such file or directory\n"
    )


def test_script_says_a_closed_standard_input_cannot_be_read(
    cli: Cli, stdin: Callable[[bytes | None], None]
) -> None:
    """It was an internal error (AttributeError: 'NoneType' object has no attribute 'buffer')."""
    stdin(None)
    assert cli("script", "-") == (2, "", "<stdin>: cannot read: Bad file descriptor\n")


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        (None, "s.expected: cannot read: Is a directory"),
        (b"OK a\n\xff\n", "s.expected:2:1: not UTF-8 text: byte 0xff cannot be decoded"),
    ],
)
def test_a_script_whose_expected_output_cannot_be_read_is_invalid(
    cli: Cli, tmp_path: Path, expected: bytes | None, message: str
) -> None:
    """``check`` stopped with an internal error (status 70) on such a NAME.expected."""
    (tmp_path / "s.txt").write_text("INIT 2 1\nSUBMIT a 1 1 1 0\nTICK 3\n")
    if expected is None:
        (tmp_path / "s.expected").mkdir()
    else:
        (tmp_path / "s.expected").write_bytes(expected)
    status, out, err = cli("check", str(tmp_path / "s.txt"))
    assert (status, out) == (2, "1 file, 0 expectations, 0 mismatches, 1 invalid file\n")
    assert err == f"{tmp_path}/{message}\n"
