"""The latency report as Rich tables: per priority, per job (the longest waits), worst runs.

Used by ``cronlapse run --stats`` (plain text when the output is a file) and by comparisons.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from cronlapse.analyses.latency.attribution import (
    MEASURES,
    STATISTICS,
    Latency,
    LatencyReport,
    priority_name,
)

JOBS_SHOWN = 10


def _columns(table: Table, first: str) -> None:
    table.add_column(first, no_wrap=True)
    table.add_column("due", justify="right")
    for measure in MEASURES:
        for stat in STATISTICS:
            table.add_column(f"{measure} {stat}", justify="right")


def _cells(group: Latency) -> list[str]:
    cells = [str(group.due)]
    for measure in MEASURES:
        for stat in STATISTICS:
            value = group.figure(measure, stat)
            cells.append("-" if value is None else str(value))
    return cells


def latency_tables(report: LatencyReport, jobs: int = JOBS_SHOWN) -> RenderableType:
    groups = Table()
    _columns(groups, "runs of")
    groups.add_row("all", *_cells(report.overall), style="bold")
    for priority, group in report.by_priority.items():
        groups.add_row(f"priority {priority_name(priority)}", *_cells(group))
    longest = sorted(
        report.by_job.items(),
        key=lambda item: (-(item[1].wait.p95 or 0), -(item[1].lag.p95 or 0), item[0]),
    )
    per_job = Table()
    _columns(per_job, "job")
    for job_id, group in longest[:jobs]:
        per_job.add_row(Text(job_id), *_cells(group))
    worst = Table()
    for name in ("run", "priority", "lag", "wait", "backoff", "total"):
        worst.add_column(name, justify="left" if name == "run" else "right")
    for run in report.worst:
        worst.add_row(
            Text(f"{run.job_id}@{run.scheduled}" + ("" if run.started else " (waiting)")),
            priority_name(run.priority),
            *(str(value) for value in (run.lag, run.wait, run.backoff, run.total)),
        )
    return Group(
        Text(f"Latency in ticks, at tick {report.now}", style="bold"),
        groups,
        Text(""),
        Text(
            f"Jobs with the longest p95 queue wait ({min(jobs, len(longest))} of {len(longest)})",
            style="bold",
        ),
        per_job,
        Text(""),
        Text("Runs that waited longest", style="bold"),
        worst,
        Text(""),
        Text(counts_line(report)),
    )


def counts_line(report: LatencyReport) -> str:
    """How the runs ended, with separators (``runs started 12,067, still waiting 3, ...``)."""
    utilisation = "-" if report.utilisation is None else f"{report.utilisation:.0%}"
    return (
        f"runs started {report.overall.runs:,}, still waiting {report.waiting:,}, failed "
        f"{report.failed:,}, cancelled {report.cancelled:,}, skipped {report.skipped:,}; "
        f"worker utilisation {utilisation}"
    )


def print_latency(report: LatencyReport, out: TextIO) -> None:
    console = Console(file=out, width=None if out.isatty() else 150, highlight=False)
    console.print(latency_tables(report))
