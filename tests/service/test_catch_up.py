"""Runs missed while the server was down, with a real server: ``all`` runs every one late,
``latest`` (the default) runs the last one only, once the downtime is past ``misfire_grace``."""

from __future__ import annotations

import itertools
import time

import pytest

from tests.service.conftest import Server
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e

SPEED = "20"
INTERVAL = 10
"""Ticks between runs: half a second of wall time at this speed."""


def _runs(server: Server, job_id: str) -> list[int]:
    with server.client() as client:
        page = client.get(f"/job/{job_id}/runs", params={"limit": 500}).json()
    return [run["tick"] for run in page["runs"] if run["status"] == "succeeded"]


def test_missed_runs_follow_each_jobs_catch_up(make_server) -> None:
    server: Server = make_server(config="workers: 2\nmisfire_grace: 20\n", speed=SPEED)
    with server.client() as client:
        for job_id, catch_up in (("every-one", "all"), ("coalesced", "latest")):
            job = {"id": job_id, "every": INTERVAL, "first": "+5", "catch_up": catch_up}
            assert client.post("/job", json=job).status_code == 201
    wait_until(lambda: _runs(server, "every-one") and _runs(server, "coalesced"), "a run of each")
    server.kill()
    time.sleep(4)  # the scenario: 80 ticks down or more, about 8 runs of each job missed
    server.start()
    with server.client() as client:
        restarted = client.get("/health").json()["tick"]
    wait_until(
        lambda: max(_runs(server, "every-one"), default=0) >= restarted - INTERVAL,
        "the missed runs to run",
    )

    every = _runs(server, "every-one")
    assert every == list(range(every[0], every[-1] + 1, INTERVAL)), "a run of 'all' was skipped"
    coalesced = _runs(server, "coalesced")
    gaps = [later - earlier for earlier, later in itertools.pairwise(coalesced)]
    assert max(gaps) >= 5 * INTERVAL, f"no runs were skipped: {coalesced}"
    assert gaps.count(max(gaps)) == 1
    skipped_to = coalesced[gaps.index(max(gaps)) + 1]
    # The run after the gap is the last one missed (the restart's clock had passed it), not a
    # later one: the server was answering within a few ticks of resuming the job.
    assert skipped_to <= restarted < skipped_to + 4 * INTERVAL, "the latest missed run ran"
