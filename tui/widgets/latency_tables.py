"""The latency screen's tables, laid out for the width they are drawn at.

The report's figures are :mod:`cronlapse.analyses.latency.attribution`'s, as ``cronlapse run
--stats`` prints them (:mod:`cronlapse.analyses.latency.tables`), but that layout needs about 130
columns: at 80 Rich cut every number to ``1…``. Here each column is as wide as its widest figure,
measures head their statistics (``wait`` over ``p95``), counts carry thousands separators, and where
the columns do not fit the p50 columns are left out first, then the p95 ones, and the screen says
so.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from cronlapse.analyses.latency.attribution import (
    MEASURES,
    STATISTICS,
    Latency,
    LatencyReport,
    priority_name,
)
from cronlapse.analyses.latency.tables import counts_line

JOBS_SHOWN = 10
LAYOUTS = (STATISTICS, ("p95", "max"), ("max",))
"""The statistics shown, fullest first: the first layout whose tables fit is drawn."""
UNBOUNDED = 10_000


def _figure(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _table(first: str, groups: list[tuple[Text, Latency]], stats: tuple[str, ...]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False, pad_edge=False)
    table.add_column(first, no_wrap=True)
    table.add_column("due", justify="right", no_wrap=True)
    for measure in MEASURES:
        for stat in stats:
            table.add_column(f"{measure}\n{stat}", justify="right", no_wrap=True)
    for name, group in groups:
        figures = [_figure(group.figure(measure, stat)) for measure in MEASURES for stat in stats]
        table.add_row(name, f"{group.due:,}", *figures)
    return table


class LatencyTables:
    """Per priority, per job (the longest p95 waits first) and the runs that waited longest; a
    Rich renderable that picks its layout from the width it is given."""

    def __init__(self, report: LatencyReport, jobs: int = JOBS_SHOWN) -> None:
        self.report = report
        self.jobs = jobs

    def _tables(self, stats: tuple[str, ...]) -> tuple[Table, Table]:
        report = self.report
        groups = [(Text("all", style="bold"), report.overall)]
        groups += [
            (Text(f"priority {priority_name(priority)}"), group)
            for priority, group in report.by_priority.items()
        ]
        return _table("runs of", groups, stats), _table("job", self._longest(), stats)

    def _longest(self) -> list[tuple[Text, Latency]]:
        """The jobs with the longest p95 queue wait, in ``cronlapse run --stats``'s order."""
        ranked = sorted(
            self.report.by_job.items(),
            key=lambda item: (-(item[1].wait.p95 or 0), -(item[1].lag.p95 or 0), item[0]),
        )
        return [(Text(job_id), group) for job_id, group in ranked[: self.jobs]]

    def _worst(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False, pad_edge=False)
        for name in ("run", "priority", "lag", "wait", "backoff", "total"):
            table.add_column(name, justify="left" if name == "run" else "right", no_wrap=True)
        for run in self.report.worst:
            table.add_row(
                Text(f"{run.job_id}@{run.scheduled}" + ("" if run.started else " (waiting)")),
                priority_name(run.priority),
                *(f"{value:,}" for value in (run.lag, run.wait, run.backoff, run.total)),
            )
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(UNBOUNDED)  # measured as wide as they want to be
        for stats in LAYOUTS:
            groups, per_job = self._tables(stats)
            widest = max(
                Measurement.get(console, unbounded, table).maximum for table in (groups, per_job)
            )
            if widest <= options.max_width:
                break
        report = self.report
        title = Text(f"Latency in ticks, at tick {report.now:,}", style="bold")
        if stats != STATISTICS:
            left_out = ", ".join(stat for stat in STATISTICS if stat not in stats)
            title.append(f"  ({left_out} left out: too narrow)", style="dim")
        shown = min(self.jobs, len(report.by_job))
        yield Group(
            title,
            groups,
            Text(""),
            Text(
                f"Jobs with the longest p95 queue wait ({shown:,} of {len(report.by_job):,})",
                style="bold",
            ),
            per_job,
            Text(""),
            Text("Runs that waited longest", style="bold"),
            self._worst(),
            Text(""),
            Text(counts_line(report)),
        )
