"""Why? about what a run told its subscribers, its deadline, and a backfill still to create it."""

from __future__ import annotations

from tests.engine.explain_helpers import bundled, inline, why

OUTAGE = "notification-outage.yaml"


def test_a_dead_lettered_notification_says_each_try_and_why_it_failed() -> None:
    text = why(bundled(OUTAGE), "backup", 5, at=40)
    assert "Notifications" in text
    assert "failed (attempt 1) to slack #ops: DEAD, dead-lettered at tick 14 after 3 tries" in text
    assert "(max_tries 3)" in text
    assert "try 1 at tick 8: failed: slack is down from tick 5 to tick 16" in text
    assert "try 3 at tick 14: failed: slack is down from tick 5 to tick 16" in text


def test_a_delivered_notification_says_when_and_on_which_try() -> None:
    text = why(bundled(OUTAGE), "backup", 5, at=40)
    assert "failed (attempt 1) to email oncall@example.com: DELIVERED at tick 8, try 1" in text
    assert "succeeded (attempt 2) to slack #ops: DELIVERED at tick 17, try 3" in text


def test_a_pending_notification_says_when_it_is_tried_next() -> None:
    text = why(bundled(OUTAGE), "backup", 5, at=12)
    assert "succeeded (attempt 2) to slack #ops: PENDING, try 2 of 3 at tick 13" in text
    assert "try 1 at tick 11: failed: slack is down from tick 5 to tick 16" in text


def test_a_run_without_subscribers_has_no_notifications_section() -> None:
    text = why(bundled("worker-crash.yaml"), "hourly", 60, at=70)
    assert "Notifications" not in text


def test_a_missed_deadline_is_said_with_its_limit() -> None:
    text = why(bundled("semantics/deadline-airflow.yaml"), "report", 0, at=60)
    assert "missed its deadline at tick 20: not finished 20 ticks after its time" in text
    assert "deadline_missed (attempt 0) to slack #ops: DELIVERED at tick 20, try 1" in text


def test_a_deadline_still_ahead_says_by_when() -> None:
    text = why(bundled("semantics/deadline-airflow.yaml"), "report", 30, at=45)
    assert "its deadline: it must finish by tick 50, 20 ticks after its time" in text


def test_a_deadline_met_says_so() -> None:
    text = why(bundled("semantics/deadline-airflow.yaml"), "report", 60, at=120)
    assert "it finished within its deadline (tick 80)" in text


def test_a_run_a_backfill_is_still_to_create_says_so() -> None:
    text = why(bundled("semantics/backfill-airflow.yaml"), "extract", 120, at=205)
    assert "a backfill started at tick 200 is still to create it" in text
    assert "in order: it waits for extract@60 to end" in text
    assert "the backfill creates it at tick 210, if nothing changes" in text
    assert "a backfill can still create it" not in text


UNION = """
scenario: triggers
clock: {epoch: "2026-03-09T00:00:00+00:00", tick: 60, until: 1500}
policy: {order: fifo}
workers: [w1]
jobs:
  - {id: t, cron: ["0 2 * * *", "30 9 * * *"], repeat: 360, duration: 1}
"""


def test_a_run_of_several_triggers_says_which_fired_it() -> None:
    """The Calendar section was left out for union schedules: no trigger, no DST rule."""
    text = why(inline(UNION), "t", 570, at=600)
    assert "Calendar" in text
    assert "this run: its trigger cron 30 9 * * *" in text
    assert "no daylight-saving change moved this run" in text
    repeat = why(inline(UNION), "t", 480, at=600)
    assert "this run: a repeat, 360 ticks after its run at tick 120" in repeat
