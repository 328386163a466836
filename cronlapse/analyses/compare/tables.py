"""A comparison as Rich tables: runs moved, dropped and added; the latency figures before and
after, overall and per priority. Shared by ``cronlapse compare`` and the dashboard's compare."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cronlapse.analyses.compare.futures import Comparison
from cronlapse.analyses.latency.attribution import MEASURES, STATISTICS, Latency, priority_name

RUNS_SHOWN = 15


def comparison_tables(comparison: Comparison, first: str, second: str) -> RenderableType:
    parts: list[RenderableType] = [Text(summary_line(comparison), style="bold"), Text("")]
    if comparison.moved:
        title = (
            f"Runs moved ({min(RUNS_SHOWN, len(comparison.moved))} of "
            f"{len(comparison.moved)}, largest first)"
        )
        moved = Table()
        for name in ("run", f"start in {first}", f"start in {second}", "moved by"):
            moved.add_column(name, justify="left" if name == "run" else "right")
        for run in comparison.moved[:RUNS_SHOWN]:
            moved.add_row(
                Text(f"{run.job_id}@{run.scheduled}"),
                str(run.before),
                str(run.after),
                f"{run.by:+d}",
            )
        parts += [Text(title, style="bold"), moved, Text("")]
    for title, keys in (("Dropped", comparison.dropped), ("Added", comparison.added)):
        if keys:
            shown = ", ".join(f"{job}@{tick}" for job, tick in keys[:RUNS_SHOWN])
            more = f" and {len(keys) - RUNS_SHOWN} more" if len(keys) > RUNS_SHOWN else ""
            parts += [Text(f"{title} ({len(keys)}): {shown}{more}"), Text("")]
    parts.append(Text(f"Latency in ticks: {first} -> {second} (change)", style="bold"))
    parts.append(latency_difference(comparison))
    return Group(*parts)


def summary_line(comparison: Comparison) -> str:
    return (
        f"{len(comparison.moved)} run(s) moved, {len(comparison.dropped)} dropped, "
        f"{len(comparison.added)} added"
    )


def latency_difference(comparison: Comparison) -> Table:
    table = Table()
    table.add_column("runs of", no_wrap=True)
    table.add_column("measure", no_wrap=True)
    for stat in STATISTICS:
        table.add_column(stat, justify="right")
    before, after = comparison.before, comparison.after
    groups: list[tuple[str, Latency | None, Latency | None]] = [
        ("all", before.overall, after.overall)
    ]
    for priority in sorted(set(before.by_priority) | set(after.by_priority), reverse=True):
        groups.append(
            (
                f"priority {priority_name(priority)}",
                before.by_priority.get(priority),
                after.by_priority.get(priority),
            )
        )
    for name, old, new in groups:
        for number, (measure, words) in enumerate(MEASURES.items()):
            cells = [_cell(old, new, measure, stat) for stat in STATISTICS]
            table.add_row(name if number == 0 else "", words, *cells)
    return table


def _cell(old: Latency | None, new: Latency | None, measure: str, stat: str) -> Text:
    a = old.figure(measure, stat) if old is not None else None
    b = new.figure(measure, stat) if new is not None else None
    if a is None or b is None:
        return Text(f"{_show(a)} -> {_show(b)}")
    change = b - a
    style = "red" if change > 0 else "green" if change < 0 else ""
    return Text(f"{a} -> {b} ({change:+d})", style=style)


def _show(value: int | None) -> str:
    return "-" if value is None else str(value)
