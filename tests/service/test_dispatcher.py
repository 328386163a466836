"""The active scheduler's dispatcher (cronlapse/service/roles/dispatch.py), on the memory store:
a worker process is handed only attempts the journal holds.

The active scheduler applies a batch before it commits it, and its event loop goes on during the
commit. A dispatch round that read the engine then handed a worker process an attempt the
journal did not hold yet: killed before the commit, the scheduler left it to a successor that
never started it, which deleted its row and, once the inbox gave it the job again, started the
same attempt anew, run a second time under the same attempt number (the SIGKILL of
tests/service/test_api_role.py::test_api_processes_schedulers_and_workers_killed_mid_run).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from cronlapse.service.config import Config
from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.read_model import ReadModel
from cronlapse.service.roles.dispatch import Dispatcher
from cronlapse.service.roles.publish import SchedulerPublisher
from cronlapse.service.roles.scheduler import LOST_EXIT
from cronlapse.service.store import AttemptId, Election
from cronlapse.service.store.memory import MemoryStore
from tests.service.store_contract import run
from tests.service.test_live import Wall, open_live
from tests.waiting import PATIENCE, until

WORKER = "w"
LEFT_HELD = 10
"""Commits let through at a test's end: more than any test holds."""


def _scheduler(store: MemoryStore, election: Election | None = None) -> LiveService:
    """The active scheduler on ``store``, elected (by ``election``, or a new one) and taken
    over, with no slot of its own."""
    election = election or store.election()
    assert election.try_take()
    store.journal.fence_with(election)
    store.dispatch.fence_with(election)
    scheduler = LiveService(store, open_live(store, Wall(), workers=0).clock, Config(workers=0))
    scheduler.load_snapshot()
    read_model = ReadModel(scheduler, Metrics())
    scheduler.on_events.append(read_model)
    scheduler.publisher = SchedulerPublisher(scheduler, read_model)
    scheduler.take_over()
    return scheduler


def _held_commits(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> threading.Semaphore:
    """Each journal append (a batch's commit) waits for a release of the semaphore returned."""
    commits = threading.Semaphore(0)
    append = store.journal.append

    def held(*args, **kwargs):
        assert commits.acquire(timeout=PATIENCE), "the test never let the commit through"
        return append(*args, **kwargs)

    monkeypatch.setattr(store.journal, "append", held)
    return commits


def _claimed(store: MemoryStore, slots: int) -> set[AttemptId]:
    """What the worker process claims now (an exchange: heartbeat, claim its slots' rows)."""
    names = [f"{WORKER}/{number}" for number in range(1, slots + 1)]
    return {assignment.key for assignment in store.workers.exchange(WORKER, names, {}, False)}


async def _applied(scheduler: LiveService, job_id: str) -> None:
    """Until the engine holds ``job_id`` (its batch applied, ahead of its commit)."""
    await until(lambda: job_id in scheduler.engine.query.jobs(), f"{job_id} applied")


@dataclass
class Dispatching:
    """An active scheduler whose dispatcher has registered a worker process's slots."""

    store: MemoryStore
    scheduler: LiveService
    inputs: Inputs
    dispatcher: Dispatcher
    commits: threading.Semaphore
    """Released once per batch to commit (see :func:`_held_commits`)."""


@contextlib.asynccontextmanager
async def _dispatching(slots: int, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Dispatching]:
    """The active scheduler, its dispatcher having registered ``slots`` slots of the worker
    process, and from here on its commits held; at the end every held commit goes through (a
    failed test leaves no thread waiting)."""
    store = MemoryStore()
    scheduler = _scheduler(store)
    inputs = Inputs(scheduler)
    dispatcher = Dispatcher(scheduler, inputs, store)
    store.workers.register(WORKER, slots)
    await dispatcher.round()
    assert len(scheduler.engine.query.workers()) == slots
    commits = _held_commits(store, monkeypatch)
    try:
        yield Dispatching(store, scheduler, inputs, dispatcher, commits)
    finally:
        commits.release(LEFT_HELD)


def test_an_attempt_reaches_a_worker_process_only_once_journaled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        async with _dispatching(1, monkeypatch) as at:
            created = asyncio.create_task(at.inputs.submit("schedule", {"id": "j"}))
            await _applied(at.scheduler, "j")
            assert at.scheduler.engine.query.workers()[f"{WORKER}/1"].running, "not journaled"
            dispatching = asyncio.create_task(at.dispatcher.round())
            # Done, having read the engine ahead of the journal, or waiting for the commit.
            await until(lambda: dispatching.done() or at.scheduler.reads_waiting, "the round")
            assert _claimed(at.store, 1) == set(), "a worker ran what a successor never started"
            at.commits.release()
            await created
            await dispatching
            assert _claimed(at.store, 1) == {("j", at.scheduler.engine.now, 1)}

    run(scenario())


def test_a_round_under_load_hands_out_what_the_last_commit_journaled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The next batch is applied as soon as one commits: a round that waited for no batch at
    all would wait as long as the load lasts; it reads the engine between the two."""

    async def scenario() -> None:
        async with _dispatching(2, monkeypatch) as at:
            first = asyncio.create_task(at.inputs.submit("schedule", {"id": "first"}))
            await _applied(at.scheduler, "first")
            dispatching = asyncio.create_task(at.dispatcher.round())
            second = asyncio.create_task(at.inputs.submit("schedule", {"id": "second"}))
            await until(
                lambda: at.inputs.waiting and at.scheduler.reads_waiting,
                "the second batch queued and the round waiting for the first's commit",
            )
            at.commits.release()  # the first batch commits; the second is applied, and held
            await first
            await _applied(at.scheduler, "second")
            await dispatching
            assert _jobs(_claimed(at.store, 2)) == {"first"}
            at.commits.release()
            await second
            await at.dispatcher.round()
            assert _jobs(_claimed(at.store, 2)) == {"first", "second"}

    run(scenario())


def _jobs(attempts: set[AttemptId]) -> set[str]:
    return {job_id for job_id, _, _ in attempts}


class Exited(Exception):
    """What ``os._exit`` raises in a test, with the status it was given."""


def test_a_deposed_scheduler_exits_at_its_next_dispatch_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scheduler whose election session was lost while its process lives goes on running
    rounds until its watch notices: the store refuses the round (the dispatch table's fence),
    and the process exits, as its watch would, rather than log the refusal and try again."""
    store = MemoryStore()
    election = store.election()
    scheduler = _scheduler(store, election)
    dispatcher = Dispatcher(scheduler, Inputs(scheduler), store)
    election.close()
    assert store.election().try_take(), "a successor holds the lock"

    def exit_(status: int) -> None:
        raise Exited(status)

    monkeypatch.setattr(os, "_exit", exit_)
    with pytest.raises(Exited) as exited:
        run(dispatcher.round())
    assert exited.value.args == (LOST_EXIT,)
