"""The group commit's batches: one input's failure is that input's answer alone."""

from __future__ import annotations

import asyncio

import pytest

from cronlapse.service.inputs import Inputs
from engine.model.commands import Outcome, Result
from tests.waiting import PATIENCE

DONE = Result(Outcome.OK)


class _Store:
    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def append_many(self, rows: list[tuple]) -> list[int]:
        self.rows += rows
        return list(range(len(self.rows) - len(rows) + 1, len(self.rows) + 1))


class _Live:
    """The parts of a LiveService that a batch uses; reading ``broken`` fails as a bug would."""

    publisher = None

    def __init__(self) -> None:
        self.store = _Store()
        self.applied: list[str] = []

    def now(self) -> int:
        return 0

    def clock_due(self) -> None:
        return None

    def read(self, verb: str, args: dict, tick: int) -> str:
        if verb == "broken":
            raise RuntimeError("a reader's bug")
        return verb

    def apply_committed(self, seq: int, tick: int, verb: str, args: dict, decoded) -> Result:
        self.applied.append(verb)
        return DONE


def test_an_input_whose_reading_fails_is_answered_with_the_failure_and_the_batch_goes_on() -> None:
    live = _Live()
    inputs = Inputs(live)  # type: ignore[arg-type]

    async def batch() -> list:
        return await asyncio.gather(
            inputs.submit("schedule", {}),
            inputs.submit("broken", {}),
            inputs.submit("cancel", {}),
            return_exceptions=True,
        )

    first, failed, last = asyncio.run(asyncio.wait_for(batch(), timeout=PATIENCE))
    assert (first, last) == (DONE, DONE)
    assert isinstance(failed, RuntimeError)
    assert live.applied == ["schedule", "cancel"]
    assert [row[2] for row in live.store.rows] == ["schedule", "cancel"], "nothing else journaled"


def test_the_next_batch_is_served_after_a_failed_reading() -> None:
    inputs = Inputs(_Live())  # type: ignore[arg-type]

    async def two_batches() -> Result:
        with pytest.raises(RuntimeError):
            await inputs.submit("broken", {})
        return await inputs.submit("schedule", {})

    assert asyncio.run(asyncio.wait_for(two_batches(), timeout=PATIENCE)) == DONE
