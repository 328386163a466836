"""Structured logs from a real server: to standard error or its log file, and its own messages
nowhere but standard error (what the lines say: test_logs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.waiting import wait_until

pytestmark = pytest.mark.e2e


def test_the_server_writes_them_to_stderr_or_its_log_file(make_server, tmp_path: Path) -> None:
    server = make_server()
    with server.client() as client:
        assert client.post("/job", json={"id": "now"}).status_code == 201
    logged = server.directory / "structured.log"
    other = make_server(options=("--log-file", str(logged)))
    with other.client() as client:
        assert client.post("/job", json={"id": "now"}).status_code == 201
        assert client.put("/job/now", json={"priority": "high"}).status_code in (204, 409)
    logs = lambda: (server.output(), logged.read_text())  # noqa: E731
    succeeded = lambda: all("run.succeeded" in log for log in logs())  # noqa: E731
    wait_until(succeeded, "a run to succeed on each server", context=server.output)
    from_stderr = [json.loads(line) for line in server.output().splitlines() if line[:1] == "{"]
    events = [line["event"] for line in from_stderr]
    assert events[:2] == ["worker.registered"] * 2, "its start registers its two slots"
    assert events[2:4] == ["job.created", "run.started"]
    from_file = [json.loads(line) for line in logged.read_text().splitlines()]
    assert {"job.created", "run.started", "run.succeeded"} <= {line["event"] for line in from_file}
    assert not any(line[:1] == "{" for line in other.output().splitlines())


def test_the_servers_own_messages_go_to_stderr_and_nothing_to_stdout(make_server) -> None:
    """ "listening on" and how to authenticate are diagnostics, on standard error as every
    cronlapse command writes them (and as the logs are); they were on standard output, where
    a supervisor or a pipe took them for the command's output."""
    server = make_server()
    messages = server.output()
    assert f"cronlapse serve: listening on {server.url} (journal " in messages
    assert "cronlapse serve: authenticate with the token in $CRONLAPSE_TOKEN" in messages
    assert server.stop() == 0
    assert server.stdout() == ""
