"""Fixtures every test directory may use."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

from cronlapse.cli.main import main

pytest_plugins = ["tests.tiers"]

settings.register_profile(
    "suite",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Hypothesis as the suite runs it: no per-example deadline and no "too slow" check, the two
that time examples with the wall clock. Beside other work on two cores an example takes many
times its quiet-machine time, which says nothing about the code. Each test sets its own
``max_examples``; a test that suppresses other health checks lists ``too_slow`` again, since
its list replaces this one."""
settings.load_profile("suite")

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
