"""The one read API: every question asked of an engine from above the kernel, as
``engine.query`` (a :class:`~engine.query.api.Query` the engine builds once). It answers:

- jobs: one (``job``, ``live_job``), all in submission order, views and pages by status, the
  seed's status word;
- runs: one by key (``run``, ``run_state``, ``record``, ``attempts``), with the runs that have
  no record; listed, paged and counted by state, job, worker and ticks; the seed's word;
- the lazy backlogs: a job's implicit front, counts behind it, its cancelled range, its runs in
  a span of ticks; the cursors' bookkeeping (created through, dispatches, the next due tick);
- workers (one, all, rows) and notifications (the outbox);
- what explanations read: the ready queue's runs, the jobs about to fall due, a pool's slots in
  use, a job's active runs under its overlap rule, a run's upstream runs and trigger rule, and
  whether a backfill has still to create a run.

Imports the kernel only; everything outside the kernel reads state through it (the test
``tests/test_query_boundary.py`` holds that line). Modules by meaning: ``api`` (the object),
``views`` (rows, pages, summaries), ``jobs``, ``runs``, ``backlogs``, ``workers``, ``queue``,
``rules``, ``status_words``.
"""

from engine.parts.ready_entry import Waiting
from engine.query.api import Query, RunKey
from engine.query.backlogs import RunCounter
from engine.query.views import (
    CancelledRangeView,
    JobView,
    OccurrenceRow,
    Page,
    PoolUse,
    Upstream,
    UpstreamRun,
    WorkerRow,
)

__all__ = [
    "CancelledRangeView",
    "JobView",
    "OccurrenceRow",
    "Page",
    "PoolUse",
    "Query",
    "RunCounter",
    "RunKey",
    "Upstream",
    "UpstreamRun",
    "Waiting",
    "WorkerRow",
]
