"""The group commit's batches: one input's failure is that input's answer alone."""

from __future__ import annotations

import asyncio

import pytest

from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, open_live
from tests.waiting import PATIENCE


def _live_with_a_broken_reader() -> LiveService:
    """A service on the memory store whose reading of the verb ``broken`` fails, as a bug in a
    reader would."""
    live = open_live(MemoryStore(), Wall(), workers=1)
    reads = live.read

    def read(verb: str, args: dict, tick: int):
        if verb == "broken":
            raise RuntimeError("a reader's bug")
        return reads(verb, args, tick)

    live.read = read  # type: ignore[method-assign]
    return live


def test_an_input_whose_reading_fails_is_answered_with_the_failure_and_the_batch_goes_on() -> None:
    live = _live_with_a_broken_reader()
    inputs = Inputs(live)
    before = live.store.journal.last_seq()

    async def batch() -> list:
        return await asyncio.gather(
            inputs.submit("schedule", {"id": "a", "at": "+60"}),
            inputs.submit("broken", {}),
            inputs.submit("schedule", {"id": "b", "at": "+60"}),
            return_exceptions=True,
        )

    first, failed, last = asyncio.run(asyncio.wait_for(batch(), timeout=PATIENCE))
    assert first.accepted and last.accepted
    assert isinstance(failed, RuntimeError)
    assert sorted(live.engine.query.jobs()) == ["a", "b"]
    rows = list(live.store.journal.rows_after(before))
    assert [(row.verb, row.args["id"]) for row in rows] == [("schedule", "a"), ("schedule", "b")]


def test_the_next_batch_is_served_after_a_failed_reading() -> None:
    inputs = Inputs(_live_with_a_broken_reader())

    async def two_batches():
        with pytest.raises(RuntimeError):
            await inputs.submit("broken", {})
        return await inputs.submit("schedule", {"id": "a", "at": "+60"})

    assert asyncio.run(asyncio.wait_for(two_batches(), timeout=PATIENCE)).accepted
