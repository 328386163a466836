"""The distribution of one latency measure as a terminal plot: a histogram per priority.

Drawn by plotext through textual-plotext; the figures are the engine's
(:func:`cronlapse.analyses.latency.attribution.latency_report`), so the plot and ``cronlapse run
--stats`` agree.
"""

from __future__ import annotations

from textual_plotext import PlotextPlot

from cronlapse.analyses.latency.attribution import MEASURES, LatencyReport, priority_name

BINS = 20
COLOURS = ("red", "orange", "green", "cyan", "blue", "magenta")
"""One per series, highest priority first. Given, not left to plotext, whose automatic colours
follow the plots drawn before in the process: the same screen would draw differently."""


class LatencyPlot(PlotextPlot):
    """Runs by how long they spent in one measure (``lag``, ``wait`` or ``backoff``)."""

    DEFAULT_CSS = "LatencyPlot { height: 14; }"

    def __init__(self, report: LatencyReport, measure: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.report = report
        self.measure = measure

    def on_mount(self) -> None:
        plt = self.plt
        plt.title(f"{MEASURES[self.measure]}: runs by ticks waited")
        plt.xlabel("ticks")
        by_priority: dict[int, list[int]] = {}
        for run in self.report.runs:
            by_priority.setdefault(run.priority, []).append(getattr(run, self.measure))
        for number, priority in enumerate(sorted(by_priority, reverse=True)):
            plt.hist(
                by_priority[priority],
                bins=BINS,
                label=f"priority {priority_name(priority)}",
                color=COLOURS[number % len(COLOURS)],
            )
        longest = max((max(values) for values in by_priority.values()), default=0)
        plt.xlim(0, max(1, longest))
