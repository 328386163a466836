"""Batch commands run with the cycle collector tuned for building a run (off for those whose run
makes no reference cycles: a seed 001 script, a scenario's ``run`` and ``check``); the rest keep
Python's defaults, and ``main`` puts the settings back (tests call it in-process)."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest

from cronlapse.analyses.invariants import Checker
from cronlapse.cli import main as cli
from cronlapse.cli import next as cli_next
from cronlapse.cli import script as cli_script
from cronlapse.cli.collector import (
    ACYCLIC_COMMANDS,
    BATCH_COLLECTOR_THRESHOLDS,
    BATCH_COMMANDS,
    collector_tuned_for,
)
from engine.facades.script import ScriptSession

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
BUNDLED = sorted(SCENARIOS.rglob("*.yaml"))


def test_a_batch_command_runs_with_the_batch_thresholds_and_puts_them_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = []

    def handler(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        seen.append(gc.get_threshold())
        return 0

    monkeypatch.setattr(cli_next, "run", handler)
    before = gc.get_threshold()
    assert before != BATCH_COLLECTOR_THRESHOLDS
    assert cli.main(["next", "0 2 * * *"]) == 0
    assert seen == [BATCH_COLLECTOR_THRESHOLDS]
    assert gc.get_threshold() == before


def test_the_thresholds_are_put_back_after_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def handler(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_next, "run", handler)
    before = gc.get_threshold()
    assert cli.main(["next", "0 2 * * *"]) == cli.INTERNAL_ERROR
    assert "internal error: RuntimeError: a bug" in capsys.readouterr().err
    assert gc.get_threshold() == before


@pytest.mark.parametrize("command", [None, "tui", "serve", "worker", "status"])
def test_the_dashboard_and_the_service_keep_the_default_thresholds(command: str | None) -> None:
    before = gc.get_threshold()
    with collector_tuned_for(command):
        assert gc.get_threshold() == before


def test_every_batch_command_is_a_command_of_cronlapse() -> None:
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subparsers.choices) >= BATCH_COMMANDS >= ACYCLIC_COMMANDS


def test_a_script_runs_with_the_collector_off_and_turns_it_back_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = []

    def handler(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        seen.append(gc.isenabled())
        raise RuntimeError("a bug")  # and back on after an internal error too

    monkeypatch.setattr(cli_script, "run", handler)
    assert gc.isenabled()
    assert cli.main(["script", "-"]) == cli.INTERNAL_ERROR
    assert seen == [False]
    assert gc.isenabled()


def _every_kind_of_line(jobs: int) -> list[str]:
    """A script with every command, dependencies, scripted failures, retries, cascades and
    rejected lines, deterministic."""
    lines = ["INIT 3 2"]
    for i in range(jobs):
        deps = f"1 j{(i * 7) % i}" if i and i % 3 == 0 else "0"
        lines.append(f"SUBMIT j{i} {i % 101} {1 + i % 4} {1 + i % 3} {deps}")
        if i % 5 == 0:
            lines.append(f"FAIL j{i} 1")
        if i % 4 == 0:
            lines += [f"TICK {i % 6}", f"STATUS j{i // 2}", "RUNNING"]
        if i % 50 == 0:
            lines += ["BOGUS", "SUBMIT x", "TICK -1", f"FAIL j{i} 0", f"SUBMIT j{i} 1 1 1 0"]
    return [*lines, "TICK 100000"]


def test_a_script_s_run_leaves_no_reference_cycle_for_the_collector() -> None:
    """Why ``script`` may run with the collector off: what a script's run drops is freed by
    reference counting, so a collection while the session lives finds nothing to free."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        session = ScriptSession(headless=True)
        session.feed_lines(_every_kind_of_line(600))
        freed = gc.collect()
    finally:
        if was_enabled:
            gc.enable()
    outputs = {line.split()[0] for line in session.result.output}
    assert {"OK", "START", "DONE", "FAILATTEMPT", "FAILED", "CANCEL"} <= outputs
    assert len(session.result.problems) >= 5
    assert freed == 0


@pytest.fixture
def collections_while_checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """What a collection frees after each of the checker's reads of a command's run (``run``
    and ``check`` both read through a :class:`Checker`), the collector off meanwhile: it
    starts once the checker is made, after what loading the scenario and parsing the command
    line left behind is collected. The objects alive before are frozen, so each collection
    walks the run's own."""
    freed: list[int] = []
    made, observe = Checker.__init__, Checker.observe

    def init(self: Checker, *args: Any) -> None:
        made(self, *args)
        gc.collect()

    def observed(self: Checker) -> None:
        observe(self)
        freed.append(gc.collect())

    monkeypatch.setattr(Checker, "__init__", init)
    monkeypatch.setattr(Checker, "observe", observed)
    was_enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield freed
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("scenario", BUNDLED, ids=lambda path: path.stem)
def test_a_scenario_s_run_leaves_no_reference_cycle_for_the_collector(
    command: str,
    scenario: Path,
    collections_while_checked: list[int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Why ``run`` and ``check`` may run with the collector off: every bundled scenario (every
    rule, notifications, outages, imports) played as they play it drops nothing that only the
    collector would free, read after read."""
    bounded = ["--until", "3000"] if command == "run" else []  # check plays it to its end
    assert cli.main([command, str(scenario), *bounded]) in (0, 1)
    capsys.readouterr()
    assert collections_while_checked
    assert set(collections_while_checked) == {0}


@pytest.mark.parametrize("command", sorted(ACYCLIC_COMMANDS - {"script"}))
def test_a_scenario_command_runs_with_the_collector_off(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = []
    observe = Checker.observe

    def observed(self: Checker) -> None:
        seen.append(gc.isenabled())
        observe(self)

    monkeypatch.setattr(Checker, "observe", observed)
    assert gc.isenabled()
    assert cli.main([command, str(SCENARIOS / "thundering-herd.yaml")]) == 0
    capsys.readouterr()
    assert seen and not any(seen)
    assert gc.isenabled()
