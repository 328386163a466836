"""``cronlapse status``'s reading of a service's journal, on the memory store: jobs by status
word, workers, outbox, oldest waiting run and the journal's size (the command itself, on real
databases and a running server: test_status_cli.py)."""

from __future__ import annotations

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.status import status_of
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, complete_running, open_live

NOTIFY = [{"on": ["succeeded"], "channel": "slack", "to": "#ops"}]


def test_status_counts_what_the_live_service_holds() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    live.submit("schedule", {"id": "first", "notify": NOTIFY})
    live.submit("schedule", {"id": "second"})
    live.submit("schedule", {"id": "later", "at": "+3600"})
    live.submit("schedule", {"id": "gone", "at": "+7200"})
    live.submit("delete", {"job": "gone"})
    wall.now += 30
    live.advance_clock()

    status = status_of(store)
    assert status.jobs == {
        "created": 1,
        "scheduled": 1,
        "running": 1,
        "succeeded": 0,
        "failed": 0,
        "cancelled": 0,
    }
    assert status.deleted_jobs == 1
    assert [(w["id"], w["state"], w["running"]["job"]) for w in status.workers] == [
        ("w1", "busy", "first")
    ]
    assert status.oldest_waiting is not None
    assert (status.oldest_waiting.job, status.oldest_waiting.waited) == ("second", 0)
    assert status.journal.rows == 6  # register w1, four schedules and a delete; no clock row

    live = open_live(store, wall, workers=1)
    complete_running(live)
    status = status_of(store)
    assert status.outbox == {"queued": 1, "delivered": 0, "dead": 0}  # until its deliverer reports

    live = open_live(store, wall, workers=1)
    for notice in due_notices(live).values():
        assert live.submit(DELIVERY, delivery_input(notice, True)).accepted
    live.snapshot()
    status = status_of(store)
    assert status.outbox == {"queued": 0, "delivered": 1, "dead": 0}
    assert status.outbox_by_channel == {"slack": {"queued": 0, "delivered": 1, "dead": 0}}
    assert status.jobs["succeeded"] == 1
    assert status.journal.snapshot_at == status.journal.rows
