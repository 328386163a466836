"""A real ``cronlapse serve`` process on a free loopback port, with a real SQLite file or a
database on a real PostgreSQL server that the suite starts itself (:mod:`tests.service.pg_cluster`).

Every server a test starts is stopped by the fixture (SIGKILL in ``finally``), and nothing here
contacts anything but 127.0.0.1. ``backend`` is SQLite unless a test parametrises it indirectly
(``@pytest.mark.parametrize("backend", BACKENDS, indirect=True)``): the tests that matter on
both backends run on both without being copied.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email import message_from_bytes
from email import policy as email_policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from aiosmtpd.controller import Controller

from tests.service.pg_cluster import Cluster, Unavailable
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-0123456789"
FROZEN = "0.000001"
"""A speed at which the clock does not move during a test: runs due now still run."""
BACKENDS = ("sqlite", "postgresql")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """One database and config; the process can be started, killed and started again."""

    def __init__(
        self,
        directory: Path,
        config: str,
        speed: str,
        token: str | None,
        db_url: str | None = None,
        options: tuple[str, ...] = (),
    ) -> None:
        self.directory = directory
        self.options = options
        """More ``serve`` options (``--role scheduler``, ``--log-file``, ``--metrics-public``)."""
        self.db = directory / "cronlapse.db"
        self.db_url = db_url or f"sqlite:///{self.db}"
        """The database: the SQLite file ``db`` unless another URL is given."""
        self.config = directory / "config.yaml"
        self.config.write_text(config, encoding="utf-8")
        self.speed = speed
        self.token = token
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait: bool = True, port: int | None = None) -> None:
        """Start the process (on ``port``, else a free one: a restart on the same port is the
        same address for those who watch it); unless ``wait`` is false, wait until it answers
        ``/health``."""
        self.port = port or free_port()
        self.starts += 1
        env = {key: value for key, value in os.environ.items() if key != "CRONLAPSE_TOKEN"}
        if self.token is not None:
            env["CRONLAPSE_TOKEN"] = self.token
        env["PYTHONPATH"] = str(ROOT)
        command = [sys.executable, "-m", "cronlapse", "serve", "--db", self.db_url]
        command += ["--port", str(self.port), "--config", str(self.config), "--speed", self.speed]
        command += self.options
        log = self.directory / f"server-{self.starts}.log"
        stdout = self.directory / f"server-{self.starts}.stdout"
        with open(log, "wb") as errors, open(stdout, "wb") as output:
            self.process = subprocess.Popen(
                command, stdout=output, stderr=errors, cwd=self.directory, env=env
            )
        if wait:
            self.wait_healthy()

    def wait_healthy(self) -> None:
        wait_until(self.healthy, "the server to answer /health", context=self.both_outputs)

    def healthy(self) -> bool:
        """The server answers ``GET /health`` (a server that exited fails the caller)."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the server exited:\n{self.both_outputs()}")
        try:
            return httpx.get(self.url + "/health", timeout=1.0).status_code == 200
        except httpx.HTTPError:
            return False

    def both_outputs(self) -> str:
        return self.output() + self.stdout()

    def output(self) -> str:
        """What the last start wrote to standard error: its messages and its structured logs."""
        return (self.directory / f"server-{self.starts}.log").read_text()

    def stdout(self) -> str:
        """What the last start wrote to standard output: kept apart, since a server has
        nothing to say there (its messages are diagnostics, on standard error)."""
        return (self.directory / f"server-{self.starts}.stdout").read_text()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly as a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int | None:
        """SIGTERM (or ``sig``, SIGINT as Ctrl-C sends): a clean shutdown (it writes a
        snapshot). Returns the process's exit status (0 after a clean stop), or None if it had
        to be killed or was not running."""
        status = None
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                status = self.process.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None
        return status

    def client(self, token: str | None = TOKEN) -> httpx.Client:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=PATIENCE)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL server for the session (one per xdist worker), stopped at the end."""
    try:
        cluster = Cluster()
    except Unavailable as reason:
        pytest.skip(str(reason))
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def processes(postgres, tmp_path: Path) -> Iterator:
    """``processes(config)``: a fresh database and a
    :class:`~tests.service.role_processes.Processes` on it; every process killed at the end."""
    from tests.service.role_processes import Processes

    made: list[Processes] = []

    def make(config: str) -> Processes:
        made.append(Processes(tmp_path, postgres.database(), config))
        return made[-1]

    try:
        yield make
    finally:
        for group in made:
            for process in group.made:
                process.kill()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` unless parametrised (indirectly) with one of BACKENDS."""
    return getattr(request, "param", "sqlite")


def database_for(backend: str, request: pytest.FixtureRequest) -> str | None:
    """A fresh database's URL on ``backend``; None for SQLite (the server's own file)."""
    if backend == "sqlite":
        return None
    return request.getfixturevalue("postgres").database()


@pytest.fixture
def make_server(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Iterator:
    """``make_server(config=..., speed=..., token=..., options=...)``: a started server, killed
    at the end, each on a fresh database of the test's backend."""
    servers: list[Server] = []

    def make(
        config: str = "workers: 2\n",
        speed: str = FROZEN,
        token: str | None = TOKEN,
        options: tuple[str, ...] = (),
    ):
        directory = tmp_path / f"server{len(servers)}"
        directory.mkdir()
        server = Server(directory, config, speed, token, database_for(backend, request), options)
        servers.append(server)
        server.start()
        return server

    try:
        yield make
    finally:
        for server in servers:
            server.kill()


@pytest.fixture
def server(make_server) -> Server:
    return make_server()


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with server.client() as http:
        yield http


# ------------------------------------------------------------- notification receivers (loopback)


@dataclass(frozen=True)
class Received:
    """One request a webhook receiver took, and the status it answered."""

    path: str
    key: str | None
    body: dict
    status: int


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records every POST; ``status(request)`` picks the answer
    (200 by default) and ``gate``, when cleared, holds every answer until it is set."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.arrived = 0
        """Requests that came in, answered or still held at the gate."""
        self.held = 0
        self.most_held = 0
        """The most requests in the receiver at once."""
        self.lock = threading.Lock()
        self.status: Callable[[Received], int] = lambda _request: 200
        self.gate = threading.Event()
        self.gate.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the sender was killed between its headers and its body
                    return  # nothing arrived, as for a real endpoint that cannot parse it
                body = json.loads(raw or b"{}")
                request = Received(self.path, self.headers.get("Idempotency-Key"), body, 0)
                with receiver.lock:
                    receiver.arrived += 1
                    receiver.held += 1
                    receiver.most_held = max(receiver.most_held, receiver.held)
                receiver.gate.wait()
                with receiver.lock:
                    receiver.held -= 1
                status = receiver.status(request)
                with receiver.lock:
                    receiver.received.append(dataclasses.replace(request, status=status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def requests(self, path: str | None = None) -> list[Received]:
        with self.lock:
            return [r for r in self.received if path is None or r.path == path]

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


class MailReceiver:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that records every message; ``gate``, when
    cleared, stalls every DATA command until it is set."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()
        """Set when a DATA command is held at the gate."""
        self.controller = Controller(self, hostname="127.0.0.1", port=free_port())
        self.controller.start()

    @property
    def port(self) -> int:
        return self.controller.port

    async def handle_DATA(self, _server, _session, envelope) -> str:
        if not self.gate.is_set():
            self.waiting.set()
            await asyncio.to_thread(self.gate.wait)
        self.messages.append(message_from_bytes(envelope.content, policy=email_policy.default))
        return "250 OK"

    def close(self) -> None:
        self.gate.set()
        self.controller.stop()


@pytest.fixture
def webhooks() -> Iterator[WebhookReceiver]:
    receiver = WebhookReceiver()
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture
def mailbox() -> Iterator[MailReceiver]:
    receiver = MailReceiver()
    try:
        yield receiver
    finally:
        receiver.close()
