"""``--target 'p95_wait[priority=high] <= 300'``: the condition a capacity question asks.

A variant meets the target when its metric's mean across replicas satisfies the comparison. The
answer is the first variant that meets it, in the sweep's order
(:mod:`cronlapse.analyses.sweep.plan`: list values cheapest first).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cronlapse.analyses.sweep.metrics import MetricError, parse_metric
from cronlapse.analyses.sweep.summary import Row

_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
}
_TARGET = re.compile(r"\s*(\S+?)\s*(<=|>=|==|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?)\s*\Z")


@dataclass(frozen=True, slots=True)
class Target:
    text: str
    """As written, spaced the one way (``p95_wait <= 30``)."""
    metric: str
    comparison: str
    bound: float

    def met_by(self, row: Row, metrics: Sequence[str]) -> bool:
        """True when ``row``'s mean of the metric satisfies the target (never for a failed row or
        a metric with no value)."""
        if row.failed:
            return False
        mean = row.estimates[metrics.index(self.metric)].mean
        return mean is not None and _OPERATORS[self.comparison](mean, self.bound)


def parse_target(text: str) -> Target:
    matched = _TARGET.fullmatch(text)
    if matched is None:
        raise MetricError(
            f"target {text!r}: expected METRIC OP NUMBER with OP one of <=, <, >=, >, ==, "
            "e.g. 'p95_wait <= 30'"
        )
    metric, comparison, bound = matched.groups()
    parse_metric(metric)
    return Target(f"{metric} {comparison} {bound}", metric, comparison, float(bound))


def cheapest(target: Target, rows: Sequence[Row], metrics: Sequence[str]) -> Row | None:
    """The first row, in the sweep's order, that meets ``target``; None when none does."""
    ordered = sorted(rows, key=lambda row: row.variant.index)
    return next((row for row in ordered if target.met_by(row, metrics)), None)
