"""Fixtures every test directory may use."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cronlapse.cli.main import main

Cli = Callable[..., tuple[int, str, str]]
"""``cli("run", FILE)``: the exit status, standard output and standard error."""


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run ``cronlapse ARGS`` in-process: its exit status, standard output and standard error
    (a usage error's ``SystemExit`` is its status, as the shell would see it)."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as leaving:
            status = int(leaving.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
