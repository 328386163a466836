"""The second backend: versioned migrations on both, and the URLs cronlapse takes.

The served API, the SIGKILL test and the restart from a snapshot run on both backends in
test_api.py and test_durability.py (their fixtures are parametrised); the store's operations in
test_store_sql.py (the contract every store keeps); here are the migrations themselves.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, inspect, select, text

from cronlapse.service.store import Entry, SchemaTooNew, UnsupportedDatabase, open_store, shown
from cronlapse.service.store.sql.db import open_database
from cronlapse.service.store.sql.migrations import LATEST, STEPS, migrate, schema_version
from cronlapse.service.store.sql.migrations.v001_journal import meta
from cronlapse.service.store.sql.urls import database_url
from tests.service.conftest import BACKENDS, ROOT, free_port


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("postgres").database()


def _pre_versioning_schema(url: str) -> None:
    """The tables as cronlapse made them before migrations (``metadata.create_all``), one row
    in the journal and the clock in meta."""
    old = MetaData()
    Table(
        "journal",
        old,
        Column("seq", Integer, primary_key=True, autoincrement=True),
        Column("tick", Integer, nullable=False),
        Column("phase", Integer, nullable=False),
        Column("verb", String(32), nullable=False),
        Column("args", String, nullable=False),
        Column("wall", Integer, nullable=False),
    )
    Table("meta", old, Column("key", String(64), primary_key=True), Column("value", String))
    engine = open_database(url)
    old.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO journal (tick, phase, verb, args, wall) "
                "VALUES (5, 2, 'register', '{\"worker\": \"w1\"}', 0)"
            )
        )
        conn.execute(text("INSERT INTO meta (key, value) VALUES ('clock', 'x')"))
    engine.dispose()


@pytest.mark.integration
def test_an_empty_database_is_migrated_to_the_latest_version(url: str) -> None:
    engine = open_database(url)
    assert migrate(engine) == list(range(1, LATEST + 1))
    assert migrate(engine) == [], "a second start has nothing to do"
    with engine.connect() as conn:
        assert schema_version(conn) == LATEST
        tables = {"journal", "snapshots", "meta", "workers", "dispatch"}
        assert tables <= set(inspect(conn).get_table_names())
    engine.dispose()


@pytest.mark.integration
def test_a_database_from_before_migrations_keeps_its_rows(url: str) -> None:
    _pre_versioning_schema(url)
    store = open_store(url)
    assert [(row.seq, row.verb) for row in store.journal.rows_after(0)] == [(1, "register")]
    assert store.journal.get_meta("clock") == "x"
    assert store.journal.append([Entry(6, 2, "clock", {})]) == [2]
    with store.db.connect() as conn:
        assert schema_version(conn) == LATEST
        assert {"snapshots", "dispatch"} <= set(inspect(conn).get_table_names()), "created"
    store.close()


@pytest.mark.integration
def test_a_version_1_database_gets_the_later_steps_only(url: str) -> None:
    engine = open_database(url)
    with engine.begin() as conn:
        STEPS[0](conn)
        conn.execute(meta.insert().values(key="schema_version", value="1"))
        conn.execute(text("INSERT INTO meta (key, value) VALUES ('clock', 'kept')"))
    assert migrate(engine) == list(range(2, LATEST + 1))
    with engine.connect() as conn:
        assert "dispatch" in inspect(conn).get_table_names()
        assert conn.execute(text("SELECT value FROM meta WHERE key = 'clock'")).scalar() == "kept"
    engine.dispose()


@pytest.mark.integration
def test_a_database_newer_than_the_code_is_refused(url: str) -> None:
    engine = open_database(url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(
            meta.update().values(value=str(LATEST + 1)).where(meta.c.key == "schema_version")
        )
    with pytest.raises(SchemaTooNew, match=f"version {LATEST + 1}"):
        migrate(engine)
    engine.dispose()


@pytest.mark.e2e
def test_processes_starting_at_once_migrate_once(postgres) -> None:
    """Four stores opening one empty PostgreSQL database together: the advisory lock makes one
    migrate, the others find it done (without it, CREATE TABLE races and fails)."""
    url = postgres.database()
    failures: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_one() -> None:
        barrier.wait()
        try:
            open_store(url).close()
        except BaseException as failure:
            failures.append(failure)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    engine = open_database(url)
    with engine.connect() as conn:
        rows = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).all()
    assert rows == [(str(LATEST),)]
    engine.dispose()


def test_a_plain_postgresql_url_uses_psycopg_and_other_databases_are_refused() -> None:
    assert database_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("sqlite:///x.db").drivername == "sqlite"
    with pytest.raises(UnsupportedDatabase, match="expected a sqlite:/// or postgresql:// URL"):
        database_url("mysql://u@h/db")
    assert shown("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"


def test_an_sqlite_without_returning_is_refused_with_the_version_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 34, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.34.1")
    with pytest.raises(UnsupportedDatabase, match=r"SQLite is 3\.34\.1; cronlapse needs 3\.35"):
        database_url("sqlite:///x.db")


@pytest.mark.e2e
def test_serve_names_an_unreachable_database_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://cronlapse:hunter2@127.0.0.1:{free_port()}/nothing"
    result = subprocess.run(
        [sys.executable, "-m", "cronlapse", "serve", "--db", url],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "CRONLAPSE_TOKEN": "t" * 20, "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("cronlapse serve: cannot open the database postgresql://")
    assert "hunter2" not in result.stderr and "Traceback" not in result.stderr
