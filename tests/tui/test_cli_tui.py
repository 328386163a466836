"""``cronlapse tui FILE`` and the no-argument default: argument handling without a terminal."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cronlapse.cli import tui as cli_tui

REPO = Path(__file__).resolve().parents[2]


def test_tui_is_a_subcommand_taking_a_file() -> None:
    parser = argparse.ArgumentParser()
    cli_tui.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tui", "scenarios/demo.yaml"])
    assert args.file == "scenarios/demo.yaml" and args.handler is cli_tui.run


def test_a_missing_file_is_refused_before_the_dashboard_starts(tmp_path: Path) -> None:
    err = io.StringIO()
    code = cli_tui.run(argparse.Namespace(file=str(tmp_path / "nope.yaml")), io.StringIO(), err)
    assert code == 2 and "no such file" in err.getvalue()


def test_the_default_is_the_bundled_demo() -> None:
    assert cli_tui.DEMO == REPO / "scenarios" / "demo.yaml"


@pytest.mark.e2e
def test_importing_the_cli_module_does_not_load_textual() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    probe = (
        "import sys, cronlapse.cli.tui\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'tui')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
