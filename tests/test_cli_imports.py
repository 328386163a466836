"""A command imports its own module, not the whole command line's: ``cronlapse run`` loads no
other command's module, nor the service (cronlapse/cli/entry.py). The process is started as
users start the program, and reports the modules it loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cronlapse.cli.entry import COMMAND_MODULES

pytestmark = pytest.mark.e2e

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "demo.yaml"


def test_run_imports_no_other_command_nor_the_service() -> None:
    code = (
        "import sys\n"
        "from cronlapse.cli import entry\n"
        f"status = entry.main(['run', {str(SCENARIO)!r}, '--until', '0'])\n"
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m.startswith('cronlapse'))))\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stderr.split())
    assert "cronlapse.cli.run" in loaded
    others = {f"cronlapse.cli.{name}" for name in COMMAND_MODULES.values()} - {"cronlapse.cli.run"}
    assert not loaded & (others | {"cronlapse.cli.main", "cronlapse.service"})
