"""The one write path (cronlapse/service/write_path.py), on the memory store: what a batch
journals, what it applies, and what a failed journal write does, for the single process and for
the active scheduler."""

from __future__ import annotations

import pytest

from cronlapse.service.codec import InputInvalid
from cronlapse.service.config import Config
from cronlapse.service.inbox import decode_answer
from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.read_model import ReadModel
from cronlapse.service.roles.publish import SchedulerPublisher
from cronlapse.service.store import StoreFailure
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.write_path import Input, write_now
from tests.service.test_live import Wall, open_live

JOB = {"id": "a", "at": "+60"}
REFUSED = {"id": "x", "every": 0}


class Diverged(Exception):
    """Raised where the scheduler would exit."""


def _failing_appends(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> StoreFailure:
    failure = StoreFailure("the disk is gone", "OperationalError")

    def append(*_args, **_kwargs):
        raise failure

    monkeypatch.setattr(store.journal, "append", append)
    return failure


def _scheduler(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> LiveService:
    """The active scheduler on ``store``, elected and taken over, whose exits raise
    :class:`Diverged`."""
    election = store.election()
    assert election.try_take()
    store.journal.fence_with(election)
    live = open_live(store, Wall(), workers=1)  # the single process's journal, its worker
    scheduler = LiveService(store, live.clock, Config(workers=0))
    scheduler.load_snapshot()
    read_model = ReadModel(scheduler, Metrics())
    scheduler.on_events.append(read_model)
    scheduler.publisher = SchedulerPublisher(scheduler, read_model)

    def diverged(error: BaseException):
        raise Diverged(error)

    monkeypatch.setattr(scheduler, "diverged", diverged)
    scheduler.take_over()
    return scheduler


def test_the_single_process_journals_a_batch_then_applies_it_in_order() -> None:
    store = MemoryStore()
    live = open_live(store, Wall(), workers=1)
    before = store.journal.last_seq()
    answers = write_now(live, [Input("schedule", JOB), Input("schedule", REFUSED)])
    assert answers[0] is not None and not isinstance(answers[0], BaseException)
    assert answers[0].accepted
    assert isinstance(answers[1], InputInvalid), "refused by the readers: never journaled"
    assert [row.args for row in store.journal.rows_after(before)] == [JOB]
    assert live.state.seq == store.journal.last_seq() == before + 1


def test_the_single_process_applies_nothing_of_a_batch_it_could_not_journal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    live = open_live(store, Wall(), workers=1)
    failure = _failing_appends(store, monkeypatch)
    answers = write_now(live, [Input("schedule", JOB), Input("schedule", REFUSED)])
    assert answers[0] is failure
    assert isinstance(answers[1], InputInvalid)
    assert "a" not in live.engine.query.jobs()


def test_the_scheduler_journals_answers_with_their_rows_and_rebuilds_the_read_model_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    open_live(store, Wall(), workers=1).submit("schedule", {"id": "early", "at": "+60"})
    scheduler = _scheduler(store, monkeypatch)
    assert store.views.position() == store.journal.last_seq()
    assert store.views.job("early") is not None, "written by the single process: rebuilt"
    good, bad = store.inbox.write("schedule", JOB), store.inbox.write("schedule", REFUSED)
    taken = store.inbox.take(1)
    write_now(scheduler, [Input(row.verb, row.args, row.seq) for row in taken])
    assert decode_answer(store.inbox.take_answer(good) or "").accepted
    with pytest.raises(InputInvalid):
        decode_answer(store.inbox.take_answer(bad) or "")
    assert store.views.job("a") is not None
    assert store.views.position() == store.journal.last_seq() == scheduler.state.seq


def test_a_scheduler_that_cannot_journal_what_it_applied_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    scheduler = _scheduler(store, monkeypatch)
    _failing_appends(store, monkeypatch)
    with pytest.raises(Diverged):
        write_now(scheduler, [Input("schedule", JOB)])


def test_a_scheduler_that_cannot_journal_refusals_alone_answers_them_with_the_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryStore()
    scheduler = _scheduler(store, monkeypatch)
    seq = store.inbox.write("schedule", REFUSED)
    failure = _failing_appends(store, monkeypatch)
    assert write_now(scheduler, [Input("schedule", REFUSED, seq)]) == [failure]
