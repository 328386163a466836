"""``cronlapse serve`` loads only what serving needs: a server runs for months, and every module
it imports is memory it keeps and time each restart pays (issue 36: 786 modules, 66 MB of
imports alone, among them the simulator's analyses, rich and pygments, and psycopg on SQLite).

The server is started as users start it, with ``PYTHONPROFILEIMPORTTIME``: Python then writes
every module it imports to standard error, so the test reads what the real process loaded,
through its start, a run of a job, a scrape of its metrics and its stop."""

from __future__ import annotations

import contextlib
import itertools
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

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
    "engine.scenario.command_reader",  # the full readers: inputs in a plain form never need them
    "engine.scenario.vocabulary",
    "engine.scenario.jobs",
    "engine.scenario.checks",
    "engine.scenario.model",
    "cronlapse.service.input_reader",
    "cronlapse.service.openapi",  # built on the first GET /openapi.json
    "aiosmtplib",  # email delivery, for a config without an email channel
    "cronlapse.service.delivery.email",
    "uvicorn.main",  # uvicorn's command line, imported by its package's __init__ ...
    "uvicorn.supervisors",
    "click",  # ... and what that imports: its options, and its worker processes
    "multiprocessing",
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


HISTORY = "workers: 1\nsnapshot_every: 2\nhistory:\n  retention: 30d\n"
"""Snapshots after every other input, each writing the runs finished since the last one to the
history and applying its retention."""


def finished_runs_kept(database: Path) -> int:
    """How many finished runs the server wrote to its history (read beside it, as a tool would)."""
    with contextlib.closing(sqlite3.connect(database)) as conn:
        return conn.execute("SELECT count(*) FROM view_runs WHERE final").fetchone()[0]


def test_serve_on_sqlite_never_loads_sqlalchemy(
    make_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLAlchemy is a fifth of an SQLite server's memory: its journal, history, read model and
    dead letters go through the standard library's sqlite3, so no part of its normal life loads
    it (a restart, a snapshot writing finished runs, a job's detail and runs, a metrics
    scrape). The first start here creates the database: its migrations, SQLAlchemy's, run in a
    child process that writes its imports to the same standard error, so the modules are read
    from a restart (``test_sqlite_restart.py`` checks a first start's)."""
    server: Server = make_server(config=HISTORY)  # creates the database
    assert server.stop() == 0
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    server.start()
    with server.client() as http:
        created = itertools.count()

        def one_more_job_kept() -> bool:
            """Another job run once (its input may be the one a snapshot follows), and whether
            a snapshot has written a finished run to the history yet."""
            job = f"now{next(created)}"
            assert http.post("/job", json={"id": job, "payload": "p"}).status_code == 201
            wait_until(
                lambda: http.get(f"/job/{job}").json()["status"] == "succeeded",
                "the job's first run",
            )
            return finished_runs_kept(server.db) > 0

        wait_until(one_more_job_kept, "a snapshot keeping finished runs")
        assert http.get("/job/now0").json()["runs"], "its run, read back from the history"
        assert http.get("/job/now0/runs").json()["runs"]
        assert http.get("/jobs").status_code == 200
        assert http.get("/metrics").status_code == 200
    assert server.stop() == 0
    modules = imported(server.output())
    assert "cronlapse.service.api" in modules, "the report names the server's own modules"
    assert sorted(name for name in modules if name.split(".")[0] == "sqlalchemy") == []


def test_uvicorn_without_its_command_line_is_still_the_whole_package_when_asked() -> None:
    """The HTTP stack imports uvicorn's Config and Server without the package's ``__init__``
    (click, multiprocessing); code in the same process that imports uvicorn still gets all of
    it, and the same classes."""
    check = (
        "import sys\n"
        "from cronlapse.service import http_server\n"
        "assert not {'click', 'multiprocessing', 'uvicorn.main'} & set(sys.modules)\n"
        "import uvicorn\n"
        "from uvicorn import Config, main\n"
        "assert callable(uvicorn.run) and uvicorn.__version__ and 'click' in sys.modules\n"
        "assert (Config, uvicorn.Server) == (http_server.Config, http_server.Server)\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
