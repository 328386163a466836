"""``cronlapse status``'s reading of a service's journal, on the memory store: jobs by status
word, workers, outbox, oldest waiting run and the journal's size (the command itself, on real
databases and a running server: test_status_cli.py)."""

from __future__ import annotations

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.status import status_of, status_text
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.views import iso
from tests.service.test_live import START, Wall, complete_running, open_live

BACKOFF = {"kind": "fixed", "base": 600}
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


def test_status_says_which_jobs_last_run_failed_and_what_they_do_now() -> None:
    """A recurring job whose first run failed reads ``created`` (its next run's word): status
    says that its last attempt failed, when, and what comes next (issue 36)."""
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=3)
    live.submit("schedule", {"id": "etl", "every": 3600})
    live.submit("schedule", {"id": "sync", "every": 3600, "max_retries": 1, "backoff": BACKOFF})
    live.submit("schedule", {"id": "fine", "every": 3600})
    wall.now += 10
    live.advance_clock()
    for job_id, ok in (("etl", False), ("sync", False), ("fine", True)):
        assert live.submit("complete", {"job": job_id, "scheduled": START, "attempt": 1, "ok": ok})
    failed_at = live.engine.now

    status = status_of(store)
    assert status.jobs["created"] == 2 and status.jobs["failed"] == 0
    assert [(f.job, f.failed, f.now) for f in status.failing] == [
        ("etl", failed_at, f"next run at {iso(START + 3600)}"),
        ("sync", failed_at, "retrying"),
    ]
    text = status_text(status)
    assert "failing   2 job(s) whose last attempt failed:" in text
    assert f"  etl       failed at {iso(failed_at)}; next run at {iso(START + 3600)}" in text
    assert f"  sync      failed at {iso(failed_at)}; retrying" in text
