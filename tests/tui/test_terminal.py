"""The dashboard starts and quits cleanly in a real terminal (tmux), as a user would run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

REPO = Path(__file__).resolve().parents[2]


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20)


def _wait_for(predicate, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_starts_steps_and_quits_in_tmux(scenario_file: Path, tmp_path: Path) -> None:
    socket = f"cronlapse-test-{os.getpid()}"
    status = tmp_path / "status"
    command = (
        f"cd {REPO} && {sys.executable} -m cronlapse tui {scenario_file}; "
        f"echo $? > {status}; sleep 2"
    )
    started = _tmux(socket, "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command)
    assert started.returncode == 0, started.stderr

    def screen() -> str:
        return _tmux(socket, "capture-pane", "-p", "-t", "t").stdout

    try:
        assert _wait_for(lambda: "tick 0 / 40" in screen()), screen()
        assert "Occurrences" in screen()
        _tmux(socket, "send-keys", "-t", "t", "Right")
        assert _wait_for(lambda: "tick 0 / 40" not in screen()), screen()
        _tmux(socket, "send-keys", "-t", "t", "q")
        assert _wait_for(status.exists), screen()
        assert status.read_text().strip() == "0"
        assert "Traceback" not in screen()
    finally:
        _tmux(socket, "kill-server")
