"""The dashboard starts and quits cleanly in a real terminal (tmux), as a user would run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import PATIENCE, line_written, wait_until

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

REPO = Path(__file__).resolve().parents[2]


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess:
    command = ["tmux", "-L", socket, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=PATIENCE)


def test_starts_steps_and_quits_in_tmux(scenario_file: Path, tmp_path: Path) -> None:
    socket = f"cronlapse-test-{os.getpid()}"
    status = tmp_path / "status"
    command = (
        f"cd {REPO} && {sys.executable} -m cronlapse tui {scenario_file}; "
        f"echo $? > {status}; sleep 2"  # the pane stays a while: its last screen is checked
    )
    started = _tmux(socket, "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command)
    assert started.returncode == 0, started.stderr

    def screen() -> str:
        return _tmux(socket, "capture-pane", "-p", "-t", "t").stdout

    try:
        wait_until(lambda: "tick 0 / 40" in screen(), "the dashboard at tick 0", context=screen)
        assert "Occurrences" in screen()
        _tmux(socket, "send-keys", "-t", "t", "Right")
        wait_until(lambda: "tick 0 / 40" not in screen(), "a step", context=screen)
        _tmux(socket, "send-keys", "-t", "t", "q")
        exit_status = wait_until(
            lambda: line_written(status), "the dashboard to quit", context=screen
        )
        assert exit_status == "0"
        assert "Traceback" not in screen()
    finally:
        _tmux(socket, "kill-server")
