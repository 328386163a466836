"""The same sweep on a Dask cluster: two workers on loopback, started and stopped here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sweep_helpers import cronlapse, write_queue

pytestmark = pytest.mark.e2e

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler_address() -> Iterator[str]:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_a_dask_cluster_gives_the_same_bytes_as_one_process(
    tmp_path: Path, scheduler_address: str
) -> None:
    queue = write_queue(tmp_path)
    sweep = ["sweep", str(queue), "--vary", "workers=1..4", "--vary", "policy.order=fifo,bogus"]
    sweep += ["--replicas", "2", "--metric", "max_wait", "--target", "max_wait <= 30"]
    on_cluster = cronlapse(*sweep, "--cluster", scheduler_address, "--json", "-")
    in_process = cronlapse(*sweep, "--processes", "1", "--json", "-")
    assert on_cluster == in_process
    status, out, _ = on_cluster
    assert status == 0
    assert '"met_by": 4' in out  # workers=3 fifo: variants run (1,fifo) (1,bogus) (2,fifo) ...
