"""One server per SQLite database: a second refuses to start, naming the process that serves it.

Both used to start, both answered 201 to the same id and both ran the job. (On PostgreSQL the
scheduler election keeps one writer: a second ``--role scheduler`` stands by, test_roles.py.)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cronlapse.service.store import open_store
from tests.service.conftest import FROZEN, TOKEN, Server
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e


def journal_rows(url: str) -> int:
    store = open_store(url, existing=True)
    try:
        return len(list(store.journal.rows_after(0)))
    finally:
        store.close()


def test_a_second_server_on_one_sqlite_database_refuses_to_start_naming_the_first(
    make_server, tmp_path: Path
) -> None:
    first: Server = make_server()
    with first.client() as client:
        assert (
            client.post("/job", json={"id": "later", "every": 60, "first": "+600"}).status_code
            == 201
        )
    rows = journal_rows(first.db_url)
    directory = tmp_path / "second"
    directory.mkdir()
    second = Server(directory, "workers: 2\n", FROZEN, TOKEN, first.db_url)
    try:
        second.start(wait=False)
        assert second.process is not None
        try:
            status = second.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the second server started:\n{second.output()}") from None
        assert status == 2
        assert first.process is not None
        said = second.output()
        assert f"process {first.process.pid}" in said, said
        assert first.url in said, said
        assert "Traceback" not in said
        assert first.healthy()
        assert journal_rows(first.db_url) == rows, "the refused server wrote nothing"
        first.kill()
        second.start()  # the first one's death released the database
    finally:
        second.kill()
