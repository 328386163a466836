"""``cronlapse serve`` on a real database and port (its refusals of options: test_config.py)."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from cronlapse.cli.main import main
from tests.service.conftest import free_port

pytestmark = pytest.mark.integration


def test_serve_says_it_listens_only_once_it_does(tmp_path, capsys) -> None:
    """A port in use: "listening on" was printed before the bind failed."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = main(["serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 's.db'}"])
    out, err = capsys.readouterr()
    assert status == 2
    assert "listening on" not in out + err
    assert f"cronlapse serve: cannot listen on 127.0.0.1:{port}" in err


class ConnectsWhenTold:
    """Standard error that, when told the server listens, connects to it there and then."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.said: list[str] = []
        self.connected: list[bool] = []

    def write(self, text: str) -> None:
        self.said.append(text)
        if "listening on" in text:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
                self.connected.append(True)
            except ConnectionRefusedError:
                self.connected.append(False)

    def flush(self) -> None:
        pass


def test_listening_on_is_said_once_a_connection_is_accepted() -> None:
    """It was said once the port was bound, before it listened: a first request right after
    it was refused."""
    from starlette.applications import Starlette

    from cronlapse.service.http_server import run
    from cronlapse.service.server import bound_socket

    port = free_port()
    messages = ConnectsWhenTold(port)
    stop = threading.Event()
    stop.set()  # start, then stop at once
    sock = bound_socket("127.0.0.1", port)
    with asyncio.Runner() as runner:
        status = run(Starlette(), sock, "listening on the port\n", messages, runner, stop)  # type: ignore[arg-type]
    assert status == 0
    assert messages.connected == [True], messages.said
