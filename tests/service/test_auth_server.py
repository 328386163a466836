"""The token a real server generates (how tokens are read and compared: test_auth.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.service.conftest import Server

pytestmark = pytest.mark.e2e


def test_without_the_variable_a_token_file_is_generated_with_mode_0600(make_server) -> None:
    server: Server = make_server(token=None)
    path = Path(str(server.db) + ".token")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    token = path.read_text().strip()
    assert len(token) >= 32
    assert f"listening on {server.url}" in server.output()
    assert str(path) in server.output(), "the server says where the token is"
    with server.client(token=token) as client:
        assert client.get("/workers").status_code == 200
    with server.client(token=token[:-1]) as client:
        assert client.get("/workers").status_code == 401
    server.kill()
    server.start()
    assert path.read_text().strip() == token, "the token survives a restart"
