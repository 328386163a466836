"""Fixtures every test directory may use."""

from __future__ import annotations

import compileall
from collections.abc import Callable
from pathlib import Path

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

PACKAGES = ("cronlapse", "engine", "tui")
"""The project's own packages, which the processes the suite starts import."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project's modules once, before any test, in the process that runs the
    session (not in each xdist worker).

    Why: where ``PYTHONDONTWRITEBYTECODE`` is set (CI sets it), no import ever writes the
    bytecode it compiled, so every ``cronlapse serve`` or CLI process a test starts compiled the
    few hundred modules it imports again: 0.4 to 1 s of each process start, a hundred times a
    suite. The installed dependencies come compiled from pip; the editable project does not."""
    if hasattr(config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    for package in PACKAGES:
        compileall.compile_dir(str(root / package), quiet=2, workers=0)


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
