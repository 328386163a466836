"""What a sweep measures in each run: the figures of latency attribution
(:mod:`cronlapse.analyses.latency.attribution`).

A metric is one of :data:`cronlapse.analyses.latency.attribution.METRICS`: ``p50_wait``,
``p95_lag``, ``max_backoff`` (p50, p95 or max of the schedule lag, the queue wait or the backoff
wait), ``runs``, ``waiting``, ``failed``, ``cancelled``, ``skipped`` or ``utilisation``. The figures
and ``runs`` take a selector, ``[priority=high]`` (a name or a number) or ``[job=ID]``; the other
counts and utilisation are the whole fleet's. A figure over no runs (no high-priority run fell due)
is None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cronlapse.analyses.latency.attribution import COUNTS, METRICS, LatencyReport
from engine.model.records import PRIORITY_LEVELS

DEFAULT_METRICS = ("p50_wait", "p95_wait", "max_wait", "failed", "utilisation")
SELECTABLE = tuple(name for name in METRICS if name not in (*COUNTS[1:], "utilisation"))
"""The metrics a selector may narrow: the figures, and ``runs``."""

_NAME = re.compile(r"([a-z0-9_]+)(?:\[([a-z_]+)=([^\]]+)\])?\Z")


class MetricError(ValueError):
    """A metric name that means nothing; the message lists what is known."""


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    """As the user wrote it, and as the tables, CSV and JSON name it."""
    base: str
    """The name in :data:`cronlapse.analyses.latency.attribution.METRICS`."""
    priority: int | None = None
    job: str | None = None

    def value(self, report: LatencyReport) -> float | None:
        found = report.metric(self.base, priority=self.priority, job=self.job)
        return None if found is None else float(found)


def parse_metric(text: str) -> Metric:
    """The metric ``text`` names; raises :class:`MetricError` with the names it knows."""
    matched = _NAME.fullmatch(text.strip())
    if matched is None or matched.group(1) not in METRICS:
        raise MetricError(
            f"unknown metric {text!r}: expected one of {', '.join(METRICS)}, the figures and "
            "runs optionally with [priority=high] or [job=ID]"
        )
    base, field, wanted = matched.groups()
    if field is None:
        return Metric(text, base)
    if base not in SELECTABLE:
        raise MetricError(f"metric {text!r}: {base} is the whole fleet's, without a selector")
    if field == "job":
        return Metric(text, base, job=wanted)
    if field != "priority":
        raise MetricError(f"metric {text!r}: select by priority or job, not {field!r}")
    if wanted in PRIORITY_LEVELS:
        return Metric(text, base, priority=PRIORITY_LEVELS[wanted])
    if re.fullmatch(r"-?[0-9]+", wanted):
        return Metric(text, base, priority=int(wanted))
    raise MetricError(f"metric {text!r}: a priority is high, medium, low or a whole number")
