"""``cronlapse backfill --dry-run``: the engine's plan, listed without changing anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.model.commands import BackfillJob
from engine.model.records import BackfillOrder
from engine.scenario.vocabulary import VERBS, read_words

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BACKFILL = str(ROOT / "scenarios" / "semantics" / "backfill-airflow.yaml")


def cronlapse(*argv: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from cronlapse.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_the_dry_run_lists_the_runs_the_backfill_then_creates() -> None:
    done = cronlapse(
        "backfill",
        "--dry-run",
        "--job",
        "report",
        "--from",
        "0",
        "--to",
        "180",
        "--at",
        "199",
        BACKFILL,
    )
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert "would create 3 runs and find 1 that exist" in lines[0]
    assert lines[1:] == [
        "  exists  report@0",
        "  create  report@60",
        "  create  report@120",
        "  create  report@180",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--job", "nope", "--from", "0", "--to", "60"], "has no job 'nope'"),
        (["--job", "report", "--from", "0", "--to", "900"], "after the scenario ends"),
        (["--job", "report", "--from", "0", "--to", "180", "--at", "100"], "after now (100)"),
        (["--job", "report", "--from", "60", "--to", "0", "--at", "199"], "before from: 60"),
        (["--job", "report", "--from", "x", "--to", "0"], "is not a tick"),
        (
            ["--job", "report", "--from", "0", "--to", "180", "--at", "199", "--max-runs", "2"],
            "more than 2 runs (max_runs)",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    done = cronlapse("backfill", "--dry-run", *argv, BACKFILL)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_the_command_line_and_the_file_build_one_backfill() -> None:
    line = read_words(VERBS["backfill"], ["etl", "0", "+0", "sequential", "50"], 12, None)
    assert line == BackfillJob("etl", 0, 12, BackfillOrder.SEQUENTIAL, 50)
