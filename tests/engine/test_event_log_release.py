"""The event log's release: a reader that has read the first events lets the log forget them,
and every index stays that of the whole log."""

from __future__ import annotations

import pickle

import pytest

from engine.model import events as ev
from engine.model.event_log import EventLog


def _log(count: int) -> EventLog:
    log = EventLog()
    for tick in range(count):
        log.add(ev.WorkerRegistered, tick, f"w{tick}")
    return log


def test_a_released_log_reads_its_later_events_at_their_indexes() -> None:
    whole, log = list(_log(10)), _log(10)
    log.release(4)
    assert (len(log), log.base, log.mark()) == (10, 4, 10)
    assert log[4:] == whole[4:] and log[9:3:-1] == whole[9:3:-1]
    assert log[-1] == whole[-1] and log[5] == whole[5]
    assert list(log) == whole[4:]
    assert [index for index, _ in log.select([ev.WorkerRegistered], 6)] == [6, 7, 8, 9]
    assert [fields for _, fields in log.stored_since(8)] == [(8, "w8"), (9, "w9")]
    code = ev.WorkerRegistered.code  # type: ignore[attr-defined]
    assert list(log.coded_since(8)) == [(code, (8, "w8")), (code, (9, "w9"))]
    assert log.first_index_at(6) == 6
    assert log.since(7) == whole[7:]
    log.truncate(7)
    assert len(log) == 7 and list(log) == whole[4:7]


@pytest.mark.parametrize(
    "read",
    [
        lambda log: log[3],
        lambda log: log[2:6],
        lambda log: log.since(0),
        lambda log: log.coded_since(2),
    ],
)
def test_reading_a_released_event_is_an_error(read) -> None:
    log = _log(10)
    log.release(4)
    with pytest.raises(IndexError, match=r"released|kept"):
        read(log)


def test_release_never_goes_back_nor_past_the_end() -> None:
    log = _log(5)
    log.release(3)
    log.release(1)
    assert log.base == 3
    with pytest.raises(IndexError):
        log.release(6)


def test_a_released_log_pickles_with_its_base() -> None:
    log = _log(6)
    log.release(2)
    copy = pickle.loads(pickle.dumps(log))
    assert (len(copy), copy.base, list(copy)) == (6, 2, list(log))
    assert pickle.loads(pickle.dumps(_log(3))).base == 0


def test_count_counts_the_events_of_one_exact_kind_from_the_start() -> None:
    log = _log(3)
    log.add(ev.WorkerWentDown, 3, "w0")
    assert log.count(ev.WorkerRegistered) == 3
    assert log.count(ev.WorkerWentDown) == 1
    assert log.count(ev.WorkerCameUp) == 0


def test_stored_of_gives_the_kinds_asked_for_as_stored_in_order_past_a_release() -> None:
    log = _log(3)
    log.add(ev.WorkerWentDown, 3, "w0")
    log.add(ev.WorkerCameUp, 4, "w0")
    log.release(1)
    wanted = (ev.WorkerRegistered, ev.WorkerCameUp)
    assert list(log.stored_of(wanted, 2)) == [
        (ev.WorkerRegistered, (2, "w2")),
        (ev.WorkerCameUp, (4, "w0")),
    ]
    assert list(log.stored_of((ev.WorkerWentDown,), 1)) == [(ev.WorkerWentDown, (3, "w0"))]


def test_each_event_kind_is_numbered_once_as_its_module_names_it() -> None:
    """``dataclass(slots=True)`` makes a new class and leaves the first a subclass of the base:
    numbered too, each kind took two codes of the byte that stores one."""
    names = [kind.__name__ for kind in ev.EVENT_KINDS]
    assert len(names) == len(set(names))
    assert all(getattr(ev, kind.__name__) is kind for kind in ev.EVENT_KINDS)
    assert [kind.code for kind in ev.EVENT_KINDS] == list(range(len(ev.EVENT_KINDS)))
