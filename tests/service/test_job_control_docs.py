"""docs/service.md's "After the current run", run for real: its config served by a real server,
then every ``$`` line of its console block (curl, with no shell) against it, each printing what
the page shows (``...`` stands for what differs from run to run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.service.conftest import ROOT, Server
from tests.service.test_readme_service import _pattern, _prints_as_shown

pytestmark = pytest.mark.e2e

SECTION = re.search(
    r"^### After the current run.*?(?=^##)",
    (ROOT / "docs" / "service.md").read_text(encoding="utf-8"),
    re.S | re.M,
).group(0)


def _block(language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", SECTION, re.S)
    assert match is not None, f"no {language} block in the section"
    return match.group(1)


def _sessions() -> list[tuple[str, list[str]]]:
    sessions: list[tuple[str, list[str]]] = []
    for line in _block("console").splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        else:
            sessions[-1][1].append(line)
    return sessions


def test_the_pages_examples_answer_as_shown(tmp_path: Path) -> None:
    server = Server(tmp_path, _block("yaml"), "1", token=None)
    try:
        server.start()
        token = (server.directory / "cronlapse.db.token").read_text().strip()
        assert len(_sessions()) == 11
        for command, expected in _sessions():
            argv = shlex.split(
                command.replace("$TOKEN", token).replace("localhost:8080", server.url[7:])
            )
            reads = "-X" not in argv
            _prints_as_shown(command, argv, _pattern(expected), server.directory, wait=reads)
    finally:
        server.kill()
