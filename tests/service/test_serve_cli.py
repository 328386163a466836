"""``cronlapse serve`` on a real database and port (its refusals of options: test_config.py)."""

from __future__ import annotations

import socket

import pytest

from cronlapse.cli.main import main

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
