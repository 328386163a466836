"""Batch commands run with the cycle collector tuned for building a run; the rest keep Python's
defaults, and ``main`` puts the thresholds back (tests call it in-process)."""

from __future__ import annotations

import argparse
import gc
from typing import TextIO

import pytest

from cronlapse.cli import main as cli
from cronlapse.cli import next as cli_next
from cronlapse.cli.collector import BATCH_COLLECTOR_THRESHOLDS, BATCH_COMMANDS, collector_tuned_for


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
    assert set(subparsers.choices) >= BATCH_COMMANDS
