"""SIGKILL at random moments under load, then restart: nothing acknowledged is lost, no run is
executed twice except the retry of an attempt whose result was never recorded (recorded lost: the
same key, the next attempt), and a restart answers every GET exactly as before the kill."""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx
import pytest

from cronlapse.service.store import open_store
from tests.service.conftest import BACKENDS, Server
from tests.waiting import wait_until

ROUNDS = 3
WRITERS = 3
WORKERS = 2
RECORD = (
    'printf "%s %s %s %s %s\\n" "$CRONLAPSE_JOB_ID" "$CRONLAPSE_SCHEDULED" "$CRONLAPSE_ATTEMPT" '
    '"$CRONLAPSE_IDEMPOTENCY_KEY" "$PPID" >> runs.txt'
)
"""The executor: one line per execution (a short append is atomic), by a shell that starts fast.
The last field is the pid of the process that ran it (the server, or a worker process), so that
an attempt run twice names who ran it each time."""
pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("backend", BACKENDS, indirect=True)]


def _config(directory: Path) -> str:
    argv = ["/bin/sh", "-c", RECORD.replace("runs.txt", str(directory / "runs.txt"))]
    return (
        f"workers: {WORKERS}\nsnapshot_every: 25\nexecutors:\n  record:\n"
        f"    argv: {json.dumps(argv)}\n"
    )


def _executions(directory: Path) -> list[dict]:
    path = directory / "runs.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    fields = ("job", "scheduled", "attempt", "key", "by")
    return [dict(zip(fields, line.split(" "), strict=True)) for line in lines]


def _load(server: Server, prefix: str, acknowledged: list[str], stop: threading.Event) -> None:
    """Post jobs until the server dies; keep the ids it acknowledged."""
    with server.client() as client:
        number = 0
        while not stop.is_set():
            job_id = f"{prefix}-{number}"
            number += 1
            try:
                answer = client.post("/job", json={"id": job_id, "run": "record"})
            except httpx.HTTPError:
                return
            if answer.status_code == 201:
                acknowledged.append(job_id)


def _all_answers(client: httpx.Client) -> dict:
    """Every GET the API offers, over every job."""
    jobs, cursor = [], None
    while True:
        page = client.get("/jobs", params={} if cursor is None else {"cursor": cursor}).json()
        jobs += page["jobs"]
        cursor = page["next"]
        if cursor is None:
            break
    return {
        "jobs": jobs,
        "each": {job["id"]: client.get(f"/job/{job['id']}").json() for job in jobs},
        "runs": {job["id"]: client.get(f"/job/{job['id']}/runs").json() for job in jobs},
        "workers": client.get("/workers").json(),
        "health": client.get("/health").json(),
    }


def _settled(client: httpx.Client, expected: int) -> dict:
    """Every GET's answer, once ``expected`` jobs or more have all succeeded."""
    seen: list[set[str]] = []

    def succeeded() -> dict | None:
        answers = _all_answers(client)
        seen.append({job["status"] for job in answers["jobs"]})
        done = len(answers["jobs"]) >= expected and seen[-1] == {"succeeded"}
        return answers if done else None

    return wait_until(succeeded, f"{expected} jobs to succeed", context=lambda: seen[-1])


def _wait_for_orphans(directory: Path) -> None:
    """Until no executor of a killed process is still running. A SIGKILL leaves the executors
    the process started running (each in a session of its own), and each appends its line to
    runs.txt when it ends: they are found by their command line, which names that file."""
    command = str(directory / "runs.txt").encode()
    wait_until(lambda: not _running(command), "the killed processes' executors to end")


def _running(command: bytes) -> list[str]:
    """The processes whose command line contains ``command`` (Linux's /proc)."""
    found = []
    for process in Path("/proc").iterdir():
        try:
            if process.name.isdigit() and command in (process / "cmdline").read_bytes():
                found.append(process.name)
        except OSError:  # ended meanwhile
            continue
    return found


def test_sigkill_under_load_loses_nothing_and_runs_nothing_twice(
    make_server, tmp_path: Path
) -> None:
    chooser = random.Random(20261201)
    server: Server = make_server(config=_config(tmp_path))
    acknowledged: list[str] = []
    for round_number in range(ROUNDS):
        stop = threading.Event()
        writers = [
            threading.Thread(
                target=_load, args=(server, f"r{round_number}w{w}", acknowledged, stop)
            )
            for w in range(WRITERS)
        ]
        for writer in writers:
            writer.start()
        # Kill mid-load: once this round has had its share of answers (a loaded machine answers
        # slowly, and a kill before any answer tests nothing), then at a random moment.
        floor = 5 * (round_number + 1)
        wait_until(lambda floor=floor: len(acknowledged) >= floor, f"{floor} answers")
        time.sleep(chooser.uniform(0.0, 0.8))  # the scenario: a kill at a random moment
        server.kill()
        stop.set()
        for writer in writers:
            writer.join()  # each request ends within the client's timeout
        server.start()

    with server.client() as client:
        before = _settled(client, len(acknowledged))
        known = {job["id"] for job in before["jobs"]}
        assert set(acknowledged) <= known, "an acknowledged job was lost"
        assert len(acknowledged) >= 5 * ROUNDS, "too little load to mean anything"

    _wait_for_orphans(tmp_path)
    executions: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for record in _executions(tmp_path):
        executions[(record["job"], record["scheduled"])].append(record)
    assert {job_id for job_id, _ in executions} == known, "every job ran"
    repeated = 0
    for runs in executions.values():
        assert len({run["key"] for run in runs}) == 1, runs
        assert len({run["attempt"] for run in runs}) == len(runs), "a retry is a new attempt"
        repeated += len(runs) - 1
    assert repeated <= ROUNDS * WORKERS, "only attempts running at a kill may run again"

    server.kill()
    server.start()
    with server.client() as client:
        assert _all_answers(client) == before, "the restart answers differently"


def test_a_clean_stop_writes_a_snapshot_of_everything(make_server) -> None:
    server: Server = make_server()
    with server.client() as client:
        for number in range(5):
            client.post("/job", json={"id": f"j{number}", "every": 3600, "first": "+600"})
        before = _all_answers(client)
    assert server.stop() == 0  # SIGTERM: a clean shutdown
    store = open_store(server.db_url)
    saved, last = store.journal.latest_snapshot(), store.journal.last_seq()
    store.close()
    assert last >= 7, "2 worker registrations and 5 jobs"
    assert saved is not None and saved.seq == last, "the snapshot covers the whole journal"
    server.start()
    with server.client() as client:
        assert _all_answers(client) == before


def _stops_cleanly(server: Server, sig: signal.Signals = signal.SIGTERM) -> None:
    """SIGTERM (or Ctrl-C's SIGINT) ends the server as a clean stop does: its snapshot, no
    traceback, exit status 0 (uvicorn shut down, then died of the SIGTERM it had caught: -15,
    which a supervisor counts as a failure)."""
    status = server.stop(sig)
    output = server.output()
    assert status == 0, f"exit status {status}:\n{output}"
    assert "Traceback" not in output and "shutdown failed" not in output, output
    store = open_store(server.db_url)
    saved, last = store.journal.latest_snapshot(), store.journal.last_seq()
    store.close()
    assert saved is not None and saved.seq == last, "the snapshot covers the whole journal"


@pytest.mark.parametrize("snapshot_every", [10000, 1])
def test_a_clean_stop_with_no_input_since_the_last_snapshot_stops_cleanly(
    make_server, snapshot_every: int
) -> None:
    """The snapshot at the journal's last row is already stored (the previous stop's, or the
    one the last input's ``snapshot_every`` started): a snapshot is the state at its row, so
    the stop keeps it rather than failing on a second one (``UNIQUE constraint failed:
    snapshots.seq`` and ``Application shutdown failed`` before)."""
    server: Server = make_server(config=f"workers: 2\nsnapshot_every: {snapshot_every}\n")
    with server.client() as client:
        assert (
            client.post("/job", json={"id": "a", "every": 3600, "first": "+600"}).status_code == 201
        )
        before = client.get("/job/a").json()
    _stops_cleanly(server)
    server.start()  # a restart with nothing new to journal, stopped
    with server.client() as client:
        assert client.get("/job/a").json() == before
    _stops_cleanly(server)
    server.start()
    with server.client() as client:  # and the snapshots go on once inputs come in
        assert client.put("/job/a", json={"priority": "high"}).status_code == 204
    _stops_cleanly(server)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_cleanly_with_status_0(make_server, sig: signal.Signals) -> None:
    """The stop a supervisor (SIGTERM) or a terminal (Ctrl-C) asks for is a success: the input
    journaled, the snapshot written, status 0, and the next start answers as before."""
    server: Server = make_server()
    with server.client() as client:
        body = {"id": "kept", "every": 3600, "first": "+600"}
        assert client.post("/job", json=body).status_code == 201
        before = _all_answers(client)
    _stops_cleanly(server, sig)
    assert "interrupted" not in server.output()
    server.start()
    with server.client() as client:
        assert _all_answers(client) == before


def test_a_stop_whose_shutdown_fails_is_not_a_success(make_server) -> None:
    """Status 0 says the shutdown went well, so one that failed (the snapshot's table is gone
    under the server) is status 1, said in a line after uvicorn's own report: uvicorn returns
    after a failed shutdown as after a clean one. Every answered input is in the journal."""
    server: Server = make_server()
    with server.client() as client:
        body = {"id": "a", "every": 3600, "first": "+600"}
        assert client.post("/job", json=body).status_code == 201
    store = open_store(server.db_url)  # the SQL store's engine, to break its table under it
    try:
        with store.db.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE snapshots RENAME TO snapshots_gone")
    finally:
        store.close()
    status = server.stop()
    output = server.output()
    assert status == 1, f"exit status {status}:\n{output}"
    assert "cronlapse serve: the shutdown failed" in output
