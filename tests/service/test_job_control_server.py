"""The API people expect, over real HTTP (issue 36, item 7): pause and resume a job, change or
delete it after its running run (``202``, applied when the run ends) instead of retrying 409s,
and each job's last success and failure in ``GET /job/{id}`` and ``/metrics``."""

from __future__ import annotations

import json
import sys

import httpx
import pytest

from tests.service.conftest import Server
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

GATE = [
    sys.executable,
    "-c",
    "import os, time\nwhile not os.path.exists('release'): time.sleep(0.02)",
]
"""An executor that runs until the test creates ``release`` in the server's directory."""
CONFIG = f"workers: 1\nexecutors:\n  gate:\n    argv: {json.dumps(GATE)}\n"


def status(client: httpx.Client, job_id: str) -> str | None:
    answer = client.get(f"/job/{job_id}")
    return answer.json()["status"] if answer.status_code == 200 else None


def test_pause_and_resume(make_server) -> None:
    server: Server = make_server(config="workers: 1\n")
    with server.client() as client:
        client.post("/job", json={"id": "etl", "every": 3600, "first": "+600"})
        assert client.post("/job/etl/pause").status_code == 204
        assert client.get("/job/etl").json()["paused"] is True
        again = client.post("/job/etl/pause")
        assert (again.status_code, again.json()["message"]) == (409, "etl is already paused")
        assert client.post("/job/etl/resume").status_code == 204
        assert client.get("/job/etl").json()["paused"] is False
        assert client.post("/job/etl/resume").status_code == 409
        assert client.post("/job/missing/pause").status_code == 404


def test_delete_after_the_run_answers_202_and_deletes_when_it_ends(make_server) -> None:
    server: Server = make_server(config=CONFIG)
    with server.client() as client:
        client.post("/job", json={"id": "etl", "every": 3600, "run": "gate"})
        wait_until(lambda: status(client, "etl") == "running", "the run to start")
        assert client.delete("/job/etl").status_code == 409, "without after_run: the seed's 409"
        amended = client.put("/job/etl?after_run=true", json={"priority": "high"})
        assert amended.status_code == 202
        assert amended.json()["message"] == (
            "a run of etl is running: the change applies once it ends"
        )
        deleted = client.delete("/job/etl?after_run=true")
        assert (deleted.status_code, client.get("/job/etl").json()["paused"]) == (202, True)
        assert client.get("/job/etl").json()["priority"] == "low"
        (server.directory / "release").touch()
        wait_until(
            lambda: status(client, "etl") is None,
            "the deletion, once the run ended",
            context=lambda: server.output() + json.dumps(client.get("/job/etl").json()),
        )
        assert client.delete("/job/etl?after_run=maybe").status_code == 404
    server.kill()
    server.start()
    with server.client() as client:
        assert client.get("/job/etl").status_code == 404


def test_after_run_on_a_job_that_is_not_running_applies_at_once(make_server) -> None:
    server: Server = make_server(config="workers: 1\n")
    with server.client() as client:
        client.post("/job", json={"id": "etl", "every": 3600, "first": "+600"})
        wrong = client.put("/job/etl?after_run=soon", json={"priority": "high"})
        assert (wrong.status_code, wrong.json()["errors"][0]["path"]) == (422, "after_run")
        in_body = client.put("/job/etl", json={"priority": "high", "after_run": True})
        assert (in_body.status_code, in_body.json()["errors"][0]["path"]) == (422, "after_run")
        assert client.put("/job/etl?after_run=true", json={"priority": "high"}).status_code == 204
        assert client.get("/job/etl").json()["priority"] == "high"
        assert client.delete("/job/etl?after_run=true").status_code == 204


def test_last_success_and_failure_in_the_job_and_the_metrics(make_server) -> None:
    fail = [sys.executable, "-c", "raise SystemExit(1)"]
    config = f"workers: 1\nexecutors:\n  fail:\n    argv: {json.dumps(fail)}\n"
    server: Server = make_server(config=config)
    with server.client() as client:
        client.post("/job", json={"id": "good"})
        client.post("/job", json={"id": "bad", "run": "fail"})
        wait_until(lambda: status(client, "good") == "succeeded", "the good run")
        wait_until(lambda: status(client, "bad") == "failed", "the bad run")
        good, bad = client.get("/job/good").json(), client.get("/job/bad").json()
        assert good["last_success"] == good["runs"][0]["attempts"][0]["ended"]
        assert (good["last_failure"], bad["last_success"]) == (None, None)
        assert bad["last_failure"] == bad["runs"][0]["attempts"][0]["ended"]
        metrics = client.get("/metrics").text
        assert 'cronlapse_job_last_success_timestamp_seconds{job="good"} ' in metrics
        assert 'cronlapse_job_last_failure_timestamp_seconds{job="bad"} ' in metrics


def test_cancel_next_on_a_job_with_no_next_run_is_a_conflict_not_a_missing_job(
    make_server,
) -> None:
    """404 says the job does not exist (the document's word); a job that exists but has no run
    to cancel is in a state that refuses the change: 409."""
    server: Server = make_server(config="workers: 1\n")
    with server.client() as client:
        client.post("/job", json={"id": "once"})
        wait_until(lambda: status(client, "once") == "succeeded", "the one run")
        answer = client.put("/job/once", json={"cancel_next": True})
        assert answer.status_code == 409, answer.text
        assert client.put("/job/missing", json={"cancel_next": True}).status_code == 404
