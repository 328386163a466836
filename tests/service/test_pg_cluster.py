"""The suite's throwaway PostgreSQL server (tests/service/pg_cluster.py) never outlives the
process that started it, however that process ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.conftest import ROOT
from tests.service.pg_cluster import Cluster, Unavailable
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

STARTER = """
import sys
from tests.service.pg_cluster import Cluster
cluster = Cluster().start()
print(cluster.base, flush=True)
sys.stdin.read()
"""


def _running(pid: int) -> bool:
    """Whether the process runs: not gone, and not a zombie that no parent has reaped yet."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_server_whose_starter_is_killed_is_stopped_and_removed() -> None:
    try:
        Cluster().stop()  # removes only the directory it made: there is no server yet
    except Unavailable as reason:
        pytest.skip(str(reason))
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base = Path(starter.stdout.readline().strip())  # type: ignore[union-attr]
        server = int((base / "data" / "postmaster.pid").read_text().split()[0])
        assert _running(server)
    finally:
        starter.kill()
        starter.wait()
    wait_until(lambda: not base.exists(), "the reaper to stop the server and remove its directory")
    assert not _running(server)
