"""A job's ``dst:`` rule (cron, kubernetes, nomad, systemd) in the service: taken by the API,
kept through its journal, a replay, a restart and ``cronlapse export --scenario`` (in-process,
on the memory store).

New York springs forward on 2026-03-08: 02:30 does not exist that night. Debian cron's rule
runs a 02:30 job once as the clock jumps; Kubernetes' skips that day's run. So the two rules
make different runs, and a stretch exported without the rule replays a run the service never
made."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import pytest
from export_helpers import scenario_events, service_events

from cronlapse.service.api import Api
from cronlapse.service.auth import Token
from cronlapse.service.codec import body_keys
from cronlapse.service.export import export_journal
from cronlapse.service.openapi import JOB_AMENDMENT, JOB_INPUT
from cronlapse.service.store.memory import MemoryStore
from engine.model.records import OccurrenceState
from engine.schedules.calendar import DstRule
from tests.service.test_live import Wall, complete_running, open_live

NIGHTLY = {"daily": "02:30", "timezone": "America/New_York"}
BEFORE_THE_CHANGE = datetime(2026, 3, 6, 12, tzinfo=UTC).timestamp()
SKIPPED_NIGHT = int(datetime(2026, 3, 8, 7, 0, tzinfo=UTC).timestamp())
"""03:00 EDT on 2026-03-08, where cron's rule runs the 02:30 that did not exist."""


def journal_over_the_change(rule: str | None) -> tuple[MemoryStore, Wall]:
    """A service whose job ``nightly`` (with ``rule``, or none) ran every night from the 6th to
    the 10th of March 2026, every run reported at once."""
    store, wall = MemoryStore(), Wall()
    wall.now = BEFORE_THE_CHANGE
    live = open_live(store, wall, workers=1)
    job = {"id": "nightly", **NIGHTLY} | ({} if rule is None else {"dst": rule})
    assert live.submit("schedule", job).accepted
    for _ in range(4 * 24):
        wall.now += 3600
        live.advance_clock()
        complete_running(live)
    return store, wall


def runs(store: MemoryStore, wall: Wall) -> list[int]:
    live = open_live(store, wall, workers=1)  # a restart: the journal replayed
    return sorted(tick for job, tick in live.engine.query.record_keys(OccurrenceState.SUCCEEDED))


def test_the_rule_makes_the_runs_and_survives_a_restart() -> None:
    cron_store, cron_wall = journal_over_the_change(None)
    kubernetes_store, kubernetes_wall = journal_over_the_change("kubernetes")
    assert SKIPPED_NIGHT in runs(cron_store, cron_wall)
    assert runs(kubernetes_store, kubernetes_wall) == [
        tick for tick in runs(cron_store, cron_wall) if tick != SKIPPED_NIGHT
    ]
    restarted = open_live(kubernetes_store, kubernetes_wall, workers=1)
    assert restarted.engine.query.job("nightly").spec.schedule.dst is DstRule.KUBERNETES


@pytest.mark.parametrize("rule", [rule.value for rule in DstRule])
def test_an_export_that_starts_after_the_jobs_creation_keeps_its_rule(rule: str) -> None:
    """The stretch starts on the 7th, so the job is written from the engine's definition, not
    from the journal's row: it was written without its rule, and its scenario ran cron's."""
    store, _ = journal_over_the_change(rule)
    stretch = export_journal(store, "memory:", "2026-03-07T12:00:00Z", None)
    job_line = next(line for line in stretch.text.splitlines() if '"schedule"' in line)
    assert (f'"dst": "{rule}"' in job_line) is (rule != DstRule.CRON.value)
    events, runner = scenario_events(stretch.text, stretch.start)
    assert runner.failures == [] and runner.rejections == []
    assert events == service_events(store, stretch.start, stretch.end)


def test_the_api_document_takes_the_rule_as_the_server_does() -> None:
    rules = sorted(rule.value for rule in DstRule)
    assert "dst" in body_keys("schedule") and "dst" in body_keys("modify")
    assert sorted(JOB_INPUT["properties"]["dst"]["examples"]) == rules
    amendment = JOB_AMENDMENT["oneOf"][0]["properties"]
    assert sorted(amendment["dst"]["examples"]) == rules


def test_a_new_calendar_time_given_through_the_api_keeps_the_jobs_rule() -> None:
    """``PUT`` with a new ``daily`` and no ``dst`` kept the zone but reset the rule to cron's
    (issue 36): the job's rule is added to the row, as its zone is, and ``GET`` shows it."""
    live = open_live(MemoryStore(), Wall(), workers=1)

    async def scenario() -> list[dict]:
        api = Api(live, Token("t", "test"))
        async with api.lifespan(None):
            transport = httpx.ASGITransport(app=api.app())
            headers = {"Authorization": "Bearer t"}
            async with httpx.AsyncClient(
                transport=transport, base_url="http://api", headers=headers
            ) as client:
                job = {"id": "nightly", **NIGHTLY, "dst": "kubernetes"}
                assert (await client.post("/job", json=job)).status_code == 201
                views = [(await client.get("/job/nightly")).json()]
                moved = await client.put("/job/nightly", json={"daily": "03:30"})
                assert moved.status_code == 204
                views.append((await client.get("/job/nightly")).json())
                assert (await client.put("/job/nightly", json={"every": 60})).status_code == 204
                views.append((await client.get("/job/nightly")).json())
                return views

    created, moved, interval = asyncio.run(scenario())
    assert moved["schedule"] != created["schedule"]
    assert moved["schedule"] == "cron 30 3 * * * (America/New_York, kubernetes's DST rule)"
    assert created["dst"] == moved["dst"] == "kubernetes"
    assert interval["dst"] is None, "an interval has no rule at DST changes"
