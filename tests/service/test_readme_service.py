"""The README's "Run it as a service" section, run for real: its config served by a real server,
then every ``$`` line of its console block (curl, with no shell) against it, each printing what the
page shows (``...`` stands for what differs from run to run)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.service.conftest import ROOT, Server
from tests.service.doc_sessions import block, section, sessions
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e

SECTION = section(ROOT / "README.md", r"^## Run it as a service.*?(?=^## )")


def _pattern(expected: list[str]) -> re.Pattern:
    return re.compile(re.escape("\n".join(expected)).replace(re.escape("..."), ".*?"), re.S)


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
        pattern = _pattern(expected)
        reads = argv[0] == "cat" or "-X" not in argv
        _prints_as_shown(command, argv, pattern, readme_server.directory, wait=reads)


def _prints_as_shown(
    command: str, argv: list[str], pattern: re.Pattern, directory: Path, wait: bool
) -> None:
    """``argv`` prints what the README shows for ``command``; a read (``wait``) may show it a
    little later: what a job's execution does happens in the background."""
    printed: list[str] = []

    def as_shown() -> bool:
        printed.append(_run(argv, directory))
        return bool(pattern.fullmatch(printed[-1].rstrip("\n")))

    def said() -> str:
        return f"$ {command}\nprinted:\n{printed[-1]}"

    if wait:
        wait_until(as_shown, f"$ {command} to print what the README shows", context=said)
    else:
        assert as_shown(), said()


def _run(argv: list[str], directory: Path) -> str:
    if argv[0] == "cat":
        path = directory / argv[1]
        return path.read_text() if path.exists() else ""
    assert argv[0] == "curl", f"only curl and cat lines run: {argv}"
    done = subprocess.run(argv, cwd=directory, capture_output=True, text=True, timeout=PATIENCE)
    return done.stdout
