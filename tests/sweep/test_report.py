"""A sweep's table and plot formatted for what they hold: one form of number per column, whole
numbers as whole numbers, and ticks on an axis of whole numbers (worker counts) whole too."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from cronlapse.analyses.sweep import report
from cronlapse.analyses.sweep.keys import Value
from cronlapse.analyses.sweep.plan import Variant
from cronlapse.analyses.sweep.summary import Estimate, Row


def _rows(key: str, points: list[tuple[Value, list[Estimate]]]) -> list[Row]:
    return [
        Row(Variant(index, ((key, value),)), tuple(estimates), ())
        for index, (value, estimates) in enumerate(points)
    ]


def _columns(rows: list[Row], metrics: list[str]) -> list[list[str]]:
    """The table's metric columns as text, one list of cells per metric."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(report.table(rows, ["key"], metrics, None, None))
    lines = [line for line in console.export_text().splitlines() if line.startswith("│")]
    cells = [[cell.strip() for cell in line.strip("│").split("│")] for line in lines]
    return [[row[1 + number] for row in cells] for number in range(len(metrics))]


def _decimals(cell: str) -> set[int]:
    """The decimal places of each number in a cell (``7.000 ± 3.285``: {3})."""
    return {len(part.partition(".")[2]) for part in cell.split(" ± ")}


def test_a_column_that_holds_fractions_shows_every_value_with_the_same_places() -> None:
    """Utilisation 1.0 beside 0.8734 read ``1`` and ``0.873``, and a mean of 0.99996 ``1.000``;
    a count's mean of 7 beside 20.8 read ``7 ± 3.285`` and ``20.800 ± 3.766``."""
    rows = _rows(
        "defaults.failure_rate",
        [
            (0, [Estimate(0.0, 0.0, 5), Estimate(1.0, None, 5)]),
            (0.1, [Estimate(7.0, 3.285, 5), Estimate(0.8734, None, 5)]),
            (0.3, [Estimate(20.8, 3.766, 5), Estimate(0.99996, None, 5)]),
        ],
    )
    failed, utilisation = _columns(rows, ["failed", "utilisation"])
    assert failed == ["0.000 ± 0.000", "7.000 ± 3.285", "20.800 ± 3.766"]
    assert utilisation == ["1.000", "0.873", "1.000"]


def test_a_column_of_whole_numbers_shows_whole_numbers() -> None:
    rows = _rows("workers", [(4, [Estimate(144.0, None, 1)]), (6, [Estimate(94.0, None, 1)])])
    assert _columns(rows, ["p95_wait"]) == [["144", "94"]]


@given(
    st.lists(
        st.one_of(
            st.integers(0, 10**6).map(float),
            st.floats(0, 10**6, allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_every_cell_of_a_column_has_the_same_places(means: list[float]) -> None:
    rows = _rows("seed", [(n, [Estimate(mean, None, 1)]) for n, mean in enumerate(means)])
    (column,) = _columns(rows, ["p50_wait"])
    places = set().union(*map(_decimals, column))
    assert len(places) == 1
    assert places == ({0} if all(mean.is_integer() for mean in means) else {3})


def _x_labels(plot: str) -> list[str]:
    """The labels under the plot's x axis (the line after the axis's ``└``)."""
    lines = plot.splitlines()
    axis = next(number for number, line in enumerate(lines) if "└" in line)
    return lines[axis + 1].split()


def test_an_axis_of_worker_counts_is_labelled_with_whole_counts() -> None:
    """Two and three workers were labelled 2.00, 2.25, 2.50, 2.75, 3.00."""
    rows = _rows("workers", [(2, [Estimate(144.0, None, 1)]), (3, [Estimate(94.0, None, 1)])])
    assert _x_labels(report.plot(rows, ["workers"], ["p95_wait"], "p95_wait", 80)) == ["2", "3"]


@given(
    st.lists(
        st.one_of(st.integers(0, 10**4), st.integers(0, 10**9)),
        min_size=2,
        max_size=60,
        unique=True,
    ).map(sorted),
    st.integers(40, 160),
)
def test_an_integer_axis_is_labelled_with_values_the_sweep_played(
    counts: list[int], width: int
) -> None:
    """Whole numbers the sweep played, first and last included; the plot leaves out a label
    that would stick out of its frame, which the last one of six digits or more may do."""
    rows = _rows("workers", [(count, [Estimate(float(count), None, 1)]) for count in counts])
    labels = _x_labels(report.plot(rows, ["workers"], ["p95_wait"], "p95_wait", width))
    assert labels and all(re.fullmatch(r"\d+", label) for label in labels), labels
    assert {int(label) for label in labels} <= set(counts)
    assert int(labels[0]) == counts[0]
    assert int(labels[-1]) == counts[-1] or counts[-1] >= 10**5
