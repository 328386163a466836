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
from cronlapse.service.store.sql.migrations import STEPS
from cronlapse.service.store.sql.urls import plain_sqlite_file, shown, sqlite_file
from cronlapse.service.store.sql.version import LATEST
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
