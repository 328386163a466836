"""Runs missed while the server was down, with a real server: ``all`` runs every one late,
``latest`` (the default) runs the last one only, once the downtime is past ``misfire_grace``."""

from __future__ import annotations

import itertools
import time

import pytest

from cronlapse.service.codec import DOWNTIME
from cronlapse.service.store import open_journal_reader
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


def _resumed_at(server: Server) -> int | None:
    """The tick at which the restart ended the downtime (its journal row), once it is written:
    the tick the jobs resumed at, however long the restart took to answer."""
    reader = open_journal_reader(server.db_url)
    try:
        rows = [row.tick for row in reader.rows_after(0, 10_000) if row.verb == DOWNTIME]
    finally:
        reader.close()
    return rows[-1] if rows else None


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
    resumed = wait_until(lambda: _resumed_at(server), "the restart's downtime to be journaled")
    wait_until(
        lambda: max(_runs(server, "every-one"), default=0) >= resumed - INTERVAL,
        "the missed runs to run",
    )

    every = _runs(server, "every-one")
    assert every == list(range(every[0], every[-1] + 1, INTERVAL)), "a run of 'all' was skipped"
    coalesced = _runs(server, "coalesced")
    gaps = [later - earlier for earlier, later in itertools.pairwise(coalesced)]
    assert max(gaps) >= 5 * INTERVAL, f"no runs were skipped: {coalesced}"
    assert gaps.count(max(gaps)) == 1
    skipped_to = coalesced[gaps.index(max(gaps)) + 1]
    # The run after the gap is the last one due when the jobs resumed, not a later one.
    assert skipped_to <= resumed <= skipped_to + INTERVAL, "the latest missed run ran"
