"""A variant's replicas reduced to a mean with a 95% confidence interval per metric.

The interval is Student's t: mean +- t(0.975, n-1) * s / sqrt(n), with s the sample standard
deviation, so that five replicas give the honest (wide) interval that five samples support. A
replica whose metric is None (no run of that priority started) is left out of that metric; a
variant whose every replica failed has no estimates, and its first error as its note.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from cronlapse.analyses.sweep.evaluate import Outcome
from cronlapse.analyses.sweep.plan import Variant

_T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t, two-sided 95%, for 1 to 30 degrees of freedom (any statistics table)."""
_T_LARGE = ((40, 2.021), (60, 2.000), (120, 1.980))
_Z_975 = 1.960


def t_975(degrees: int) -> float:
    """The 97.5th percentile of Student's t with ``degrees`` degrees of freedom (the table's
    value at or below ``degrees`` past 30, which errs on the wide side)."""
    if degrees <= len(_T_975):
        return _T_975[degrees - 1]
    value = _T_975[-1]
    for at_least, t in _T_LARGE:
        if degrees >= at_least:
            value = t
    return _Z_975 if degrees > 1000 else value


@dataclass(frozen=True, slots=True)
class Estimate:
    mean: float | None
    half_width: float | None
    """Of the 95% interval; None with fewer than two values."""
    samples: int


@dataclass(frozen=True, slots=True)
class Row:
    variant: Variant
    estimates: tuple[Estimate, ...]
    """One per metric; empty when every replica failed."""
    errors: tuple[str, ...]
    """The failed replicas' errors, in replica order."""

    @property
    def failed(self) -> bool:
        return not self.estimates


def estimate(values: Iterable[float | None]) -> Estimate:
    known = [value for value in values if value is not None]
    if not known:
        return Estimate(None, None, 0)
    mean = math.fsum(known) / len(known)
    if len(known) < 2:
        return Estimate(mean, None, 1)
    spread = statistics.stdev(known)
    return Estimate(mean, t_975(len(known) - 1) * spread / math.sqrt(len(known)), len(known))


def summarise(variant: Variant, outcomes: list[Outcome], metrics: int) -> Row:
    """The row of ``variant`` from its replicas' outcomes (in any order)."""
    ordered = sorted(outcomes, key=lambda outcome: outcome.replica)
    errors = tuple(outcome.error for outcome in ordered if outcome.error is not None)
    played = [outcome for outcome in ordered if outcome.error is None]
    if not played:
        return Row(variant, (), errors)
    estimates = tuple(
        estimate(outcome.values[index] for outcome in played) for index in range(metrics)
    )
    return Row(variant, estimates, errors)
