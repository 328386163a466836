"""``serve --role scheduler`` on PostgreSQL: one active scheduler, standbys that take over.

The processes are real (``cronlapse serve`` on loopback, a PostgreSQL server the suite starts),
and the active one is killed with SIGKILL mid-load, twice: each time the standby takes over,
nothing acknowledged is lost, nothing runs twice but an attempt cut short by the kill (same key,
same attempt), and the whole journal, replayed, satisfies the engine's invariants.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import httpx
import psycopg
import pytest

from cronlapse.analyses.invariants import violations
from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService
from cronlapse.service.roles.scheduler import stand_by
from cronlapse.service.store import Assignment, Entry, Fenced, open_store
from engine.model import events as ev
from tests.service.conftest import ROOT, TOKEN, Server, free_port
from tests.service.role_processes import SCHEDULER, SLOTS, Processes
from tests.service.test_durability import _config, _executions, _load, _wait_for_orphans
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e


def _wait_for(server: Server, text: str) -> None:
    """Until ``server`` has said ``text`` on standard error (a server that exited fails)."""

    def said() -> bool:
        assert server.process is not None and server.process.poll() is None, server.output()
        return text in server.output()

    wait_until(said, f"the server to say {text!r}", context=server.output)


def _statuses(server: Server) -> dict[str, str]:
    statuses, cursor = {}, None
    with server.client() as client:
        while True:
            params = {"limit": 500} | ({} if cursor is None else {"cursor": cursor})
            page = client.get("/jobs", params=params).json()
            statuses |= {job["id"]: job["status"] for job in page["jobs"]}
            cursor = page["next"]
            if cursor is None:
                return statuses


def _replayed(url: str) -> LiveService:
    """The whole journal replayed from its first row, with every event kept for the invariant
    checker (the service itself drops them once read)."""
    store = open_store(url)
    live = LiveService(store, LiveClock(Anchor(0.0, 0, 1.0)), Config())
    live._consume_events = lambda: None  # type: ignore[method-assign]
    live.replay()
    store.close()
    return live


LOAD = 5
"""Answers the load must have had before a kill, and after it unless the kill stopped it: a
loaded machine answers slowly, and a kill before any answer tests nothing."""


def _kill_during_load(server: Server, prefix: str, acknowledged: list[str], kill) -> None:
    """Post jobs to ``server`` from two threads; ``kill()`` mid-load: once the load has had
    LOAD answers, then LOAD more, unless the kill stopped the writers (it killed ``server``)."""
    stop = threading.Event()
    writers = [
        threading.Thread(target=_load, args=(server, f"{prefix}w{w}", acknowledged, stop))
        for w in range(2)
    ]
    for writer in writers:
        writer.start()
    before = len(acknowledged)
    wait_until(lambda: len(acknowledged) >= before + LOAD, "the load to be under way")
    kill()
    killed = len(acknowledged)
    wait_until(
        lambda: len(acknowledged) >= killed + LOAD or not any(w.is_alive() for w in writers),
        "the load to go on after the kill, or to stop with the server",
    )
    stop.set()
    for writer in writers:
        writer.join()


def test_schedulers_and_workers_killed_mid_run_lose_nothing_and_run_nothing_twice(
    processes, tmp_path: Path
) -> None:
    """Two schedulers and three workers; SIGKILL the active scheduler, then a worker."""
    group: Processes = processes(_config(tmp_path))
    first, second = group.scheduler("a"), group.scheduler("b")
    first.start()
    second.start(wait=False)
    _wait_for(second, "standby")
    workers = [group.worker(f"worker{number}") for number in range(3)]
    for worker in workers:
        worker.wait_ready()
    with first.client() as client:
        for number in range(3):
            body = {"id": f"every-{number}", "every": 2, "run": "record"}
            assert client.post("/job", json=body).status_code == 201
    acknowledged: list[str] = []
    _kill_during_load(first, "a", acknowledged, first.kill)
    second.wait_healthy()  # how soon: benchmarks/scale_out.py --failover-only
    assert "elected scheduler" in second.output()
    assert second.stdout() == "", "its messages are diagnostics, on standard error"
    first.start(wait=False)  # back, as the standby
    _kill_during_load(second, "b", acknowledged, workers[0].kill)

    assert len(acknowledged) >= 10, "too little load to mean anything"
    _wait_until_done(second, acknowledged, killed_worker="worker0")
    for process in group.made:
        process.kill()
    _wait_for_orphans(tmp_path)
    _check_each_run_ran_once_but_the_killed_workers(tmp_path, acknowledged, group)
    replayed = _replayed(group.url)
    assert set(acknowledged) <= set(replayed.engine.query.jobs())
    succeeded = [event for event in replayed.engine.log if isinstance(event, ev.AttemptSucceeded)]
    assert len(succeeded) >= len(acknowledged), "the checker sees every run's events"
    assert violations(replayed.engine) == []


def _wait_until_done(
    server: Server, acknowledged: list[str], killed_worker: str, also: Sequence[str] = ()
) -> None:
    """Until every acknowledged job succeeded and exactly the killed worker's slots are down;
    meanwhile every acknowledged job, and each of ``also``, exists at every look."""
    lost = {f"{killed_worker}/{number}" for number in range(1, SLOTS + 1)}

    def done() -> bool:
        statuses = _statuses(server)
        assert set(acknowledged) <= set(statuses), "an acknowledged job was lost"
        assert set(also) <= set(statuses), "a job created before the kills was lost"
        with server.client() as client:
            slots = client.get("/workers").json()["workers"]
        down = {slot["id"] for slot in slots if slot["state"] == "down"}
        return all(statuses[job] == "succeeded" for job in acknowledged) and down == lost

    # every run of a heavy load, after kills: longer than one thing takes
    wait_until(done, "every acknowledged job to succeed", timeout=2 * PATIENCE)


def _check_each_run_ran_once_but_the_killed_workers(
    directory: Path, acknowledged: list[str], group: Processes
) -> None:
    """Every acknowledged job and the recurring ones ran; an acknowledged job (a one-off, due
    at once) had one run; a run ran twice only if the killed worker ran it (at most its slots),
    and then under the same key, as a retry. A failure shows the executions concerned with the
    worker process that ran each."""
    executions: dict[tuple[str, str], list[dict]] = {}
    names = group.names()
    for record in _executions(directory):
        record["by"] = names.get(record["by"], f"pid {record['by']}")
        executions.setdefault((record["job"], record["scheduled"]), []).append(record)
    assert {job for job, _ in executions} >= set(acknowledged), "every acknowledged job ran"
    assert any(job.startswith("every-") for job, _ in executions), "the recurring jobs ran"
    one_off = set(acknowledged)
    runs = Counter(job for job, _ in executions if job in one_off)
    again = {run: records for run, records in executions.items() if runs[run[0]] > 1}
    assert not again, f"a one-off job ran as two runs: {again}"
    repeated = {run: records for run, records in executions.items() if len(records) > 1}
    assert len(repeated) <= SLOTS, (
        f"only the attempts the killed worker ran may run again: {repeated}"
    )
    for records in repeated.values():
        assert len({record["key"] for record in records}) == 1, f"under the same key: {records}"
        assert len({record["attempt"] for record in records}) == len(records), (
            f"as a retry: {records}"
        )


SLOW = (
    'echo "$CRONLAPSE_ATTEMPT $CRONLAPSE_IDEMPOTENCY_KEY $$" >> DIR/slow.txt; '
    'if [ "$CRONLAPSE_ATTEMPT" = 1 ]; then sleep 120; fi'
)
"""An executor whose first attempt hangs (until the test kills it), the next one succeeds."""


def test_a_dead_workers_attempt_is_lost_and_retried_elsewhere_under_its_key(
    processes, tmp_path: Path
) -> None:
    argv = ["/bin/sh", "-c", SLOW.replace("DIR", str(tmp_path))]
    group: Processes = processes(f"workers: 1\nexecutors:\n  slow:\n    argv: {json.dumps(argv)}\n")
    scheduler = group.scheduler("a")
    scheduler.start()
    first = group.worker("first")
    first.wait_ready()
    lines = tmp_path / "slow.txt"
    try:
        with scheduler.client() as client:
            assert client.post("/job", json={"id": "slow", "run": "slow"}).status_code == 201
            wait_until(lambda: _lines(lines) == 1, "the first attempt to start")
            group.worker("second").wait_ready()
            first.kill()
            wait_until(lambda: _status(client, "slow") == "succeeded", "the retry to succeed")
            attempts = client.get("/job/slow").json()["runs"][0]["attempts"]
    finally:
        for line in lines.read_text().splitlines():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(line.split()[2]), signal.SIGKILL)
    assert [(a["attempt"], a["worker"], a["outcome"]) for a in attempts] == [
        (1, "first/1", "lost"),
        (2, "second/1", "succeeded"),
    ]
    executed = [line.split()[:2] for line in lines.read_text().splitlines()]
    assert [attempt for attempt, _ in executed] == ["1", "2"]
    assert executed[0][1] == executed[1][1], "both attempts carry the run's idempotency key"


def test_a_worker_kills_the_attempt_the_engine_took_back(processes, tmp_path: Path) -> None:
    argv = ["/bin/sh", "-c", SLOW.replace("DIR", str(tmp_path))]
    group: Processes = processes(f"workers: 1\nexecutors:\n  slow:\n    argv: {json.dumps(argv)}\n")
    scheduler = group.scheduler("a")
    scheduler.start()
    group.worker("only").wait_ready()
    lines = tmp_path / "slow.txt"
    with scheduler.client() as client:
        body = {"id": "hang", "run": "slow", "timeout": 2}
        assert client.post("/job", json=body).status_code == 201
        wait_until(lambda: _lines(lines) == 1, "the attempt to start")
        pid = int(lines.read_text().split()[2])
        wait_until(lambda: _status(client, "hang") == "failed", "the attempt to time out")
        attempts = client.get("/job/hang").json()["runs"][0]["attempts"]
    assert [(a["attempt"], a["outcome"]) for a in attempts] == [(1, "timed_out")]
    wait_until(lambda: not _alive(pid), "the worker to kill the attempt's process")


def test_rounds_go_on_after_the_listening_connections_are_cut(processes, tmp_path: Path) -> None:
    """A restarted database or a proxy dropping idle connections cuts every LISTEN: the
    scheduler's dispatcher and the workers reconnect rather than stop handing out runs."""
    group: Processes = processes(_config(tmp_path))
    scheduler = group.scheduler("a")
    scheduler.start()
    group.worker("only").wait_ready()
    ran = lambda job: any(record["job"] == job for record in _executions(tmp_path))  # noqa: E731
    with scheduler.client() as client:
        assert client.post("/job", json={"id": "before", "run": "record"}).status_code == 201
        wait_until(lambda: ran("before"), "the run before the cut")
        with psycopg.connect(group.url, autocommit=True) as conn:
            cut = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN %'"
            ).fetchall()
        assert len(cut) >= 2, "the dispatcher's and the worker's listening connections"
        assert client.post("/job", json={"id": "after", "run": "record"}).status_code == 201
        wait_until(lambda: _status(client, "after") == "succeeded", "the run after the cut")
        assert ran("after")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def _status(client: httpx.Client, job: str) -> str:
    return client.get(f"/job/{job}").json()["status"]


def test_a_scheduler_that_lost_the_lock_appends_nothing(postgres) -> None:
    url = postgres.database()
    store = open_store(url)
    old = store.election()
    assert old.try_take()
    store.journal.fence_with(old)
    assert store.journal.append([Entry(1, 2, "register", {"worker": "w1"})]) == [1]
    new = store.election()
    assert not new.try_take(), "the lock is held"
    old.close()  # as when the old scheduler's connection dies
    wait_until(new.try_take, "the lock to be free for the new scheduler")
    with pytest.raises(Fenced):
        store.journal.append([Entry(2, 2, "register", {"worker": "w2"})])
    successor = open_store(url)
    successor.journal.fence_with(new)
    assert successor.journal.append([Entry(2, 2, "register", {"worker": "w2"})]) == [2]
    assert [row.args["worker"] for row in store.journal.rows_after(0)] == ["w1", "w2"]
    successor.close()
    new.close()
    store.close()


def test_a_scheduler_whose_session_was_killed_leaves_the_dispatch_table_alone(postgres) -> None:
    """The scheduler's process lives on after its election connection is killed (a proxy cut,
    ``pg_terminate_backend``): its next dispatch round must not delete the row its successor
    assigned, which a worker would then run again under the same attempt number."""
    url = postgres.database()
    old_store, new_store = open_store(url), open_store(url)
    old, new = old_store.election(), new_store.election()
    assert old.try_take()
    old_store.dispatch.fence_with(old)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (old.session,))
    wait_until(new.try_take, "the lock released by the killed session")
    new_store.dispatch.fence_with(new)
    ran = Assignment("a", 100, 1, "p1/1", "noop", None, "2026-12-01T00:00:00Z")
    new_store.dispatch.assign({ran.key: ran})
    with pytest.raises(Fenced):
        old_store.dispatch.assign({})
    new_store.workers.register("p1", 1)
    assert new_store.workers.exchange("p1", ["p1/1"], {}, False) == [ran], "its row is there"
    for election in (old, new):
        election.close()
    for store in (old_store, new_store):
        store.close()


def test_a_standby_follows_the_journal_before_it_is_elected(postgres) -> None:
    url = postgres.database()
    writer = open_store(url)
    holder = writer.election()
    assert holder.try_take()
    writer.journal.fence_with(holder)
    follower = LiveService(open_store(url), LiveClock(Anchor(0.0, 0, 1.0)), Config())
    waiting = follower.store.election()
    elected = threading.Event()

    def wait() -> None:
        stand_by(waiting, follower)
        elected.set()

    thread = threading.Thread(target=wait)
    thread.start()
    writer.journal.append([Entry(5, 2, "register", {"worker": "w9"})])
    wait_until(lambda: "w9" in follower.engine.query.workers(), "the standby to apply the new row")
    assert not elected.is_set()
    holder.close()
    wait_until(elected.is_set, "the standby to be elected")
    thread.join()
    assert follower.state.seq == 1
    waiting.close()
    follower.store.close()
    writer.close()


def test_the_scheduler_role_needs_postgresql(tmp_path: Path) -> None:
    server = Server(tmp_path, "workers: 1\n", "1", TOKEN, None, SCHEDULER)
    server.start(wait=False)
    assert server.process is not None
    assert server.process.wait(timeout=PATIENCE) == 2
    assert "--role scheduler needs a postgresql:// database" in server.output()
    assert "Traceback" not in server.output()


def test_a_worker_needs_postgresql_and_says_so(tmp_path: Path) -> None:
    for url, message in (
        (f"sqlite:///{tmp_path}/x.db", "cronlapse worker needs a postgresql:// database"),
        (f"postgresql://u:hunter2@127.0.0.1:{free_port()}/x", "cannot reach the database"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "cronlapse", "worker", "--db", url],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            timeout=PATIENCE,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"cronlapse worker: {message}"), result.stderr
        assert "Traceback" not in result.stderr and "hunter2" not in result.stderr


def test_the_api_answers_on_the_active_scheduler_only(processes) -> None:
    group: Processes = processes("workers: 1\n")
    active, standby = group.scheduler("a"), group.scheduler("b")
    active.start()
    standby.start(wait=False)
    _wait_for(standby, "standby")
    with pytest.raises(httpx.HTTPError):
        httpx.get(standby.url + "/health", timeout=1.0)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_standby_stops_cleanly_on_a_signal(processes, sig: signal.Signals) -> None:
    """A standby holds no lock and has journaled nothing: SIGTERM from a supervisor or Ctrl-C
    is a clean stop (status 0, said on standard error), not a death by the signal (-15) nor
    an interruption (130); the active scheduler goes on."""
    group: Processes = processes("workers: 1\n")
    active, standby = group.scheduler("a"), group.scheduler("b")
    active.start()
    standby.start(wait=False)
    _wait_for(standby, "standby")
    status = standby.stop(sig)
    output = standby.output()
    assert status == 0, f"exit status {status}:\n{output}"
    assert "stopped while standing by" in output and "nothing to flush" in output, output
    assert "interrupted" not in output and "Traceback" not in output, output
    assert "elected scheduler" not in output, output
    assert standby.stdout() == ""
    with active.client() as client:
        assert client.get("/health").status_code == 200


HELD = (
    'echo "$CRONLAPSE_JOB_ID $CRONLAPSE_ATTEMPT" >> DIR/held.txt; '
    "while [ ! -e DIR/release ]; do sleep 0.05; done"
)
"""An executor that runs until the test creates ``release``."""


def test_a_stopped_worker_finishes_its_runs_takes_no_more_and_exits_0(
    processes, tmp_path: Path
) -> None:
    """SIGTERM asks a worker to stop: the scheduler drains its slots (no run is assigned to
    them any more, so none is lost and retried), the attempt it is running finishes and is
    credited to it, once, and then it exits with status 0."""
    held = ["/bin/sh", "-c", HELD.replace("DIR", str(tmp_path))]
    config = _config(tmp_path) + f"  held:\n    argv: {json.dumps(held)}\n"
    group: Processes = processes(config)
    scheduler = group.scheduler("a")
    scheduler.start()
    stopped = group.worker("stopped")
    stopped.wait_ready()
    lines = tmp_path / "held.txt"
    with scheduler.client() as client:
        slots = lambda: {s["id"]: s["state"] for s in client.get("/workers").json()["workers"]}  # noqa: E731
        assert client.post("/job", json={"id": "held", "run": "held"}).status_code == 201
        wait_until(lambda: lines.exists() and lines.read_text() == "held 1\n", "the held run")
        stopped.signal(signal.SIGTERM)
        draining = {"stopped/1": "draining", "stopped/2": "down"}
        wait_until(lambda: slots() == draining, "the stopped worker's slots to drain")
        assert stopped.process is not None and stopped.process.poll() is None, "it drains"
        assert client.post("/job", json={"id": "after", "run": "record"}).status_code == 201
        group.worker("other").wait_ready()
        wait_until(lambda: _status(client, "after") == "succeeded", "the run on the other worker")
        assert client.get("/job/held").json()["status"] == "running"
        (tmp_path / "release").touch()
        status = stopped.wait()
        wait_until(lambda: _status(client, "held") == "succeeded", "the held run to succeed")
        held_attempts = client.get("/job/held").json()["runs"][0]["attempts"]
        after_attempts = client.get("/job/after").json()["runs"][0]["attempts"]
        assert slots()["stopped/1"] == "down" and slots()["stopped/2"] == "down"
    log = stopped.log.read_text()
    assert status == 0, f"exit status {status}:\n{log}"
    assert "stopping" in log and "Traceback" not in log, log
    assert stopped.stdout.read_text() == ""
    assert lines.read_text() == "held 1\n", "the held run ran once"
    assert [(a["attempt"], a["worker"], a["outcome"]) for a in held_attempts] == [
        (1, "stopped/1", "succeeded")
    ]
    assert [(a["attempt"], a["worker"], a["outcome"]) for a in after_attempts] == [
        (1, "other/1", "succeeded")
    ], "no run was assigned to the stopping worker and lost"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_an_idle_worker_stops_at_once_with_status_0(
    processes, tmp_path: Path, sig: signal.Signals
) -> None:
    """With nothing running, a stop hands the slots back at once: they are down without the
    scheduler waiting out the heartbeat, and the process exits 0 (Ctrl-C included)."""
    group: Processes = processes(_config(tmp_path))
    scheduler = group.scheduler("a")
    scheduler.start()
    idle = group.worker("idle")
    idle.wait_ready()
    with scheduler.client() as client:
        workers = lambda: client.get("/workers").json()["workers"]  # noqa: E731
        wait_until(lambda: len(workers()) == SLOTS, "the worker's slots")
        idle.signal(sig)
        status = idle.wait()
        log = idle.log.read_text()
        assert status == 0, f"exit status {status}:\n{log}"
        assert "Traceback" not in log and "interrupted" not in log, log
        states = lambda: {s["state"] for s in client.get("/workers").json()["workers"]}  # noqa: E731
        wait_until(lambda: states() == {"down"}, "the slots handed back")
    assert "stopped heartbeating" not in scheduler.output(), "handed back, not taken for dead"
