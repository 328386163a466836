"""The engine is importable without the terminal libraries: textual and rich stay unloaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[1]

PROBE = (
    "import sys\n"
    "{imports}\n"
    "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
)


def loaded_ui_modules(imports: str) -> str:
    env = dict(os.environ)
    # The checkout is importable even when cronlapse is not installed; an earlier entry wins.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(REPO_ROOT)) if p)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(imports=imports)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize(
    "imports",
    [
        "import engine",
        "import engine.facades.cron_job_scheduler",
        "from engine import CronJobScheduler\nCronJobScheduler().dispatch_jobs(0)",
        "import cronlapse.cli.main\nimport engine.play.history\nimport engine.scenario",
    ],
)
def test_engine_loads_neither_textual_nor_rich(imports: str) -> None:
    assert loaded_ui_modules(imports) == "[]"


def test_the_probe_would_notice_rich() -> None:
    pytest.importorskip("rich")
    assert loaded_ui_modules("import rich.text") != "[]"
