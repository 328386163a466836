"""The README's "On PostgreSQL, with a webhook, watched live", run for real on a PostgreSQL server
the suite starts itself: its two commands (``createdb``, then ``serve`` with its config), every
``$`` line of its console block (curl, ``cronlapse status``, ``export``, ``check``), the request
its webhook receives (on loopback) and its dashboard, opened in a terminal (tmux).

The page's URL, ``postgresql:///cronlapse``, is libpq's: the local server, as the user. Here
the local server is the suite's, named by libpq's environment (``PGHOST``, ``PGPORT``,
``PGUSER``), so the page's commands run as they stand; only the webhook's address and the
server's port (``localhost:8080``) are the test's."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from tests.service.conftest import ROOT, Server, WebhookReceiver
from tests.service.doc_sessions import block, blocks, prints_as_shown, section, sessions
from tests.service.pg_cluster import Cluster
from tests.waiting import PATIENCE, line_written, wait_until

pytestmark = pytest.mark.e2e

SECTION = section(ROOT / "README.md", r"^### On PostgreSQL.*?(?=^##)")
PAGE_HOOK = "http://127.0.0.1:9000/notify"


@dataclass
class Service:
    server: Server
    hook: WebhookReceiver
    """Where the config's webhook channel posts."""
    env: dict[str, str]
    """What the page's commands run with: libpq's variables naming the suite's server, and
    ``XDG_CONFIG_HOME`` where the server keeps its token."""

    @property
    def token(self) -> str:
        return (Path(self.env["XDG_CONFIG_HOME"]) / "cronlapse" / "token").read_text().strip()

    def argv(self, command: str) -> list[str]:
        """A line of the page as the test runs it: the server's port, its token."""
        address = self.server.url[len("http://") :]
        return shlex.split(command.replace("$TOKEN", self.token).replace("localhost:8080", address))

    def run(self, argv: list[str]) -> str:
        """A line of the page (curl, or cronlapse as installed here): what it printed."""
        if argv[0] == "cronlapse":
            argv = [sys.executable, "-m", "cronlapse", *argv[1:]]
        else:
            assert argv[0] == "curl", f"only curl and cronlapse lines run: {argv}"
        done = subprocess.run(
            argv,
            cwd=self.server.directory,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
        )
        return done.stdout + done.stderr


@pytest.fixture
def readme_service(
    postgres: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Service]:
    """The page's two commands, run: its database created, then its server serving its config
    (the webhook's address a receiver's on loopback); the database dropped at the end."""
    create, serve = block(SECTION, "sh").splitlines()
    libpq = {"PGHOST": "127.0.0.1", "PGPORT": str(postgres.port), "PGUSER": "postgres"}
    for name, value in {**libpq, "XDG_CONFIG_HOME": str(tmp_path / "config")}.items():
        monkeypatch.setenv(name, value)  # the server's environment is the test process's
    monkeypatch.delenv("CRONLAPSE_TOKEN", raising=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert create == "createdb cronlapse"
    createdb = [postgres.tool("createdb"), "cronlapse"]
    subprocess.run(createdb, env=env, check=True, capture_output=True, timeout=PATIENCE)
    serving = shlex.split(serve)
    assert serving == [
        *("cronlapse", "serve", "--db", "postgresql:///cronlapse", "--config", "ops.yaml")
    ]
    hook = WebhookReceiver()
    config = block(SECTION, "yaml")
    assert PAGE_HOOK in config
    config = config.replace(PAGE_HOOK, hook.url("/notify"))
    server = Server(tmp_path, config, "1", None, serving[3])
    try:
        server.start()
        yield Service(server, hook, env)
    finally:
        server.kill()
        hook.close()
        dropdb = [postgres.tool("dropdb"), "--if-exists", "cronlapse"]
        subprocess.run(dropdb, env=env, capture_output=True, timeout=PATIENCE)


def test_the_walkthrough_answers_and_the_webhook_receives_as_shown(
    readme_service: Service,
) -> None:
    assert [command.split()[:2] for command, _ in sessions(SECTION)] == [
        ["curl", "-s"],
        ["cronlapse", "status"],
        ["cronlapse", "export"],
        ["cronlapse", "check"],
    ]
    for command, expected in sessions(SECTION):
        argv = readme_service.argv(command)
        reads = "-X" not in argv
        run = partial(readme_service.run, argv)
        prints_as_shown(command, run, expected, wait=reads)
    received = wait_until(lambda: readme_service.hook.requests(), "the webhook's request")
    request_line, key_line, blank, body = block(SECTION, "http").splitlines()
    assert (request_line, key_line, blank) == ("POST /notify", "Idempotency-Key: ...", "")
    (request,) = received
    assert request.path == "/notify" and request.key
    shown = json.loads(body)
    assert list(request.body) == list(shown)
    assert {key: value for key, value in request.body.items() if shown[key] != "..."} == {
        key: value for key, value in shown.items() if value != "..."
    }


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_dashboard_follows_the_service(readme_service: Service, tmp_path: Path) -> None:
    (line,) = blocks(SECTION, "sh")[1].splitlines()
    assert line == "cronlapse tui --db postgresql:///cronlapse"
    socket = f"cronlapse-readme-{os.getpid()}"
    status = tmp_path / "status"
    variables = " ".join(
        f"{name}={shlex.quote(readme_service.env[name])}"
        for name in ("PGHOST", "PGPORT", "PGUSER", "XDG_CONFIG_HOME", "PYTHONPATH")
    )
    command = (
        f"env {variables} {sys.executable} -m {line}; "
        f"echo $? > {status}; sleep 2"  # the pane stays a while: its last screen is checked
    )

    def tmux(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=PATIENCE
        )

    def screen() -> str:
        return tmux("capture-pane", "-p", "-t", "t").stdout

    started = tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command)
    assert started.returncode == 0, started.stderr
    try:
        wait_until(lambda: "● LIVE" in screen(), "the dashboard at the live head", context=screen)
        creation, _ = sessions(SECTION)[0]  # the page's job, created while it watches
        readme_service.run(readme_service.argv(creation))
        wait_until(lambda: "backup" in screen(), "the job's run on the screen", context=screen)
        tmux("send-keys", "-t", "t", "q")
        exit_status = wait_until(
            lambda: line_written(status), "the dashboard to quit", context=screen
        )
        assert exit_status == "0"
        assert "Traceback" not in screen()
    finally:
        tmux("kill-server")
