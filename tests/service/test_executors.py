"""Real execution: an argv run without a shell, an HTTP POST, the reviewer's kill, retries."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from cronlapse.service.config import Executor
from cronlapse.service.executors import AttemptKey, Executors, Launch, idempotency_key
from tests.service.conftest import Server
from tests.waiting import until, wait_until

pytestmark = pytest.mark.e2e

RECORDER = """
import json, os, sys
attempt = int(os.environ["CRONLAPSE_ATTEMPT"])
with open(os.path.join(sys.argv[1], "runs.jsonl"), "a") as out:
    out.write(json.dumps({
        "job": os.environ["CRONLAPSE_JOB_ID"],
        "scheduled": os.environ["CRONLAPSE_SCHEDULED"],
        "attempt": attempt,
        "key": os.environ["CRONLAPSE_IDEMPOTENCY_KEY"],
        "stdin": sys.stdin.read(),
        "token": os.environ.get("CRONLAPSE_TOKEN"),
    }) + "\\n")
sys.exit(1 if attempt in json.loads(sys.argv[2]) else 0)
"""


def recorder_config(directory: Path, fail: list[int] = ()) -> str:  # type: ignore[assignment]
    script = directory / "recorder.py"
    script.write_text(RECORDER, encoding="utf-8")
    argv = [sys.executable, str(script), str(directory), json.dumps(list(fail))]
    return f"workers: 2\nexecutors:\n  record:\n    argv: {json.dumps(argv)}\n"


def wait_for(client: httpx.Client, job_id: str, predicate) -> dict:
    """The job, once ``predicate(job)`` holds."""
    looks: list[dict] = []

    def holds() -> dict | None:
        looks.append(client.get(f"/job/{job_id}").json())
        return looks[-1] if predicate(looks[-1]) else None

    return wait_until(holds, f"a change of {job_id}", context=lambda: looks[-1])


def records(directory: Path) -> list[dict]:
    path = directory / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_argv_executor_runs_with_the_payload_and_the_runs_identity(
    make_server, tmp_path: Path
) -> None:
    server: Server = make_server(config=recorder_config(tmp_path))
    with server.client() as client:
        client.post("/job", json={"id": "report", "payload": '{"to": "ops"}', "run": "record"})
        job = wait_for(client, "report", lambda job: job["status"] == "succeeded")
    (record,) = records(tmp_path)
    (run,) = job["runs"]
    assert record == {
        "job": "report",
        "scheduled": run["scheduled"],
        "attempt": 1,
        "key": idempotency_key("report", run["tick"]),
        "stdin": '{"to": "ops"}',
        "token": None,
    }


def test_a_failed_attempt_is_retried_with_the_same_idempotency_key(
    make_server, tmp_path: Path
) -> None:
    server: Server = make_server(config=recorder_config(tmp_path, fail=[1]), speed="50")
    with server.client() as client:
        client.post("/job", json={"id": "flaky", "run": "record", "max_retries": 2})
        job = wait_for(client, "flaky", lambda job: job["status"] == "succeeded")
    outcomes = [attempt["outcome"] for attempt in job["runs"][0]["attempts"]]
    assert outcomes == ["failed", "succeeded"]
    first, second = records(tmp_path)
    assert (first["attempt"], second["attempt"]) == (1, 2)
    assert first["key"] == second["key"]


def test_the_reviewer_kills_a_process_past_its_timeout(make_server, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    argv = [
        sys.executable,
        "-c",
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)",
    ]  # the scenario: a process that hangs past its timeout
    config = f"workers: 1\nexecutors:\n  hang:\n    argv: {json.dumps(argv)}\n"
    server: Server = make_server(config=config, speed="20")
    with server.client() as client:
        client.post("/job", json={"id": "stuck", "run": "hang", "timeout": 5})
        job = wait_for(client, "stuck", lambda job: job["status"] == "failed")
    assert [a["outcome"] for a in job["runs"][0]["attempts"]] == ["timed_out"]
    pid = int(pid_file.read_text())
    wait_until(lambda: not _alive(pid), "the timed-out process to be killed")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class _Receiver(http.server.BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[dict, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.received.append((dict(self.headers), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list]]:
    _Receiver.received = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/hook", _Receiver.received
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_an_http_executor_posts_the_payload_with_an_idempotency_key(make_server, receiver) -> None:
    url, received = receiver
    server: Server = make_server(config=f"executors:\n  hook:\n    url: {url}\n")
    with server.client() as client:
        client.post("/job", json={"id": "h", "run": "hook", "payload": '{"x": 1}'})
        job = wait_for(client, "h", lambda job: job["status"] == "succeeded")
    ((headers, body),) = received
    lowered = {name.lower(): value for name, value in headers.items()}
    assert lowered["idempotency-key"] == idempotency_key("h", job["runs"][0]["tick"])
    assert body == b'{"x": 1}'


def test_a_finished_attempt_is_not_started_again_while_its_report_waits() -> None:
    """Between an executor's end and the engine applying its report, other inputs are applied
    and the attempt is still RUNNING there: it must not run a second time."""

    async def scenario() -> list[AttemptKey]:
        reports: list[AttemptKey] = []
        executors = Executors(lambda key, ok: reports.append(key))
        key = AttemptKey("a", 10, 1)
        running = {key: Launch(key, Executor("noop"), None, "1970-01-01T00:00:10Z")}
        executors.sync(running)
        await until(lambda: reports, "the executor's report")
        executors.sync(running)  # another input applied before the report
        await asyncio.sleep(0.01)  # the scenario: time for a second run, were one started
        executors.sync({})  # the report applied: no longer running
        await executors.close()
        return reports

    assert asyncio.run(scenario()) == [AttemptKey("a", 10, 1)]


def test_delete_and_put_while_running_are_409_as_the_seed_says(make_server, tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]  # the scenario: it runs on
    server: Server = make_server(config=f"executors:\n  hang:\n    argv: {json.dumps(argv)}\n")
    with server.client() as client:
        client.post("/job", json={"id": "busy", "run": "hang", "every": 3600})
        wait_for(client, "busy", lambda job: job["status"] == "running")
        assert client.delete("/job/busy").status_code == 409
        assert client.put("/job/busy", json={"priority": "high"}).status_code == 409
        assert client.put("/job/busy", json={"cancel_next": True}).status_code == 409
        assert client.get("/job/busy").json()["status"] == "running"
