"""An SQLite server's restart never loads SQLAlchemy (issue 36: a third of the time to the first
run with 20,000 jobs stored, and 20 MB kept for the server's life): its journal goes through
sqlite3 (:mod:`cronlapse.service.store.sql.sqlite_journal`), a database at the current schema is
opened without the migrations, and the rest of the store loads SQLAlchemy on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from cronlapse.service.server import open_service
from cronlapse.service.store import open_store
from cronlapse.service.store.sql.migrations import STEPS
from cronlapse.service.store.sql.urls import plain_sqlite_file, shown, sqlite_file
from cronlapse.service.store.sql.version import LATEST, VERSION_KEY
from tests.service.conftest import ROOT

pytestmark = pytest.mark.integration

RESTART = (
    "import sys\n"
    "from cronlapse.service.server import open_service\n"
    "live = open_service(sys.argv[1], None, 1.0, 'http://127.0.0.1:1')\n"
    "live.submit('schedule', {'id': 'after', 'every': 60, 'first': '+60'})\n"
    "jobs = sorted(live.engine.query.jobs())\n"
    "live.store.close()\n"
    "print(jobs, sorted(name for name in sys.modules if name.split('.')[0] == 'sqlalchemy'))\n"
)


def test_a_restart_on_sqlite_replays_and_journals_without_sqlalchemy(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    live = open_service(url, None, 1.0, "http://127.0.0.1:1")  # creates and migrates it
    live.submit("schedule", {"id": "before", "every": 60, "first": "+60"})
    live.snapshot()
    live.submit("schedule", {"id": "replayed", "every": 60, "first": "+60"})
    live.store.close()
    done = subprocess.run(
        [sys.executable, "-c", RESTART, url], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "['after', 'before', 'replayed'] []"


FIRST_START = (
    "import sys\n"
    "from cronlapse.service.server import open_service\n"
    "try:\n"
    "    live = open_service(sys.argv[1], None, 1.0, 'http://127.0.0.1:1')\n"
    "    live.submit('schedule', {'id': 'first', 'every': 60, 'first': '+60'})\n"
    "    live.store.close()\n"
    "except Exception as error:\n"
    "    print(type(error).__name__, error)\n"
    "print(sorted(name for name in sys.modules if name.split('.')[0] == 'sqlalchemy'))\n"
)
"""A server's first start on a database, in a process of its own: what it says, then the
SQLAlchemy modules it loaded."""


def _first_start(url: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_START, url],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return done.stdout.strip().splitlines()


def test_a_first_start_on_sqlite_migrates_in_a_child_and_never_loads_sqlalchemy(
    tmp_path: Path,
) -> None:
    """The migrations are SQLAlchemy's: a server that created its database kept it loaded for
    its whole life. A child migrates instead; the server then journals as after a restart."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    assert _first_start(url) == ["[]"]
    live = open_service(url, None, 1.0, "http://127.0.0.1:1")
    try:
        assert sorted(live.engine.query.jobs()) == ["first"]
        assert live.store.journal.get_meta(VERSION_KEY) == str(LATEST)
    finally:
        live.store.close()


def test_a_database_too_new_is_refused_by_the_migrating_child_in_the_stores_words(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    store = open_store(url)
    store.journal.set_meta(VERSION_KEY, str(LATEST + 1))
    store.close()
    said, modules = _first_start(url)
    assert said.startswith(f"ServeError cannot open the database {url}: the database's schema")
    assert f"version {LATEST + 1}; this cronlapse knows up to {LATEST}" in said
    assert modules == "[]"


def test_the_schema_version_is_the_last_steps() -> None:
    assert len(STEPS) == LATEST


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:////tmp/a.db",
        "sqlite:///relative/a.db",
        "sqlite:////tmp/a%20b.db",
        "sqlite:////tmp/a@b.db",
        "sqlite:///a.db?mode=ro",
        "sqlite:///:memory:",
        "sqlite://",
        "sqlite+pysqlite:///a.db",
        "postgresql://user:secret@host/db",
    ],
)
def test_a_plain_sqlite_url_reads_as_sqlalchemy_reads_it(url: str) -> None:
    parsed = make_url(url)
    is_file = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, ":memory:")
    assert sqlite_file(url) == (parsed.database if is_file else None)
    assert shown(url) == parsed.render_as_string(hide_password=True)
    if plain_sqlite_file(url) is not None:
        assert plain_sqlite_file(url) == parsed.database


def test_reading_the_latest_snapshot_leaves_no_page_cache_behind(tmp_path: Path) -> None:
    """SQLite keeps the pages it read in its connection's cache (up to 2 MB): after a restart
    read its snapshot, 2 MB of its resident size for the life of the server (issue 36). The
    read tells SQLite to give them back (``PRAGMA shrink_memory``)."""
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        store.journal.save_snapshot(1, bytes(range(256)) * 12_000)
        statements: list[str] = []
        connection = store.journal.db.connection()  # type: ignore[attr-defined]
        connection.set_trace_callback(statements.append)
        saved = store.journal.latest_snapshot()
        assert saved is not None and len(saved.state) == 256 * 12_000
        assert statements[-1] == "PRAGMA shrink_memory"
    finally:
        store.close()
