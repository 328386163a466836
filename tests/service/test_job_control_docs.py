"""docs/service.md's "After the current run", run for real: its config served by a real server,
then every ``$`` line of its console block (curl, with no shell) against it, each printing what
the page shows (``...`` stands for what differs from run to run)."""

from __future__ import annotations

import shlex
from functools import partial
from pathlib import Path

import pytest

from tests.service.conftest import ROOT, Server
from tests.service.doc_sessions import block, prints_as_shown, section, sessions
from tests.service.test_readme_service import _run

pytestmark = pytest.mark.e2e

SECTION = section(ROOT / "docs" / "service.md", r"^### After the current run.*?(?=^##)")


def test_the_pages_examples_answer_as_shown(tmp_path: Path) -> None:
    server = Server(tmp_path, block(SECTION, "yaml"), "1", token=None)
    try:
        server.start()
        token = (server.directory / "cronlapse.db.token").read_text().strip()
        assert len(sessions(SECTION)) == 11
        for command, expected in sessions(SECTION):
            argv = shlex.split(
                command.replace("$TOKEN", token).replace("localhost:8080", server.url[7:])
            )
            reads = "-X" not in argv
            run = partial(_run, argv, server.directory)
            prints_as_shown(command, run, expected, wait=reads)
    finally:
        server.kill()
