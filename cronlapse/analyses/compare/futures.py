"""Two futures side by side: which runs moved, which were dropped or added, and how the
latency figures changed; and the thresholds a change may not cross.

A run is compared by its first start: it *moved* when both futures started it at different
ticks, was *dropped* when only the first started it, *added* when only the second did. Pure: it
reads two engines (two scenarios played headless, or two branches of one history), at whatever
tick each has reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cronlapse.analyses.latency.attribution import (
    MEASURES,
    STATISTICS,
    LatencyReport,
    latency_report,
)
from engine.core import Engine
from engine.model import events as ev

FIGURES = tuple(f"{stat}_{measure}" for measure in MEASURES for stat in STATISTICS)
"""The latency figures a threshold may name: ``p95_wait``, ``max_lag``..."""


@dataclass(frozen=True, slots=True)
class Moved:
    job_id: str
    scheduled: int
    before: int
    after: int

    @property
    def by(self) -> int:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Comparison:
    moved: tuple[Moved, ...]
    """Largest move first."""
    dropped: tuple[tuple[str, int], ...]
    added: tuple[tuple[str, int], ...]
    before: LatencyReport
    after: LatencyReport

    def change(self, figure: str, priority: int | None = None) -> tuple[float | None, float | None]:
        return (
            self.before.metric(figure, priority=priority),
            self.after.metric(figure, priority=priority),
        )


def compare(before: Engine, after: Engine) -> Comparison:
    first, second = first_starts(before), first_starts(after)
    moved = [
        Moved(job_id, scheduled, tick, second[(job_id, scheduled)])
        for (job_id, scheduled), tick in first.items()
        if (job_id, scheduled) in second and second[(job_id, scheduled)] != tick
    ]
    moved.sort(key=lambda m: (-abs(m.by), m.scheduled, m.job_id))
    dropped = sorted(key for key in first if key not in second)
    added = sorted(key for key in second if key not in first)
    return Comparison(
        tuple(moved),
        tuple(dropped),
        tuple(added),
        latency_report(before),
        latency_report(after),
    )


def first_starts(engine: Engine) -> dict[tuple[str, int], int]:
    """Each started run's first start tick."""
    starts: dict[tuple[str, int], int] = {}
    for kind, fields in engine.log.stored_since(0):
        if kind is ev.AttemptStarted:
            starts.setdefault((fields[1], fields[2]), fields[0])
    return starts


@dataclass(frozen=True, slots=True)
class Threshold:
    """The most a figure may grow from the first future to the second."""

    figure: str
    limit: float
    relative: bool
    """A share of the first future's figure (``10%``) rather than ticks (``30``)."""

    def __str__(self) -> str:
        limit = f"{self.limit:g}%" if self.relative else f"{self.limit:g} ticks"
        return f"{self.figure} may grow by {limit}"

    def crossed(self, comparison: Comparison) -> str | None:
        """Why the threshold is crossed, or None when it holds."""
        before, after = comparison.change(self.figure)
        if before is None or after is None:
            return None
        growth = after - before
        if self.relative:
            if growth <= 0 or (before > 0 and growth * 100 <= self.limit * before):
                return None
            share = "from 0" if before == 0 else f"{growth * 100 / before:.1f}%"
            return (
                f"{self.figure} grew from {before:g} to {after:g} ({share}), over {self.limit:g}%"
            )
        if growth <= self.limit:
            return None
        return f"{self.figure} grew from {before:g} to {after:g} (+{growth:g}), over {self.limit:g}"


_LIMIT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*\Z")


def parse_threshold(figure: str, text: str) -> Threshold:
    """``10%`` or ``30`` (ticks) for ``figure``; ValueError with what was expected."""
    if figure not in FIGURES:
        raise ValueError(f"no figure {figure!r}; the figures are {', '.join(FIGURES)}")
    found = _LIMIT.match(text)
    if found is None:
        raise ValueError(
            f"expected a percentage such as 10% or a number of ticks such as 30, got {text!r}"
        )
    return Threshold(figure, float(found.group(1)), found.group(2) == "%")
