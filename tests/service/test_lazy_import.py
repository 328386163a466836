"""``cronlapse`` loads the service's dependencies only when it serves."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.service.conftest import ROOT

pytestmark = pytest.mark.e2e

PROBE = (
    "import sys\n"
    "import cronlapse.cli.main\n"
    "cronlapse.cli.main.build_parser().parse_args(['serve', '--port', '1'])\n"
    "heavy = ('sqlalchemy', 'starlette', 'uvicorn', 'httpx', 'cronlapse.service.api')\n"
    "print(sorted(name for name in heavy if name in sys.modules))\n"
)


def test_the_command_line_does_not_import_the_service_stack() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"


FACE_PROBE = (
    "import sys\n"
    "import cronlapse.service.store, tui.model.live, tui.live_app\n"
    "sql = ('sqlalchemy', 'psycopg', 'starlette', 'uvicorn', 'cronlapse.service.store.sql')\n"
    "print(sorted(name for name in sql if name in sys.modules))\n"
)


def test_the_stores_face_loads_no_sql_until_a_database_is_opened() -> None:
    """The dashboard imports the store's face: its SQL implementation loads only when a journal
    is opened, by URL."""
    done = subprocess.run(
        [sys.executable, "-c", FACE_PROBE], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"
