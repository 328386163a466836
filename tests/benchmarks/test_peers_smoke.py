"""``benchmarks/peers.py`` and ``benchmarks/soak.py`` run, in their cheapest form, and print
their tables.

Their figures are wall-clock and vary with the machine, so nothing here reads a time: what is
checked is that each program starts the contenders it is asked for, drives them to the end of a
workload, finds their runs and counts no duplicate. A peer library is an optional extra
(``pip install -e '.[peers]'``) that CI does not install: its test is skipped, saying so.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _run(*command: str) -> str:
    completed = subprocess.run(
        [sys.executable, *command], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


def _row(output: str, contender: str) -> list[str]:
    """The burst table's row of ``contender``: runs/s, lag p50, p95, max, duplicates, ..."""
    burst = output.split("\nburst\n", 1)[1]
    line = next(line for line in burst.splitlines() if line.split()[0] == contender)
    return line.split()[1:]


def _peers(contender: str) -> str:
    return _run(
        "benchmarks/peers.py",
        "--quick",
        "--rounds",
        "1",
        "--contenders",
        contender,
        "--workloads",
        "burst",
    )


APSCHEDULER_MISSING = pytest.mark.skipif(
    importlib.util.find_spec("apscheduler") is None,
    reason="APScheduler is not installed: it is in the optional 'peers' extra "
    "(pip install -e '.[peers]'), which CI does not install",
)


@pytest.mark.parametrize(
    "contender",
    ["cronlapse-sqlite", pytest.param("apscheduler-sqlite", marks=APSCHEDULER_MISSING)],
)
def test_peers_drives_a_contender_through_a_burst(contender: str) -> None:
    output = _peers(contender)
    runs_per_second, *_lags, duplicates, _late = _row(output, contender)
    assert float(runs_per_second.replace(",", "")) > 0
    assert duplicates == "0"


def test_soak_samples_a_day_and_restarts() -> None:
    output = _run("benchmarks/soak.py", "--quick", "--jobs", "1", "--speed", "43200", "--days", "1")
    row = output.split("rows replayed\n", 1)[1].split()[:7]
    day, rss, to_ready, to_first_run, rss_after, cpu, replayed = row
    assert day == "1"
    assert float(rss) > 0 and float(rss_after) > 0
    assert float(to_ready) > 0 and float(to_first_run) > 0 and float(cpu) > 0
    assert int(replayed.replace(",", "")) >= 0
