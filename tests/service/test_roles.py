"""``serve --role scheduler`` on PostgreSQL: one active scheduler, standbys that take over.

The processes are real (``cronlapse serve`` on loopback, a PostgreSQL server the suite starts),
and the active one is killed with SIGKILL mid-load, twice: each time the standby takes over,
nothing acknowledged is lost, nothing runs twice but an attempt cut short by the kill (same key,
same attempt), and the whole journal, replayed, satisfies the engine's invariants.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine import events as ev
from engine.invariants import violations
from service.clock import Anchor, LiveClock
from service.config import Config
from service.journal_store import Fenced, JournalStore
from service.live import LiveService
from service.roles.scheduler import Election
from tests.service.conftest import TOKEN, Server
from tests.service.test_durability import WORKERS, _config, _executions, _load

SCHEDULER = ("--role", "scheduler")
ROUNDS = 2


@pytest.fixture
def schedulers() -> Iterator:
    """``make(directory, config, url)``: a scheduler process (not started), killed at the end."""
    made: list[Server] = []

    def make(directory: Path, config: str, url: str) -> Server:
        directory.mkdir()
        made.append(Server(directory, config, "1", TOKEN, url, SCHEDULER))
        return made[-1]

    try:
        yield make
    finally:
        for server in made:
            server.kill()


def _wait_for(server: Server, text: str) -> None:
    deadline = time.monotonic() + 30
    while text not in server.output():
        assert server.process is not None and server.process.poll() is None, server.output()
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.05)


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
    store = JournalStore(url)
    live = LiveService(store, LiveClock(Anchor(0.0, 0, 1.0)), Config())
    live._consume_events = lambda: None  # type: ignore[method-assign]
    live.replay()
    store.close()
    return live


def test_a_standby_takes_over_from_a_killed_scheduler_losing_nothing(
    postgres, schedulers, tmp_path: Path
) -> None:
    url = postgres.database()
    config = _config(tmp_path)
    first = schedulers(tmp_path / "a", config, url)
    second = schedulers(tmp_path / "b", config, url)
    first.start()
    second.start(wait=False)
    _wait_for(second, "standby")
    with first.client() as client:
        for number in range(3):
            body = {"id": f"every-{number}", "every": 2, "run": "record"}
            assert client.post("/job", json=body).status_code == 201
    acknowledged: list[str] = []
    active, standby = first, second
    for r in range(ROUNDS):
        stop = threading.Event()
        writers = [
            threading.Thread(target=_load, args=(active, f"r{r}w{w}", acknowledged, stop))
            for w in range(2)
        ]
        for writer in writers:
            writer.start()
        time.sleep(1.0)
        active.kill()
        stop.set()
        for writer in writers:
            writer.join(timeout=30)
        standby.wait_healthy()
        assert "elected scheduler" in standby.output()
        active.start(wait=False)  # back as the standby
        _wait_for(active, "standby")
        active, standby = standby, active

    assert len(acknowledged) >= 10, "too little load to mean anything"
    deadline = time.monotonic() + 60
    while True:
        statuses = _statuses(active)
        assert set(acknowledged) <= set(statuses), "an acknowledged job was lost"
        if all(statuses[job_id] == "succeeded" for job_id in acknowledged):
            break
        assert time.monotonic() < deadline, statuses
        time.sleep(0.1)
    active.kill()
    standby.kill()
    time.sleep(0.5)  # let orphaned executors of the killed schedulers finish their lines

    runs: dict[tuple[str, str], set[tuple[str, str]]] = {}
    count: dict[tuple[str, str], int] = {}
    for record in _executions(tmp_path):
        run = (record["job"], record["scheduled"])
        runs.setdefault(run, set()).add((record["attempt"], record["key"]))
        count[run] = count.get(run, 0) + 1
    assert {job for job, _ in runs} >= set(acknowledged), "every acknowledged job ran"
    assert any(job.startswith("every-") for job, _ in runs), "the recurring jobs ran"
    assert all(len(attempts) == 1 for attempts in runs.values()), "one attempt, one key per run"
    repeated = sum(count.values()) - len(count)
    assert repeated <= ROUNDS * WORKERS, "only attempts running at a kill may run again"
    replayed = _replayed(url)
    assert set(acknowledged) <= set(replayed.engine.jobs)
    succeeded = [event for event in replayed.engine.log if isinstance(event, ev.AttemptSucceeded)]
    assert len(succeeded) > len(acknowledged), "the checker sees every run's events"
    assert violations(replayed.engine) == []


def test_a_scheduler_that_lost_the_lock_appends_nothing(postgres) -> None:
    url = postgres.database()
    old = Election(url)
    assert old.try_take()
    store = JournalStore(url, fence=old.pid)
    assert store.append(1, 2, "register", {"worker": "w1"}) == 1
    new = Election(url)
    assert not new.try_take(), "the lock is held"
    old.conn.close()  # as when the old scheduler's connection dies
    old.db.dispose()
    deadline = time.monotonic() + 10
    while not new.try_take():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with pytest.raises(Fenced):
        store.append(2, 2, "register", {"worker": "w2"})
    assert JournalStore(url, fence=new.pid).append(2, 2, "register", {"worker": "w2"}) == 2
    assert [row.args["worker"] for row in store.rows_after(0)] == ["w1", "w2"]
    store.close()


def test_a_standby_follows_the_journal_before_it_is_elected(postgres) -> None:
    url = postgres.database()
    holder = Election(url)
    assert holder.try_take()
    writer = JournalStore(url, fence=holder.pid)
    follower = LiveService(JournalStore(url), LiveClock(Anchor(0.0, 0, 1.0)), Config())
    waiting = Election(url)
    elected = threading.Event()

    def wait() -> None:
        waiting.wait(follower)
        elected.set()

    thread = threading.Thread(target=wait)
    thread.start()
    writer.append(5, 2, "register", {"worker": "w9"})
    deadline = time.monotonic() + 10
    while "w9" not in follower.engine.workers:
        assert time.monotonic() < deadline, "the standby did not apply the new row"
        time.sleep(0.05)
    assert not elected.is_set()
    holder.conn.close()
    holder.db.dispose()
    thread.join(timeout=10)
    assert elected.is_set() and follower.state.seq == 1


def test_the_scheduler_role_needs_postgresql(tmp_path: Path) -> None:
    server = Server(tmp_path, "workers: 1\n", "1", TOKEN, None, SCHEDULER)
    server.start(wait=False)
    assert server.process is not None
    assert server.process.wait(timeout=60) == 2
    assert "--role scheduler needs a postgresql:// database" in server.output()
    assert "Traceback" not in server.output()


def test_the_api_answers_on_the_active_scheduler_only(postgres, schedulers, tmp_path: Path) -> None:
    url = postgres.database()
    active = schedulers(tmp_path / "a", "workers: 1\n", url)
    standby = schedulers(tmp_path / "b", "workers: 1\n", url)
    active.start()
    standby.start(wait=False)
    _wait_for(standby, "standby")
    with pytest.raises(httpx.HTTPError):
        httpx.get(standby.url + "/health", timeout=1.0)
