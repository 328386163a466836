"""One job's runs from a tick on (``query.runs(job_id=..., since=...)``, what ``GET
/job/{id}/runs`` pages by) are a seek in that job's runs; they must be exactly the rows the
listing of every job's runs gives for it, on an engine that archives and on one that keeps its
runs, after every command of the command fuzzer's programs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Engine
from engine.model.commands import RegisterWorker
from engine.model.policies import Policy
from tests.engine.test_command_fuzz import WORKER_IDS, command_of, freeze, policies, programs, specs

pytestmark = pytest.mark.integration


def pages_agree(engine: Engine) -> None:
    query = engine.query
    every = query.runs(limit=10**6).items
    for job_id in query.jobs():
        for since in (None, engine.now - 5, engine.now, engine.now + 5):
            wanted = [
                freeze(row)
                for row in every
                if row.job_id == job_id and (since is None or row.scheduled >= since)
            ]
            found = query.runs(job_id=job_id, since=since, limit=10**6).items
            assert [freeze(row) for row in found] == wanted, (job_id, since)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=policies,
    seed=st.integers(0, 2**16),
    archive=st.booleans(),
    jobs=st.lists(specs, max_size=3),
    program=programs,
)
def test_a_jobs_runs_from_a_tick_are_its_rows_in_the_whole_listing(
    policy: Policy, seed: int, archive: bool, jobs: list[dict], program: list[tuple]
) -> None:
    engine = Engine(policy, seed=seed, archive=archive)
    engine.apply(RegisterWorker(WORKER_IDS[0]))
    for step in [("schedule", fields) for fields in jobs] + program:
        engine.apply(command_of(step, engine))
        pages_agree(engine)
