"""``GET /job/{id}/runs`` pages by key in the read model (issue 36, item 1): the SQL a page runs
seeks the job's runs from the cursor's tick through the primary key's index, with no OFFSET to
walk and no sort, so a page deep in a long history costs what the first one costs. Asserted on
the plans SQLite and PostgreSQL give for the statements the store actually sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event, text

from cronlapse.service.store import Publication
from cronlapse.service.store.sql import SqlStore
from cronlapse.service.store.views import JobView, RunView, ViewChanges
from tests.service.conftest import BACKENDS

pytestmark = pytest.mark.integration


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        url = request.getfixturevalue("postgres").database()
    store = SqlStore(url)
    yield store
    store.close()


def job(job_id: str, position: int) -> JobView:
    return JobView(job_id, position, False, "created", 0, "noop", "{}", "{}")


def runs_statements(
    store: SqlStore, since: int, finished: bool = False
) -> list[tuple[str, object]]:
    """The statements (and their parameters) that reading a page of runs sends on view_runs:
    the read model's page, or (``finished``) the finished runs a process merges with its
    engine's. SQLite's go through sqlite3 (its trace gives each with its values in place),
    PostgreSQL's through SQLAlchemy."""
    sent: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _many) -> None:
        if "view_runs" in statement:
            sent.append((statement, parameters))

    def traced(statement: str) -> None:
        if "view_runs" in statement:
            sent.append((statement, ()))

    if store.sqlite is not None:
        store.sqlite.connection().set_trace_callback(traced)
    else:
        event.listen(store.db, "before_cursor_execute", record)
    try:
        if finished:
            assert len(store.views.finished("a", since, 10)) == 10
        else:
            page = store.views.runs("a", since, 10)
            assert page is not None and len(page.items) == 10
    finally:
        if store.sqlite is not None:
            store.sqlite.connection().set_trace_callback(None)
        else:
            event.remove(store.db, "before_cursor_execute", record)
    return sent


def plan(store: SqlStore, statement: str, parameters: object) -> str:
    """The database's plan for ``statement``, as one string. PostgreSQL is told not to scan
    sequentially where it need not: on a table this small a scan is cheaper, and the point is
    whether the index can serve the query at all."""
    if store.sqlite is not None:
        found = store.sqlite.read(f"EXPLAIN QUERY PLAN {statement}", parameters)
        return "\n".join(str(row[-1]) for row in found)
    with store.db.connect() as conn:
        cursor = conn.connection.driver_connection.cursor()
        conn.execute(text("SET enable_seqscan = off"))
        cursor.execute(f"EXPLAIN {statement}", parameters)
        return "\n".join(str(row[0]) for row in cursor.fetchall())


@pytest.mark.parametrize("finished", [False, True], ids=["read model", "finished runs"])
def test_a_page_of_runs_seeks_the_primary_key_from_its_cursor(
    store: SqlStore, finished: bool
) -> None:
    runs = [RunView("a", tick, False, "{}", final=True) for tick in range(0, 5_000, 10)]
    runs += [RunView("b", tick, False, "{}", final=True) for tick in range(0, 500, 10)]
    changes = ViewChanges(jobs=[job("a", 0), job("b", 1)], runs=runs)
    store.journal.append([], Publication(views=changes))
    (statement, parameters), *_ = runs_statements(store, since=4_000, finished=finished)
    found = plan(store, statement, parameters)
    assert "OFFSET" not in statement.upper(), statement
    if store.sqlite is not None:
        assert "SEARCH view_runs USING" in found and "scheduled>" in found, found
        assert "TEMP B-TREE" not in found, found
    else:
        assert "Index" in found and "view_runs_pkey" in found, found
        assert "Sort" not in found, found
