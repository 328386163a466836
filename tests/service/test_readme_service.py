"""The README's "Run it as a service" section, run for real: its config served by a real server,
then every ``$`` line of its console block (curl, with no shell) against it, each printing what the
page shows (``...`` stands for what differs from run to run)."""

from __future__ import annotations

import shlex
import subprocess
from functools import partial
from pathlib import Path

import pytest

from tests.service.conftest import ROOT, Server
from tests.service.doc_sessions import block, prints_as_shown, section, sessions
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e

SECTION = section(ROOT / "README.md", r"^## Run it as a service.*?(?=^## )")


@pytest.fixture
def readme_server(tmp_path: Path):
    assert "cronlapse serve --config service.yaml" in block(SECTION, "sh")
    server = Server(tmp_path, block(SECTION, "yaml"), "1", token=None)
    try:
        server.start()
        yield server
    finally:
        server.kill()


def test_the_readme_walkthrough_answers_as_shown(readme_server: Server) -> None:
    token = (readme_server.directory / "cronlapse.db.token").read_text().strip()
    assert len(sessions(SECTION)) >= 15
    for command, expected in sessions(SECTION):
        argv = shlex.split(
            command.replace("$TOKEN", token).replace("localhost:8080", readme_server.url[7:])
        )
        reads = argv[0] == "cat" or "-X" not in argv
        run = partial(_run, argv, readme_server.directory)
        prints_as_shown(command, run, expected, wait=reads)


def _run(argv: list[str], directory: Path) -> str:
    if argv[0] == "cat":
        path = directory / argv[1]
        return path.read_text() if path.exists() else ""
    assert argv[0] == "curl", f"only curl and cat lines run: {argv}"
    done = subprocess.run(argv, cwd=directory, capture_output=True, text=True, timeout=PATIENCE)
    return done.stdout
