"""A sweep's results as people and tools read them: a table, a terminal plot, CSV and JSON.

Every format lists the rows in the sweep's order and writes numbers the same way each time, so
two sweeps with the same inputs give the same bytes whatever executor played them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text

from cronlapse.analyses.sweep.summary import Estimate, Row
from cronlapse.analyses.sweep.target import Target

PLACES = 3
"""Decimal places of a number that is not whole (a mean over replicas, a share)."""


def places_for(values: Iterable[float | None]) -> int:
    """The decimal places a column shows its numbers with: none when every one is whole
    (counts, and one replica's waits in ticks), else :data:`PLACES` for all of them, so that a
    column never shows ``1`` beside ``0.873`` or ``7 ± 3.285`` beside ``20.800 ± 3.766``."""
    return 0 if all(_whole(value) for value in values if value is not None) else PLACES


def _whole(value: float) -> bool:
    return value == int(value) and abs(value) < 1e15


def number(value: float | None, places: int | None = None) -> str:
    """A mean or interval with ``places`` decimals; by default as its own column would show it
    (whole numbers plainly, others to :data:`PLACES`)."""
    if value is None:
        return "-"
    if places is None:
        places = places_for([value])
    return f"{value:.{places}f}"


def cell(estimate: Estimate, places: tuple[int, int] | None = None) -> str:
    """``mean ± half width``, with the places of the mean's and the half width's column."""
    means, half_widths = places if places is not None else (None, None)
    text = number(estimate.mean, means)
    if estimate.half_width is not None:
        text += f" ± {number(estimate.half_width, half_widths)}"
    return text


def table(
    rows: Sequence[Row],
    keys: Sequence[str],
    metrics: Sequence[str],
    target: Target | None,
    answer: Row | None,
) -> Table:
    """One line per variant: its values, each metric's mean (± the 95% interval), and a note."""
    grid = Table(header_style="bold")
    for key in keys:
        grid.add_column(Text(key))
    for metric in metrics:
        grid.add_column(Text(metric), justify="right")
    grid.add_column("note")
    places = _column_places(rows, metrics)
    for row in sorted(rows, key=lambda row: row.variant.index):
        values = [str(value) for _, value in row.variant.settings]
        if row.failed:
            cells = ["-"] * len(metrics)
            note = row.errors[0] if row.errors else ""
        else:
            cells = [cell(e, column) for e, column in zip(row.estimates, places, strict=True)]
            note = _note(row, target, metrics, answer)
        style = "bold green" if row is answer else None
        grid.add_row(*map(Text, [*values, *cells, note]), style=style)
    return grid


def _column_places(rows: Sequence[Row], metrics: Sequence[str]) -> list[tuple[int, int]]:
    """Per metric, the places of its means and of its half widths (:func:`places_for`)."""
    played = [row.estimates for row in rows if not row.failed]
    return [
        (
            places_for(estimates[index].mean for estimates in played),
            places_for(estimates[index].half_width for estimates in played),
        )
        for index in range(len(metrics))
    ]


def _note(row: Row, target: Target | None, metrics: Sequence[str], answer: Row | None) -> str:
    parts = []
    if row.errors:
        parts.append(f"{len(row.errors)} replica(s) failed: {row.errors[0]}")
    if target is not None:
        if row is answer:
            parts.append("cheapest meeting the target")
        elif target.met_by(row, metrics):
            parts.append("meets the target")
    return "; ".join(parts)


def answer_line(target: Target, answer: Row | None, metrics: Sequence[str]) -> str:
    if answer is None:
        return f"no variant meets {target.text}"
    mean = answer.estimates[metrics.index(target.metric)].mean
    return (
        f"cheapest variant meeting {target.text}: {answer.variant.label()} "
        f"({target.metric} = {number(mean)})"
    )


def to_csv(rows: Sequence[Row], keys: Sequence[str], metrics: Sequence[str]) -> str:
    """One line per variant: its values; per metric the mean, the interval's half width and the
    replicas it is over; the errors."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["variant", *keys]
    for metric in metrics:
        header += [metric, f"{metric}_ci95", f"{metric}_n"]
    writer.writerow([*header, "errors"])
    for row in sorted(rows, key=lambda row: row.variant.index):
        line: list[object] = [row.variant.index, *(value for _, value in row.variant.settings)]
        for estimate in _estimates(row, metrics):
            line += [_plain(estimate.mean), _plain(estimate.half_width), estimate.samples]
        writer.writerow([*line, " | ".join(row.errors)])
    return buffer.getvalue()


def _estimates(row: Row, metrics: Sequence[str]) -> tuple[Estimate, ...]:
    """The row's estimates, or empty ones for a variant whose every replica failed."""
    return row.estimates or tuple(Estimate(None, None, 0) for _ in metrics)


def _plain(value: float | None) -> str:
    return "" if value is None else repr(value)


def to_json(
    rows: Sequence[Row],
    metrics: Sequence[str],
    target: Target | None,
    answer: Row | None,
) -> str:
    document: dict[str, object] = {
        "metrics": list(metrics),
        "variants": [
            {
                "variant": row.variant.index,
                "settings": dict(row.variant.settings),
                "metrics": {
                    metric: {"mean": e.mean, "ci95": e.half_width, "n": e.samples}
                    for metric, e in zip(metrics, _estimates(row, metrics), strict=True)
                },
                "errors": list(row.errors),
            }
            for row in sorted(rows, key=lambda row: row.variant.index)
        ],
    }
    if target is not None:
        document["target"] = {
            "text": target.text,
            "met_by": None if answer is None else answer.variant.index,
        }
    return json.dumps(document, indent=2) + "\n"


def plot(
    rows: Sequence[Row], keys: Sequence[str], metrics: Sequence[str], metric: str, width: int
) -> str:
    """``metric`` against the first varied key, one line per combination of the other keys."""
    import plotext

    index = metrics.index(metric)
    lines: dict[str, tuple[list[object], list[float]]] = {}
    for row in sorted(rows, key=lambda row: row.variant.index):
        if row.failed or row.estimates[index].mean is None:
            continue
        settings = row.variant.settings
        label = " ".join(f"{key}={value}" for key, value in settings[1:]) or metric
        xs, ys = lines.setdefault(label, ([], []))
        xs.append(settings[0][1])
        ys.append(row.estimates[index].mean)  # type: ignore[arg-type]
    if not lines:
        return ""
    plotext.clf()
    plotext.plotsize(max(40, width), 15)
    plotext.theme("clear")
    values = list(dict.fromkeys(x for xs, _ in lines.values() for x in xs))
    numeric = all(type(x) in (int, float) for x in values)
    place = {x: x if numeric else position for position, x in enumerate(values, 1)}
    for label, (xs, ys) in lines.items():
        plotext.plot([place[x] for x in xs], ys, label=label, marker="dot")
    if not numeric:
        plotext.xticks(list(place.values()), [str(x) for x in values])
    elif all(type(x) is int for x in values):
        drawn = plotext.plot_size()[0]  # what was asked for, at most the terminal's width
        ticks = whole_ticks(sorted(values), drawn - AXIS_CELLS)  # type: ignore[arg-type]
        plotext.xticks(ticks, [str(tick) for tick in ticks])
    plotext.xlabel(keys[0])
    plotext.title(metric)
    return plotext.uncolorize(plotext.build()) + "\n"


AXIS_CELLS = 12
"""Cells of a plot's width that are not its x axis: the frame and the y axis's labels (up to nine
characters, a wait of a million ticks: wider labels leave the x axis less room than reckoned)."""


def whole_ticks(values: Sequence[int], cells: int) -> list[int]:
    """Where to label an axis of whole numbers (worker counts): at values the sweep played,
    first and last included, each label clear of the one before. Left to itself the plot
    labels 2 to 3 workers ``2.00 2.25 2.50 2.75 3.00``."""
    low, high = values[0], values[-1]
    if low == high:
        return [low]
    widest = max(len(str(value)) for value in values)
    gap = (high - low) * (widest + 2) / cells  # the least distance between two labels
    ticks = [low]
    for value in values[1:-1]:
        if value - ticks[-1] >= gap and high - value >= gap:
            ticks.append(value)
    return [*ticks, high]
