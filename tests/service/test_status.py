"""``cronlapse status --db URL``: jobs by status word, workers, outbox, oldest waiting run and the
journal's size, read without writing, while a server runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cronlapse.cli.main import main
from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.status import read_status
from engine.model.records import OccurrenceState
from tests.service.conftest import ROOT, Server
from tests.service.test_live import Wall, complete_running, open_live

NOTIFY = [{"on": ["succeeded"], "channel": "slack", "to": "#ops"}]


def test_status_counts_what_the_live_service_holds(tmp_path: Path) -> None:
    wall = Wall()
    live = open_live(tmp_path / "s.db", wall, workers=1)
    live.submit("schedule", {"id": "first", "notify": NOTIFY})
    live.submit("schedule", {"id": "second"})
    live.submit("schedule", {"id": "later", "at": "+3600"})
    live.submit("schedule", {"id": "gone", "at": "+7200"})
    live.submit("delete", {"job": "gone"})
    wall.now += 30
    live.advance_clock()
    live.store.close()

    status = read_status(f"sqlite:///{tmp_path / 's.db'}")
    assert status.jobs == {
        "created": 1,
        "scheduled": 1,
        "running": 1,
        "succeeded": 0,
        "failed": 0,
        "cancelled": 0,
    }
    assert status.deleted_jobs == 1
    assert [(w["id"], w["state"], w["running"]["job"]) for w in status.workers] == [
        ("w1", "busy", "first")
    ]
    assert status.oldest_waiting is not None
    assert (status.oldest_waiting.job, status.oldest_waiting.waited) == ("second", 0)
    assert status.journal.rows == 6  # register w1, four schedules and a delete; no clock row
    assert status.journal.bytes is not None and status.journal.bytes > 0

    live = open_live(tmp_path / "s.db", wall, workers=1)
    complete_running(live)
    live.store.close()
    status = read_status(f"sqlite:///{tmp_path / 's.db'}")
    assert status.outbox == {"queued": 1, "delivered": 0, "dead": 0}  # until its deliverer reports

    live = open_live(tmp_path / "s.db", wall, workers=1)
    for notice in due_notices(live).values():
        assert live.submit(DELIVERY, delivery_input(notice, True)).accepted
    live.snapshot()
    live.store.close()
    status = read_status(f"sqlite:///{tmp_path / 's.db'}")
    assert status.outbox == {"queued": 0, "delivered": 1, "dead": 0}
    assert status.outbox_by_channel == {"slack": {"queued": 0, "delivered": 1, "dead": 0}}
    assert status.jobs["succeeded"] == 1
    assert status.journal.snapshot_at == status.journal.rows


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


def test_the_text_form_names_each_section(tmp_path: Path, capsys) -> None:
    wall = Wall()
    live = open_live(tmp_path / "s.db", wall, workers=1)
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
