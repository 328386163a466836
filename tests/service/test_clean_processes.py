"""Executors are clean processes: they inherit no descriptor of the server's but their pipes, run
in a process group of their own, leave the server's port free when it dies, and are terminated
(SIGTERM to the group) when it stops; a restart stops those a killed server left running, and
records their attempts lost and retries them under the same idempotency key."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.conftest import BACKENDS, Server
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

EXECUTOR = """
import json, os, signal, subprocess, sys, time

directory = sys.argv[1]


def terminated(_signal, _frame):
    with open(os.path.join(directory, f"terminated-{os.getpid()}"), "w") as out:
        out.write("SIGTERM")
    sys.exit(143)


def is_open(fd):
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


signal.signal(signal.SIGTERM, terminated)
inherited = [fd for fd in range(3, 1024) if is_open(fd)]
child = subprocess.Popen(["sleep", "300"])
state = {
    "pid": os.getpid(),
    "group": os.getpgid(0),
    "session": os.getsid(0),
    "child": child.pid,
    "inherited": inherited,
    "stdin": os.readlink("/proc/self/fd/0"),
    "attempt": int(os.environ["CRONLAPSE_ATTEMPT"]),
    "key": os.environ["CRONLAPSE_IDEMPOTENCY_KEY"],
}
path = os.path.join(directory, f"state-{os.getpid()}.json")
with open(path + ".part", "w") as out:
    json.dump(state, out)
os.rename(path + ".part", path)
time.sleep(300)  # the scenario: a run that lasts until it is stopped
"""


@pytest.fixture
def executor_dir(tmp_path: Path) -> Iterator[Path]:
    """Where the executor writes what it saw; every executor started with it, and each child
    it recorded, is killed at the end with its process group (a server killed with SIGKILL
    leaves them behind). Tests ask for it before ``make_server``, so this runs after their
    servers are gone: a restarted server retries the orphan's attempt, and that executor may
    not have written its state yet."""
    directory = tmp_path / "executor"
    directory.mkdir()
    try:
        yield directory
    finally:
        recorded = [pid for state in states(directory) for pid in (state["pid"], state["child"])]
        for pid in recorded + _started_in(directory):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)


def _started_in(directory: Path) -> list[int]:
    """The processes whose command line names ``directory`` (the executors given it)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if str(directory).encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
    return found


def config(directory: Path) -> str:
    script = directory / "executor.py"
    script.write_text(EXECUTOR, encoding="utf-8")
    argv = [sys.executable, str(script), str(directory)]
    return f"workers: 1\nexecutors:\n  long:\n    argv: {json.dumps(argv)}\n"


def states(directory: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(directory.glob("state-*.json"))]


def started(server: Server, directory: Path) -> dict:
    """Post a job whose executor runs on; its state once it has started."""
    with server.client() as client:
        assert client.post("/job", json={"id": "long", "run": "long"}).status_code == 201
    (state,) = wait_until(
        lambda: states(directory), "the executor to start", context=server.both_outputs
    )
    return state


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no longer does: nobody may reap an orphan here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def test_an_executor_inherits_nothing_but_its_pipes_and_leads_its_own_group(
    executor_dir: Path, make_server
) -> None:
    server: Server = make_server(config=config(executor_dir))
    state = started(server, executor_dir)
    assert state["inherited"] == []
    assert state["stdin"].startswith("pipe:")
    assert state["group"] == state["session"] == state["pid"]


def test_a_restart_on_the_same_port_works_at_once_while_an_executor_runs(
    executor_dir: Path, make_server
) -> None:
    server: Server = make_server(config=config(executor_dir))
    state = started(server, executor_dir)
    server.kill()
    assert running(state["pid"])  # the orphan still runs, and must not hold the port
    server.start(port=server.port)
    assert server.healthy()


def test_sigterm_terminates_the_executors_process_group(executor_dir: Path, make_server) -> None:
    server: Server = make_server(config=config(executor_dir))
    state = started(server, executor_dir)
    assert server.stop() == 0
    assert (executor_dir / f"terminated-{state['pid']}").read_text() == "SIGTERM"
    wait_until(lambda: not running(state["child"]), "the executor's own child to be terminated")


def attempts(server: Server, job_id: str) -> list[dict]:
    with server.client() as client:
        (run,) = client.get(f"/job/{job_id}").json()["runs"]
    return run["attempts"]


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
@pytest.mark.parametrize("end", ["killed", "stopped"])
def test_a_restart_records_an_attempt_whose_executor_is_gone_lost_and_retries_it_under_its_key(
    executor_dir: Path, make_server, end: str
) -> None:
    server: Server = make_server(config=config(executor_dir))
    first = started(server, executor_dir)
    if end == "killed":
        server.kill()
    else:
        assert server.stop() == 0
    server.start(port=server.port)

    def retried() -> dict | None:
        later = [state for state in states(executor_dir) if state["pid"] != first["pid"]]
        return later[0] if later else None

    retry = wait_until(retried, "the attempt to be retried", context=server.both_outputs)
    assert (retry["attempt"], retry["key"]) == (2, first["key"])
    assert not running(first["pid"]) and not running(first["child"])
    assert (executor_dir / f"terminated-{first['pid']}").read_text() == "SIGTERM"
    assert [(a["attempt"], a["outcome"]) for a in attempts(server, "long")] == [
        (1, "lost"),
        (2, "running"),
    ]
    assert len(states(executor_dir)) == 2
