"""The bearer token: from the environment, or generated once into a 0600 file; constant time."""

from __future__ import annotations

import hmac
import stat
from pathlib import Path

import pytest

from cronlapse.service import auth
from cronlapse.service.auth import Token, load_token, token_path
from tests.service.conftest import Server


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


def test_the_variable_wins_over_the_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CRONLAPSE_TOKEN", "from-env")
    assert load_token(f"sqlite:///{tmp_path}/x.db") == Token("from-env", "CRONLAPSE_TOKEN")
    assert not (tmp_path / "x.db.token").exists()


def test_other_databases_keep_the_token_in_the_config_dir(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert token_path("postgresql://db.example/cronlapse") == tmp_path / "cronlapse" / "token"


def test_tokens_are_compared_in_constant_time(monkeypatch) -> None:
    calls = []
    compare = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    token = Token("secret", "test")
    assert token.matches("Bearer secret")
    assert not token.matches("Bearer secreT")
    assert not token.matches(None)
    assert not token.matches("Basic secret")
    assert calls[0] == (b"secret", b"secret")
    assert len(calls) == 4, "every check goes through compare_digest, even a missing header"


@pytest.mark.parametrize("header", ["bearer secret", "BEARER secret"])
def test_the_scheme_is_case_insensitive(header: str) -> None:
    assert Token("secret", "test").matches(header)
