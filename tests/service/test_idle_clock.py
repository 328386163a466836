"""Time moves on an idle server: with nothing to do, the engine follows the clock without a
journal row, so a run's word turns from ``created`` to ``scheduled`` as its time nears and
``/health``'s tick is the clock's; a replay, whose time moves only with the rows, builds the
same state.

It used to move only with inputs: a job due in 124 s read ``created`` until an input came."""

from __future__ import annotations

import asyncio

from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.views import job_json
from tests.service.test_live import START, Wall, answers, complete_running, open_live


def status(live: LiveService, job_id: str) -> str:
    job = live.engine.query.live_job(job_id)
    assert job is not None
    return job_json(live.state, job)["status"]


def rows(store: MemoryStore) -> int:
    return len(list(store.journal.rows_after(0)))


def test_an_idle_server_follows_the_clock_without_journaling() -> None:
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    inputs = Inputs(live)
    live.submit("schedule", {"id": "later", "every": 3600, "first": "+124"})
    journaled = rows(store)
    wall.now += 4  # 120 s before its time: not yet within the two minutes
    asyncio.run(inputs.clock())
    assert (status(live, "later"), live.engine.now) == ("created", START + 4)
    wall.now += 1
    asyncio.run(inputs.clock())
    assert (status(live, "later"), live.engine.now) == ("scheduled", START + 5)
    assert rows(store) == journaled, "nothing happened but the time: nothing to journal"
    wall.now += 119  # its time: a clock reading is journaled, the run starts
    asyncio.run(inputs.clock())
    assert status(live, "later") == "running" and rows(store) == journaled + 1
    complete_running(live)
    restarted = open_live(store, wall, workers=1)
    assert answers(restarted) == answers(live)


def test_a_batch_on_its_way_keeps_the_engines_time() -> None:
    """A batch is read at one tick and applied after its commit: the engine must not pass that
    tick meanwhile."""
    store, wall = MemoryStore(), Wall()
    live = open_live(store, wall, workers=1)
    inputs = Inputs(live)

    async def scenario() -> int:
        submitted = asyncio.get_running_loop().create_task(
            inputs.submit("schedule", {"id": "a", "every": 3600, "first": "+600"})
        )
        await asyncio.sleep(0)  # the batch is on its way
        wall.now += 30
        await inputs.clock()
        moved_to = live.engine.now
        await submitted
        return moved_to

    assert asyncio.run(scenario()) == START
