"""The bearer token: from the environment, or generated once into a 0600 file; constant time."""

from __future__ import annotations

import hmac
from pathlib import Path

import pytest

from cronlapse.service import auth
from cronlapse.service.auth import Token, load_token, token_path


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
