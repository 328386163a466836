"""What an input costs the server, counted rather than timed (issue 36: in a burst of 2,000 runs,
rebuilding the running launches after every input, a datetime conversion per running attempt,
took 12% of the server's time, and re-reading its own completion reports through the scenario
reader 9%).

The API runs in-process on the memory store, its lifespan entered as uvicorn enters it; its
attempts never end unless the test says so."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter

import pytest

from cronlapse.service import live as live_module
from cronlapse.service import running, server
from cronlapse.service.api import Api
from cronlapse.service.auth import Token
from cronlapse.service.executors import Executors, Launch
from cronlapse.service.store.memory import MemoryStore
from engine.model.records import OccurrenceState
from tests.service.test_live import Wall, answers, open_live
from tests.waiting import until

RUNNING = 200


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Counts the datetime conversions of the launches and the inputs decoded (by the direct
    decoder or the scenario reader), by verb."""
    counts: Counter = Counter()
    iso, decode = running.iso, live_module.decode

    def counting_iso(tick: int) -> str | None:
        counts["iso"] += 1
        return iso(tick)

    def counting_decode(verb: str, *args):
        counts[f"{verb} read"] += 1
        return decode(verb, *args)

    monkeypatch.setattr(running, "iso", counting_iso)
    monkeypatch.setattr(live_module, "decode", counting_decode)
    return counts


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> list[Launch]:
    """Executors whose attempts run until the test ends; the launches they were given."""
    launched: list[Launch] = []

    async def run_for_ever(self: Executors, launch: Launch) -> None:
        launched.append(launch)
        await asyncio.Event().wait()

    monkeypatch.setattr(Executors, "_run", run_for_ever)
    return launched


def test_an_input_costs_no_conversion_per_running_attempt(counted: Counter, endless) -> None:
    live = open_live(MemoryStore(), Wall(), workers=RUNNING + 1)

    async def scenario() -> int:
        api = Api(live, Token("t", "test"))
        async with api.lifespan(None):
            for number in range(RUNNING):
                await api.inputs.submit("schedule", {"id": f"j{number}"})
            await until(lambda: len(endless) == RUNNING, "every attempt launched")
            running_now = len(list(live.engine.query.record_keys(OccurrenceState.RUNNING)))
            assert running_now == len(endless) == RUNNING
            counted.clear()
            await api.inputs.submit("schedule", {"id": "one-more"})
            await until(lambda: len(endless) == RUNNING + 1, "the new attempt launched")
            return counted["iso"]

    assert asyncio.run(scenario()) <= 1, "only the attempt the input started is converted"


def test_the_servers_own_completion_reports_are_not_read_again(counted: Counter) -> None:
    """The server builds the command of its executors' reports; a replay reads the journaled
    arguments into the same one."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=2)

    async def scenario() -> None:
        api = Api(live, Token("t", "test"))
        async with api.lifespan(None):
            await api.inputs.submit("schedule", {"id": "now"})
            await until(
                lambda: list(live.engine.query.record_keys(OccurrenceState.SUCCEEDED)),
                "the run reported succeeded",
            )

    asyncio.run(scenario())
    assert counted["schedule read"] == 1, "the reader is the one counted"
    assert counted["complete read"] == 0
    assert answers(open_live(store, wall, workers=2)) == answers(live)


def test_the_server_lets_its_event_loop_have_the_gil_back_quickly() -> None:
    """At the interpreter's 5 ms, the loop woken by a journal commit waited behind the logger's
    thread for the GIL: 500 jobs due every second on 4 slots missed 5,800 of 15,000 runs
    (issue 36, benchmarks/peers.py's interval workload)."""
    before = sys.getswitchinterval()
    try:
        server.prefer_the_loop()
        assert sys.getswitchinterval() <= 0.001
    finally:
        sys.setswitchinterval(before)
