"""The scheduler's read model, written into a real PostgreSQL database.

A transaction that rewrites runs replaces each one's row (an upsert on the run's key, one
statement text for any number of runs: see ``replace_runs``). Every row must be replaced: a row
left behind, or a duplicate key, would stop the scheduler.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from cronlapse.service.live import fresh_state
from cronlapse.service.metrics import Metrics
from cronlapse.service.read_model import ReadModel
from cronlapse.service.store import Publication, open_store
from cronlapse.service.store.sql.schema import view_runs
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.schedules.kinds import Once

pytestmark = pytest.mark.integration

RUNS = 101
"""Runs written twice: once as the read model's first rows, then each replaced."""


def _running_runs(count: int) -> SimpleNamespace:
    """A service's state with ``count`` one-time jobs, each run started on a worker of its own."""
    state = fresh_state()
    driver = state.driver
    for number in range(count):
        assert driver.apply_now(RegisterWorker(f"w{number}")).accepted
        assert driver.apply_now(ScheduleJob(JobSpec(f"job{number}", Once(0)))).accepted
        state.order.append(f"job{number}")
    driver.finish(0)
    assert len(state.engine.query.records()) == count
    return SimpleNamespace(state=state, engine=state.engine)


def test_a_write_of_runs_already_written_replaces_every_row(postgres) -> None:
    store = open_store(postgres.database())
    try:
        live = _running_runs(RUNS)
        model = ReadModel(live, Metrics())  # type: ignore[arg-type]
        store.journal.append([], Publication(views=model.rebuild()))
        model.runs.update(live.engine.query.records())
        store.journal.append([], Publication(views=model.changes()))
        with store.db.connect() as conn:
            rows = conn.execute(select(func.count()).select_from(view_runs)).scalar()
            keys = conn.execute(select(view_runs.c.job_id, view_runs.c.scheduled)).all()
        assert rows == RUNS
        assert {tuple(key) for key in keys} == set(live.engine.query.records())
    finally:
        store.close()
