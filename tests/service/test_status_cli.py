"""``cronlapse status --db URL`` on real databases: read without writing while a server runs, and
what it says when there is no database to read (what it counts: test_status.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cronlapse.cli.main import main
from cronlapse.service.status import read_status
from cronlapse.service.store import open_store
from engine.model.records import OccurrenceState
from tests.service.conftest import ROOT, Server
from tests.service.test_live import Wall, open_live


@pytest.mark.e2e
def test_status_reads_a_running_servers_database_without_writing(make_server) -> None:
    server: Server = make_server(config="workers: 2\n")
    with server.client() as client:
        for number in range(3):  # the clock stands still: nothing runs, nothing more is written
            job = {"id": f"j{number}", "at": "+3600"}
            assert client.post("/job", json=job).status_code == 201
    before = server.db.stat().st_mtime_ns, (server.db.parent / "cronlapse.db-wal").read_bytes()
    command = [sys.executable, "-m", "cronlapse", "status", "--db", f"sqlite:///{server.db}"]
    found = subprocess.run(
        [*command, "--json"], capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}
    )
    assert found.returncode == 0, found.stderr
    status = json.loads(found.stdout)
    assert sum(status["jobs"].values()) == 3
    assert [worker["id"] for worker in status["workers"]] == ["w1", "w2"]
    after = server.db.stat().st_mtime_ns, (server.db.parent / "cronlapse.db-wal").read_bytes()
    assert after == before
    with server.client() as client:  # the server goes on
        assert client.post("/job", json={"id": "j9", "at": "+3600"}).status_code == 201


def test_a_missing_database_is_one_line_and_is_not_created(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "none.db"
    assert main(["status", "--db", f"sqlite:///{missing}"]) == 2
    assert capsys.readouterr().err == f"cronlapse status: no database at {missing}\n"
    assert not missing.exists()


@pytest.mark.parametrize("command", [["status"], ["export", "--scenario", "-o", "-"]])
def test_a_database_that_cannot_be_read_is_named_without_its_password(
    command: list[str], capsys
) -> None:
    """Port 1 of this machine: nothing listens there, and nothing outside is contacted."""
    url = "postgresql://ops:secretpw@127.0.0.1:1/cronlapse"
    assert main([*command, "--db", url]) == 2
    err = capsys.readouterr().err
    assert "secretpw" not in err
    assert "postgresql://ops:***@127.0.0.1:1/cronlapse" in err


@pytest.mark.parametrize("command", [["status"], ["export", "--scenario", "-o", "-"]])
def test_a_database_cronlapse_does_not_run_on_is_refused_as_serve_refuses_it(
    command: list[str], capsys
) -> None:
    assert main([*command, "--db", "mysql://localhost/x"]) == 2
    err = capsys.readouterr().err
    assert "expected a sqlite:/// or postgresql:// URL" in err
    assert "internal error" not in err


@pytest.mark.e2e
def test_the_text_form_names_each_section(tmp_path: Path, capsys) -> None:
    wall = Wall()
    live = open_live(open_store(f"sqlite:///{tmp_path / 's.db'}"), wall, workers=1)
    live.submit("schedule", {"id": "a"})
    live.submit("schedule", {"id": "b"})
    assert live.engine.query.record_keys(OccurrenceState.RUNNING)
    live.store.close()
    assert main(["status", "--db", f"sqlite:///{tmp_path / 's.db'}"]) == 0
    text = capsys.readouterr().out
    assert "jobs      2: 0 created, 1 scheduled, 1 running," in text
    assert "  w1      busy        a@1970-01-12T13:46:40Z attempt 1" in text
    assert "waiting   oldest: b@1970-01-12T13:46:40Z, waiting 0 s" in text
    assert "journal   3 rows, " in text
    found = read_status(f"sqlite:///{tmp_path / 's.db'}")
    assert found.journal.bytes is not None and found.journal.bytes > 0
    assert f"journal   3 rows, {found.journal.bytes:,} bytes on disk; latest snapshot" in text
