"""``benchmarks/scaling.py --quick`` runs, prints its table, and the table shows lazy costs.

The table's times vary with the machine, so nothing here reads them; the counts (events, records,
due runs, assignments) come from a deterministic engine and are what the complexity claims are
about: a backlog of 10^6 runs costs no more records or events than a backlog of 10, and no played
fleet holds more records than it made assignments, however many runs fell due.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = [
    "sweep",
    "jobs",
    "workers",
    "ticks",
    "load s",
    "tick 0 s",
    "play s",
    "gc s",
    "peak MiB",
    "events",
    "records",
    "due runs",
    "assignments",
    "µs/assignment",
    "µs/event",
    "KiB/assignment",
]
COUNTS = ("jobs", "workers", "ticks", "events", "records", "due runs", "assignments")


@pytest.fixture(scope="module")
def output() -> str:
    completed = subprocess.run(
        [sys.executable, "benchmarks/scaling.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.fixture(scope="module")
def rows(output: str) -> list[dict[str, str]]:
    table = [line for line in output.splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in table]
    assert cells[0] == COLUMNS
    assert all(len(row) == len(COLUMNS) for row in cells)
    return [dict(zip(COLUMNS, row, strict=True)) for row in cells[2:]]


def count(row: dict[str, str], column: str) -> int:
    return int(row[column].replace(",", ""))


def test_the_header_names_the_command_and_the_machine(output: str) -> None:
    lines = output.splitlines()
    assert lines[0] == "command: python benchmarks/scaling.py --quick"
    assert lines[1].startswith("machine: ") and "cores" in lines[1] and "Python 3." in lines[1]


def test_every_sweep_has_its_points_and_every_cell_is_a_number(rows: list[dict[str, str]]) -> None:
    sweeps = [row["sweep"] for row in rows]
    assert sweeps.count("jobs") == 3
    assert sweeps.count("workers") == 3
    assert [s for s in sweeps if s.startswith("horizon: ")] == ["horizon: day", "horizon: week"]
    assert [s for s in sweeps if s.startswith("backlog: ")] == [
        "backlog: 10^1",
        "backlog: 10^3",
        "backlog: 10^6",
    ]
    assert [s for s in sweeps if s.startswith("reprioritised: ")] == [
        "reprioritised: 10^1",
        "reprioritised: 10^3",
    ]
    assert sweeps[-1] == "fleet, 30 days"
    for row in rows:
        for column in COLUMNS[1:]:
            if row[column] != "–":
                float(row[column].replace(",", ""))
    for sweep, varied in (("jobs", "jobs"), ("workers", "workers")):
        values = [count(row, varied) for row in rows if row["sweep"] == sweep]
        assert values == sorted(values) and len(set(values)) == 3


def test_a_backlog_of_a_million_runs_costs_what_a_backlog_of_ten_does(
    rows: list[dict[str, str]],
) -> None:
    backlogs = {row["sweep"]: row for row in rows if row["sweep"].startswith("backlog: ")}
    for depth in (1, 3, 6):
        row = backlogs[f"backlog: 10^{depth}"]
        # The piled-up job's runs, and the one run that holds the worker.
        assert count(row, "due runs") == 10**depth + 1
    ten, million = backlogs["backlog: 10^1"], backlogs["backlog: 10^6"]
    assert count(million, "records") == count(ten, "records") == 1
    assert count(million, "events") == count(ten, "events")


def test_records_grow_per_assignment_not_per_due_run(rows: list[dict[str, str]]) -> None:
    fleets = [row for row in rows if not row["sweep"].startswith(("backlog", "reprioritised"))]
    for row in fleets:
        assert count(row, "records") <= count(row, "assignments"), row
    # The fewest workers leave runs waiting at the end: due, but without a record.
    saturated = next(row for row in rows if row["sweep"] == "workers")
    assert count(saturated, "due runs") > count(saturated, "records")
