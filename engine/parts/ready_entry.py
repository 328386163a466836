"""A ready queue's entry: a run that may start now, as a bare tuple."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from engine.model.records import Occurrence

ReadyEntry = tuple
"""An occurrence that may run now: either materialised, or the implicit front of its job, as
the plain tuple ``(job_id, scheduled, order_key, priority, ready_since, submission, occurrence)``
(read it through the indexes below, or as a :class:`Waiting`).

Why a bare tuple and not a value class: a job with due runs keeps one entry for as long as its
runs wait, and seed 000's maximum workload keeps about 47,000 of them (with the heap items that
hold them, a quarter of the engine's objects). The cycle collector walks every class instance it
holds at each full collection; a tuple of strings and numbers, which a front is (its occurrence
is None), it stops walking after one pass."""

JOB_ID, SCHEDULED, ORDER_KEY, PRIORITY, READY_SINCE, SUBMISSION, OCCURRENCE = range(7)
"""The fields of a ready entry, by position. ``submission`` is the job's submission position:
with ``scheduled``, the order in which runs fell due (the aging order's tie-break).
``occurrence`` is None for a job's implicit front: nothing is created until a worker takes it."""


class Waiting(NamedTuple):
    """A ready entry with its fields named, for the code that explains the queue (slower to
    build, so the queue itself keeps bare tuples)."""

    job_id: str
    scheduled: int
    order_key: bytes
    priority: int
    ready_since: int
    submission: int
    occurrence: Occurrence | None
