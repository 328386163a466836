"""A real ``cronlapse serve`` process on a free loopback port, with a real SQLite file.

Every server a test starts is stopped by the fixture (SIGKILL in ``finally``), and nothing here
contacts anything but 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-0123456789"
FROZEN = "0.000001"
"""A speed at which the clock does not move during a test: runs due now still run."""
START_TIMEOUT = 30.0


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
        options: tuple[str, ...] = (),
    ) -> None:
        self.directory = directory
        self.options = options
        """More options for ``cronlapse serve`` (``--log-file``, ``--metrics-public``)."""
        self.db = directory / "cronlapse.db"
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

    def start(self) -> None:
        self.port = free_port()
        self.starts += 1
        env = {key: value for key, value in os.environ.items() if key != "CRONLAPSE_TOKEN"}
        if self.token is not None:
            env["CRONLAPSE_TOKEN"] = self.token
        env["PYTHONPATH"] = str(ROOT)
        command = [sys.executable, "-m", "engine", "serve", "--db", f"sqlite:///{self.db}"]
        command += ["--port", str(self.port), "--config", str(self.config), "--speed", self.speed]
        command += self.options
        log = self.directory / f"server-{self.starts}.log"
        with open(log, "wb") as output:
            self.process = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, cwd=self.directory, env=env
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited:\n{log.read_text()}")
            try:
                if httpx.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.05)

    def output(self) -> str:
        return (self.directory / f"server-{self.starts}.log").read_text()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly as a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        """SIGTERM: a clean shutdown (it writes a snapshot)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def client(self, token: str | None = TOKEN) -> httpx.Client:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator:
    """``make_server(config=..., speed=..., token=..., options=...)``: a started server, killed
    at the end."""
    servers: list[Server] = []

    def make(
        config: str = "workers: 2\n",
        speed: str = FROZEN,
        token: str | None = TOKEN,
        options: tuple[str, ...] = (),
    ):
        directory = tmp_path / f"server{len(servers)}"
        directory.mkdir()
        server = Server(directory, config, speed, token, options)
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
