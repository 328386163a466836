"""The SQL store keeps the store's contract (tests/service/store_contract.py) on SQLite and on a
real PostgreSQL server, and its tables are exactly what the migrations make."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect

from cronlapse.service.store import (
    Entry,
    Held,
    StoreFailure,
    open_journal_reader,
    open_store,
)
from cronlapse.service.store.sql import SqlStore
from cronlapse.service.store.sql.db import open_database
from cronlapse.service.store.sql.migrations import migrate
from cronlapse.service.store.sql.schema import schema
from tests.service.conftest import BACKENDS, free_port
from tests.service.store_contract import StoreContract

pytestmark = pytest.mark.integration


class TestSqliteStore(StoreContract):
    coordinates = False

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SqlStore]:
        store = SqlStore(f"sqlite:///{tmp_path / 'store.db'}")
        yield store
        store.close()


class TestPostgresqlStore(StoreContract):
    @pytest.fixture
    def store(self, postgres) -> Iterator[SqlStore]:
        store = SqlStore(postgres.database())
        yield store
        store.close()


@pytest.fixture(params=BACKENDS)
def two_databases(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """Two empty databases on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    postgres = request.getfixturevalue("postgres")
    return postgres.database(), postgres.database()


def _described(url: str) -> dict[str, dict]:
    """Every table as the database describes it: its columns (name, type, nullable, default),
    primary key, indexes and unique constraints."""
    db = open_database(url)
    try:
        found = inspect(db)
        return {
            name: {
                "columns": [
                    (c["name"], str(c["type"]), c["nullable"], str(c.get("default")))
                    for c in found.get_columns(name)
                ],
                "key": found.get_pk_constraint(name)["constrained_columns"],
                "indexes": sorted(
                    (tuple(i["column_names"]), bool(i["unique"])) for i in found.get_indexes(name)
                ),
                "unique": sorted(
                    tuple(u["column_names"]) for u in found.get_unique_constraints(name)
                ),
            }
            for name in sorted(found.get_table_names())
        }
    finally:
        db.dispose()


def test_the_migrations_make_exactly_the_tables_of_the_schema(
    two_databases: tuple[str, str],
) -> None:
    """Every step applied in order to an empty database gives what schema.py's tables give:
    the same tables, columns (types, nullability, defaults), keys and indexes. The steps are
    deltas, the schema is written out whole, and neither may drift from the other."""
    migrated, created = two_databases
    db = open_database(migrated)
    migrate(db)
    db.dispose()
    db = open_database(created)
    schema.create_all(db)
    db.dispose()
    described = _described(migrated)
    assert set(described) == set(schema.tables)
    assert described == _described(created)


def test_a_database_error_is_the_stores_with_the_drivers_words(tmp_path: Path) -> None:
    """Port 1 of this machine: nothing listens there, and nothing outside is contacted."""
    with pytest.raises(StoreFailure) as failed:
        open_store(f"postgresql://ops:secret@127.0.0.1:{free_port()}/nothing")
    assert failed.value.kind == "OperationalError"
    assert "Connection refused" in str(failed.value) or "connect" in str(failed.value)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    store.close()
    (tmp_path / "s.db").write_bytes(b"not a database, not at all" * 100)
    with pytest.raises(StoreFailure, match="file is not a database"):
        open_store(f"sqlite:///{tmp_path / 's.db'}").journal.last_seq()


def test_a_reader_says_when_the_journal_cannot_be_read_now(tmp_path: Path) -> None:
    """The dashboard shows such a failure and polls again: it must be the store's, whatever the
    driver raised."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    reader = store.reader()
    with store.db.begin() as conn:
        conn.exec_driver_sql("DROP TABLE journal")
    with pytest.raises(StoreFailure, match="no such table"):
        reader.rows_after(0, 10)
    reader.close()
    store.close()


def test_one_store_at_a_time_holds_an_sqlite_database_as_its_writer(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'held.db'}"
    first, second = SqlStore(url), SqlStore(url)
    try:
        first.hold_writer("process 1 at http://127.0.0.1:8080")
        with pytest.raises(Held, match=r"^process 1 at http://127\.0\.0\.1:8080$"):
            second.hold_writer("process 2 at http://127.0.0.1:8081")
        first.close()  # as the end of its process does
        second.hold_writer("process 2 at http://127.0.0.1:8081")
        with pytest.raises(Held, match="process 2"):
            second.hold_writer("process 2 again")
    finally:
        first.close()
        second.close()


def test_the_dashboards_reader_says_where_a_compacted_journal_starts(tmp_path: Path) -> None:
    """The live dashboard starts a journal whose first rows the history's retention deleted
    from its oldest kept snapshot (tui.model.live_start): the reader says both."""
    url = f"sqlite:///{tmp_path / 'kept.db'}"
    store = open_store(url)
    store.journal.append([Entry(tick, 0, "clock", {}) for tick in (10, 20, 30)])
    store.journal.save_snapshot(2, b"at 2")
    whole = open_journal_reader(url)
    assert whole.compacted() == 0
    whole.close()
    assert store.journal.compact(100) == 1
    store.close()
    reader = open_journal_reader(url)
    oldest = reader.oldest_snapshot()
    assert reader.compacted() == 1 and oldest is not None
    assert (oldest.seq, oldest.state) == (2, b"at 2")
    assert [row.seq for row in reader.rows_after(1, 10)] == [2, 3]
    reader.close()
