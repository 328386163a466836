"""``cronlapse serve`` loads only what serving needs: a server runs for months, and every module
it imports is memory it keeps and time each restart pays (issue 36: 786 modules, 66 MB of
imports alone, among them the simulator's analyses, rich and pygments, and psycopg on SQLite).

The server is started as users start it, with ``PYTHONPROFILEIMPORTTIME``: Python then writes
every module it imports to standard error, so the test reads what the real process loaded,
through its start, a run of a job, a scrape of its metrics and its stop."""

from __future__ import annotations

import re

import pytest

from tests.service.conftest import Server
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

FORBIDDEN = (
    "textual",  # the dashboard
    "tui",
    "rich",  # a terminal's rendering, loaded by httpx's command line
    "pygments",
    "psycopg",  # PostgreSQL's driver, on SQLite
    "psycopg_binary",
    "sqlalchemy.dialects.postgresql",  # SQLAlchemy's PostgreSQL dialect, on SQLite
    "httpx",  # HTTP requests, for jobs that name no URL executor and notifications not sent
    "httpcore",
    "cronlapse.analyses",  # the simulator's commands: explain, sweep, compare, invariants
    "cronlapse.sources",
    "cronlapse.importers",
    "cronlapse.exports",
    "cronlapse.cli.run",
    "cronlapse.cli.sweep",
    "cronlapse.cli.tui",
    "engine.facades",  # seed 000's and seed 001's interfaces
    "engine.scenario.script",
    "engine.scenario.runner",
    "engine.scenario.validate",
    "aiosmtplib",  # email delivery, for a config without an email channel
    "cronlapse.service.delivery.email",
)

WEBHOOK_ONLY = "workers: 1\nchannels:\n  hook:\n    webhook: {url: http://127.0.0.1:9/notify}\n"
"""Notifications configured, but no email channel: nothing of email delivery is needed."""
_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| *(\S+)$", re.MULTILINE)


def imported(log: str) -> set[str]:
    """The modules a process's ``-X importtime`` report names."""
    return set(_IMPORTED.findall(log))


def forbidden(modules: set[str]) -> list[str]:
    return sorted(
        name
        for name in modules
        if any(name == root or name.startswith(root + ".") for root in FORBIDDEN)
    )


def test_serve_on_sqlite_imports_only_what_serving_needs(
    make_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    server: Server = make_server(config=WEBHOOK_ONLY)
    with server.client() as http:
        assert http.post("/job", json={"id": "now", "payload": "p"}).status_code == 201
        wait_until(
            lambda: http.get("/job/now").json()["status"] == "succeeded", "the job's first run"
        )
        assert http.get("/metrics").status_code == 200
    assert server.stop() == 0
    modules = imported(server.output())
    assert "cronlapse.service.api" in modules, "the report names the server's own modules"
    assert forbidden(modules) == []
