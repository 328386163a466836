"""The scheduler's read model, written into a real PostgreSQL database.

A transaction that rewrites more runs than one statement may carry as bound parameters
(PostgreSQL takes at most 65,535; a run's key is two) deletes their old rows in chunks of
``KEYS_PER_DELETE``. Every chunk must go: a row left behind makes the insert that follows fail on
the primary key, and the scheduler stops.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from cronlapse.service.live import fresh_state
from cronlapse.service.metrics import Metrics
from cronlapse.service.read_model import ReadModel
from cronlapse.service.store import Publication, open_store
from cronlapse.service.store.sql import views
from cronlapse.service.store.sql.schema import view_runs
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.schedules.kinds import Once

pytestmark = pytest.mark.integration

KEYS_A_TEST_DELETE_TAKES = 50
"""The chunk the test sets: the same code path as the product's chunk of 5,000, at a size whose
state builds in a fraction of a second (10,001 runs took 44 s of the suite)."""
RUNS = KEYS_A_TEST_DELETE_TAKES * 2 + 1
"""Three chunks, the last of one run."""


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


def test_the_product_chunk_stays_under_postgresqls_bound_parameters() -> None:
    assert views.KEYS_PER_DELETE * 2 <= 65_535


def test_a_write_of_more_runs_than_one_delete_takes_replaces_every_row(
    postgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "KEYS_PER_DELETE", KEYS_A_TEST_DELETE_TAKES)
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
