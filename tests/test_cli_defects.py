"""The command line's defects a new user found (issue 17, deliverable 4), each pinned here."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from cronlapse.cli.main import INTERRUPTED, main

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"


def _interrupted(arguments: list[str]) -> tuple[int, str, bytes]:
    """Start ``python -m cronlapse ARGUMENTS``, wait for its first line of output, then Ctrl-C it:
    its exit status, its stderr and that first line. The first line arriving before the end
    shows the output streams; a full pipe keeps the process running until the signal."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cronlapse", *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A shell without job control starts background commands with Ctrl-C ignored, and the
        # child would inherit that: then Python installs no handler and the signal does nothing.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    try:
        first = process.stdout.readline()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    return process.returncode, err.decode(), first


@pytest.mark.e2e
def test_ctrl_c_during_next_exits_130_with_one_line() -> None:
    arguments = ["next", "* * * * *", "-n", "100000000", "--from", "2026-01-01T00:00:00"]
    status, err, first = _interrupted(arguments)
    assert first == b"2026-01-01T00:01:00+00:00\n", "the first time comes before the last"
    assert (status, err) == (INTERRUPTED, "cronlapse next: interrupted\n")


@pytest.mark.e2e
def test_ctrl_c_during_run_exits_130_with_one_line() -> None:
    status, err, first = _interrupted(["run", str(SCENARIOS / "demo.yaml")])
    assert first.startswith(b"t=0 ")
    assert (status, err) == (INTERRUPTED, "cronlapse run: interrupted\n")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"cronlapse {metadata.version('cronlapse')}\n"


def test_next_past_year_9999_says_why_it_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["next", "@daily", "--from", "9999-12-29T00:00:00", "-n", "20"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["9999-12-30T00:00:00+00:00", "9999-12-31T00:00:00+00:00"]
    assert err == (
        "cronlapse next: no more fire times: the schedule does not fire again before the end "
        "of year 9999 (printed 2 of 20)\n"
    )


@pytest.mark.e2e
def test_next_to_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.run(
        f"{sys.executable} -m cronlapse next '@daily' -n 1000000 | head -1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert process.stdout == process.stdout.splitlines()[0] + "\n" and process.stderr == ""


def test_jsonl_gives_each_events_wall_clock_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(SCENARIOS / "nightly-etl-dst.yaml"), "--jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    started = next(r for r in records if r["type"] == "AttemptStarted" and r["tick"] == 1570)
    assert started["time"] == "2026-03-29T03:10:00+02:00"
    assert list(started)[:3] == ["type", "tick", "time"]


def test_jsonl_without_a_clock_has_no_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(SCENARIOS / "seed-000-example-2.yaml"), "--jsonl"]) == 0
    assert all("time" not in json.loads(line) for line in capsys.readouterr().out.splitlines())


def test_csv_gives_the_attempts_wall_clock_times(tmp_path: Path) -> None:
    target = tmp_path / "attempts.csv"
    arguments = ["export", str(SCENARIOS / "nightly-etl-dst.yaml"), "--csv", str(target)]
    assert main(arguments) == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    first = rows[0]
    assert (first["job"], first["start"], first["end"]) == ("extract", "150", "170")
    assert first["scheduled_time"] == first["start_time"] == "2026-03-28T02:30:00+01:00"
    assert first["end_time"] == "2026-03-28T02:50:00+01:00"


def test_csv_without_a_clock_has_no_time_columns(tmp_path: Path) -> None:
    target = tmp_path / "attempts.csv"
    arguments = ["export", str(SCENARIOS / "seed-000-example-2.yaml"), "--csv", str(target)]
    assert main(arguments) == 0
    header = target.read_text(encoding="utf-8").splitlines()[0]
    assert header == "job,scheduled,attempt,worker,start,end,outcome"


def _source_tree(target: Path) -> Path:
    """A copy of the project's files (as git tracks them, plus any not yet committed), so that
    building leaves nothing behind in the working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in listed:
        source, copy = ROOT / name, target / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree, not yet in the index
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(source.readlink())
        else:
            copy.write_bytes(source.read_bytes())
    return target


@pytest.mark.e2e
def test_a_wheel_ships_the_bundled_scenarios_and_finds_the_demo(tmp_path: Path) -> None:
    tree = _source_tree(tmp_path / "src")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(tree), "--no-deps", "-q", "-w", tmp_path],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("cronlapse-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    bundled = {path.relative_to(SCENARIOS).as_posix() for path in SCENARIOS.rglob("*.*")}
    assert {f"cronlapse/scenarios/{name}" for name in bundled} <= names
    top_level = {name.split("/")[0] for name in names if ".dist-info" not in name.split("/")[0]}
    assert top_level == {"engine", "tui", "cronlapse"}
    # installed (unpacked, away from the source tree), the CLI finds the demo in the package data
    probe = "from cronlapse.bundled import DEMO; print(DEMO, DEMO.is_file())"
    found = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout == f"{tmp_path / 'site' / 'cronlapse' / 'scenarios' / 'demo.yaml'} True\n"


@pytest.mark.parametrize(
    ("argv", "module", "function"),
    [
        (
            ["run", str(SCENARIOS / "seed-000-example-1.yaml")],
            "cronlapse.cli.run",
            "print_summary",
        ),
        (["import", "crontab", "x.crontab"], "cronlapse.cli.imports", "import_files"),
        (["next", "@daily"], "cronlapse.cli.next", "fire_times"),
        (
            ["explain", "dst", "--cron", "0 3 * * *", "--tz", "UTC", "--year", "2026"],
            "cronlapse.analyses.explain.dst",
            "explain",
        ),
    ],
)
def test_every_command_reports_an_internal_error_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    module: str,
    function: str,
) -> None:
    """Each command, not only those that scenario files reach: ``cronlapse import`` showed a
    ValueError's traceback for a timer's ``Unit=a/b``."""

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(f"{module}.{function}", explode)
    assert main(argv) == 70
    name = " ".join(argv[:2]) if argv[0] == "explain" else argv[0]
    assert capsys.readouterr().err == f"cronlapse {name}: internal error: RuntimeError: boom\n"
