"""Seed 000's CronJobScheduler, call by call, against the specification and the decided rules.

Every expected value here is written out by hand from the specification's text
(/work/shared/seeds/000_*.txt) and the project's decided rules for what the text leaves open:
Java ``String.compareTo`` order (UTF-16 code units), out-of-constraint values rejected like invalid
calls, TypeError for a wrong type, ValueError for a current time going backwards, status by
arithmetic that never creates anything, QUEUED only after a dispatch made after the job was
scheduled.
"""

from __future__ import annotations

import sys

import pytest

from engine import CronJobScheduler

MAX_TIME = 10**12


def snapshot(scheduler: CronJobScheduler) -> tuple:
    """Everything a call could change, as plain values: time, jobs, occurrences, workers, log."""
    engine = scheduler.engine
    return (
        engine.now,
        sorted(engine.query.jobs()),
        {
            key: (
                occurrence.state.value,
                [(a.number, a.worker_id, a.outcome.value) for a in occurrence.attempts],
            )
            for key, occurrence in engine.query.records().items()
        },
        {worker_id: worker.running for worker_id, worker in engine.query.workers().items()},
        len(engine.log),
    )


def without_time(state: tuple) -> tuple:
    return state[1:]


def one_worker_one_job(max_retries: int = 1, interval: int = 0) -> CronJobScheduler:
    """Worker "w"; job "j" first due at 0."""
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("j", 0, interval, max_retries, 0) is True
    return s


# --------------------------------------------------------------------- the three examples, verbatim


def test_example_1_recurring_job_and_worker_ordering() -> None:
    scheduler = CronJobScheduler()
    assert scheduler.registerWorker("worker-b") is True
    assert scheduler.registerWorker("worker-a") is True
    assert scheduler.scheduleJob("inventory-sync", 10, 5, 1, 0) is True
    assert scheduler.dispatchJobs(9) == []
    assert scheduler.getJobStatus("inventory-sync", 10, 9) == "SCHEDULED"
    assert scheduler.dispatchJobs(10) == ["inventory-sync,10,1,worker-a"]
    assert scheduler.completeJob("inventory-sync", 10, 1, True, 11) is True
    assert scheduler.getJobStatus("inventory-sync", 10, 11) == "SUCCEEDED"
    assert scheduler.dispatchJobs(15) == ["inventory-sync,15,1,worker-a"]


def test_example_2_retry_and_attempt_identification() -> None:
    scheduler = CronJobScheduler()
    assert scheduler.registerWorker("worker-7") is True
    assert scheduler.scheduleJob("daily-report", 20, 0, 1, 0) is True
    assert scheduler.dispatchJobs(20) == ["daily-report,20,1,worker-7"]
    assert scheduler.completeJob("daily-report", 20, 1, False, 21) is True
    assert scheduler.getJobStatus("daily-report", 20, 21) == "RETRY_PENDING"
    assert scheduler.dispatchJobs(21) == ["daily-report,20,2,worker-7"]
    assert scheduler.completeJob("daily-report", 20, 1, True, 22) is False
    assert scheduler.getJobStatus("daily-report", 20, 22) == "RUNNING"
    assert scheduler.completeJob("daily-report", 20, 2, False, 23) is True
    assert scheduler.getJobStatus("daily-report", 20, 23) == "FAILED"


def test_example_3_deterministic_dispatch_and_duplicate_prevention() -> None:
    scheduler = CronJobScheduler()
    assert scheduler.registerWorker("worker-z") is True
    assert scheduler.registerWorker("worker-a") is True
    assert scheduler.scheduleJob("beta", 30, 0, 0, 0) is True
    assert scheduler.scheduleJob("alpha", 30, 0, 0, 0) is True
    assert scheduler.dispatchJobs(30) == ["alpha,30,1,worker-a", "beta,30,1,worker-z"]
    assert scheduler.dispatchJobs(30) == []


def test_camel_case_names_are_aliases() -> None:
    assert CronJobScheduler.registerWorker is CronJobScheduler.register_worker
    assert CronJobScheduler.scheduleJob is CronJobScheduler.schedule_job
    assert CronJobScheduler.dispatchJobs is CronJobScheduler.dispatch_jobs
    assert CronJobScheduler.completeJob is CronJobScheduler.complete_job
    assert CronJobScheduler.getJobStatus is CronJobScheduler.get_job_status


# ---------------------------------------------------------------------------------- constructor


def test_new_scheduler_is_empty_at_time_zero() -> None:
    s = CronJobScheduler()
    assert s.engine.now == 0
    assert s.engine.query.workers() == {}
    assert s.engine.query.jobs() == {}
    assert s.engine.query.records() == {}
    assert s.get_job_status("anything", 0, 0) == ""
    assert s.dispatch_jobs(0) == []
    assert s.complete_job("anything", 0, 1, True, 0) is False


def test_schedulers_are_independent() -> None:
    first, second = CronJobScheduler(), CronJobScheduler()
    assert first.register_worker("w") is True
    assert first.schedule_job("j", 5, 0, 0, 5) is True
    assert second.engine.now == 0
    assert second.register_worker("w") is True
    assert second.schedule_job("j", 0, 0, 0, 0) is True
    assert second.dispatch_jobs(0) == ["j,0,1,w"]


# ------------------------------------------------------------------------------- registerWorker


def test_register_worker_returns_true_and_the_worker_is_available() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert list(s.engine.query.workers()) == ["w1"]
    assert s.schedule_job("j", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w1"]


@pytest.mark.parametrize(
    "blank", ["", " ", "   ", "\t", "\n", " \t\r\n\x0b\x0c", "\u3000", "\u2028"]
)
def test_register_worker_rejects_blank_ids(blank: str) -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    before = snapshot(s)
    assert s.register_worker(blank) is False
    assert snapshot(s) == before


def test_register_worker_rejects_an_already_registered_id() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    before = snapshot(s)
    assert s.register_worker("w") is False
    assert snapshot(s) == before
    assert list(s.engine.query.workers()) == ["w"]


def test_duplicate_registration_of_a_busy_worker_leaves_it_busy() -> None:
    s = one_worker_one_job()
    assert s.schedule_job("k", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.register_worker("w") is False
    assert s.dispatch_jobs(0) == []
    assert s.get_job_status("k", 0, 0) == "QUEUED"


def test_worker_ids_are_stored_exactly_as_given_and_never_trimmed() -> None:
    s = CronJobScheduler()
    assert s.register_worker(" a") is True
    assert s.register_worker("a") is True
    assert s.register_worker("a ") is True
    assert s.register_worker(" a") is False
    assert sorted(s.engine.query.workers()) == [" a", "a", "a "]
    for job_id in ("j1", "j2", "j3"):
        assert s.schedule_job(job_id, 0, 0, 0, 0) is True
    # " a" < "a" < "a " (space 0x20 sorts first; a prefix sorts before a longer string).
    assert s.dispatch_jobs(0) == ["j1,0,1, a", "j2,0,1,a", "j3,0,1,a "]


def test_register_worker_id_length_limit() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w" * 100) is True
    before = snapshot(s)
    assert s.register_worker("x" * 101) is False
    assert snapshot(s) == before


@pytest.mark.parametrize("worker_id", [",", "a,b", "worker,", ",worker"])
def test_register_worker_rejects_commas(worker_id: str) -> None:
    s = CronJobScheduler()
    assert s.register_worker(worker_id) is False
    assert s.engine.query.workers() == {}


def test_register_worker_never_touches_time() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(50) == []
    assert s.register_worker("w") is True
    assert s.register_worker("w") is False
    assert s.register_worker("") is False
    assert s.engine.now == 50
    assert s.dispatch_jobs(50) == []


def test_a_worker_registered_later_is_available_to_the_next_dispatch() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("j", 5, 0, 0, 0) is True
    assert s.dispatch_jobs(5) == []
    assert s.get_job_status("j", 5, 6) == "QUEUED"
    assert s.register_worker("late") is True
    assert s.get_job_status("j", 5, 6) == "QUEUED"
    assert s.dispatch_jobs(7) == ["j,5,1,late"]


def test_many_workers_are_used_in_java_order() -> None:
    s = CronJobScheduler()
    worker_ids = [f"worker-{n}" for n in range(12)]
    for worker_id in reversed(worker_ids):
        assert s.register_worker(worker_id) is True
    for n in range(12):
        assert s.schedule_job(f"job-{n:02d}", 0, 0, 0, 0) is True
    # "worker-1" < "worker-10" < "worker-11" < "worker-2" < ... (character by character).
    expected_workers = ["worker-0", "worker-1", "worker-10", "worker-11"]
    expected_workers += [f"worker-{n}" for n in range(2, 10)]
    assert s.dispatch_jobs(0) == [
        f"job-{n:02d},0,1,{worker}" for n, worker in enumerate(expected_workers)
    ]


# ---------------------------------------------------------------------------------- scheduleJob


def test_schedule_job_one_time_has_exactly_one_occurrence() -> None:
    s = CronJobScheduler()
    for worker_id in ("w1", "w2", "w3"):
        assert s.register_worker(worker_id) is True
    assert s.schedule_job("once", 20, 0, 0, 0) is True
    assert s.get_job_status("once", 20, 0) == "SCHEDULED"
    assert s.get_job_status("once", 0, 0) == ""
    assert s.get_job_status("once", 19, 0) == ""
    assert s.get_job_status("once", 21, 0) == ""
    assert s.get_job_status("once", 40, 0) == ""
    assert s.dispatch_jobs(1000) == ["once,20,1,w1"]
    assert s.complete_job("once", 20, 1, True, 1000) is True
    assert s.dispatch_jobs(5000) == []
    assert s.get_job_status("once", 20, 5000) == "SUCCEEDED"
    assert s.get_job_status("once", 1000, 5000) == ""


def test_schedule_job_recurring_occurrences_every_interval() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("rec", 7, 3, 0, 0) is True
    for t in (7, 10, 13, 16, 307, 7 + 3 * 10**9):
        assert s.get_job_status("rec", t, 0) == "SCHEDULED"
    for t in (0, 4, 6, 8, 9, 11, 12, 14, 308):
        assert s.get_job_status("rec", t, 0) == ""


def test_schedule_job_first_run_may_equal_current_time() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("now", 25, 0, 0, 25) is True
    assert s.dispatch_jobs(25) == ["now,25,1,w"]


def test_schedule_job_rejects_a_first_run_earlier_than_the_current_time() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(10) == []
    before = snapshot(s)
    assert s.schedule_job("late", 9, 0, 0, 10) is False
    assert s.schedule_job("late", 0, 5, 0, 10) is False
    assert s.schedule_job("late", 5, 5, 0, 11) is False
    assert without_time(snapshot(s)) == without_time(before)
    assert s.get_job_status("late", 9, 11) == ""
    # Nothing was created, so the id is still free.
    assert s.schedule_job("late", 11, 0, 0, 11) is True
    assert s.get_job_status("late", 11, 11) == "SCHEDULED"


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000 "])
def test_schedule_job_rejects_blank_ids(blank: str) -> None:
    s = CronJobScheduler()
    assert s.schedule_job(blank, 0, 0, 0, 0) is False
    assert s.engine.query.jobs() == {}
    assert s.get_job_status(blank, 0, 0) == ""


def test_schedule_job_rejects_a_duplicate_id_and_keeps_the_original() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("dup", 10, 10, 0, 0) is True
    before = snapshot(s)
    assert s.schedule_job("dup", 15, 0, 3, 0) is False
    assert s.schedule_job("dup", 10, 10, 0, 0) is False
    assert snapshot(s) == before
    assert s.get_job_status("dup", 15, 0) == ""
    assert s.get_job_status("dup", 20, 0) == "SCHEDULED"
    assert s.dispatch_jobs(15) == ["dup,10,1,w"]
    # maxRetries is still 0: a failure is final.
    assert s.complete_job("dup", 10, 1, False, 16) is True
    assert s.get_job_status("dup", 10, 16) == "FAILED"
    # A job that has already run is still a duplicate.
    assert s.schedule_job("dup", 100, 0, 0, 16) is False


def test_job_ids_are_stored_exactly_as_given_and_never_trimmed() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.register_worker("w3") is True
    assert s.schedule_job("a", 0, 0, 0, 0) is True
    assert s.schedule_job(" a", 0, 0, 0, 0) is True
    assert s.schedule_job("a ", 0, 0, 0, 0) is True
    assert s.schedule_job("a", 5, 0, 0, 0) is False
    assert s.get_job_status(" a", 0, 0) == "SCHEDULED"
    assert s.get_job_status(" a ", 0, 0) == ""
    assert s.dispatch_jobs(0) == ["\u0020a,0,1,w1", "a,0,1,w2", "a ,0,1,w3"]


def test_schedule_job_boundary_values_are_accepted() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("j" * 100, 0, 0, 0, 0) is True
    assert s.schedule_job("max-first", MAX_TIME, 0, 0, 0) is True
    assert s.schedule_job("max-interval", 0, 10**9, 0, 0) is True
    assert s.schedule_job("max-retries", 0, 1, 10, 0) is True
    assert s.get_job_status("max-first", MAX_TIME, 0) == "SCHEDULED"
    assert s.get_job_status("max-interval", 10**9, 0) == "SCHEDULED"
    assert s.schedule_job("max-now", MAX_TIME, 0, 0, MAX_TIME) is True
    assert s.engine.now == MAX_TIME


@pytest.mark.parametrize(
    ("job_id", "first", "interval", "max_retries"),
    [
        ("x" * 101, 0, 0, 0),
        ("a,b", 0, 0, 0),
        (",", 0, 0, 0),
        ("j", MAX_TIME + 1, 0, 0),
        ("j", -1, 0, 0),
        ("j", 0, -1, 0),
        ("j", 0, 10**9 + 1, 0),
        ("j", 0, 0, -1),
        ("j", 0, 0, 11),
    ],
)
def test_schedule_job_rejects_out_of_constraint_values(
    job_id: str, first: int, interval: int, max_retries: int
) -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    before = snapshot(s)
    assert s.schedule_job(job_id, first, interval, max_retries, 0) is False
    assert snapshot(s) == before
    assert s.dispatch_jobs(MAX_TIME) == []


def test_a_rejected_schedule_job_still_moves_time() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("", 60, 0, 0, 50) is False
    assert s.engine.now == 50
    with pytest.raises(ValueError):
        s.dispatch_jobs(40)
    assert s.engine.now == 50
    assert s.schedule_job("ok", 50, 0, 0, 50) is True


@pytest.mark.parametrize("current_time", [-1, -(10**15), MAX_TIME + 1])
def test_schedule_job_with_an_out_of_range_time_changes_nothing_not_even_time(
    current_time: int,
) -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(5) == []
    before = snapshot(s)
    assert s.schedule_job("j", MAX_TIME, 0, 0, current_time) is False
    assert snapshot(s) == before
    assert s.engine.now == 5
    assert s.schedule_job("j", 5, 0, 0, 5) is True


def test_a_dispatch_before_a_job_exists_does_not_create_its_runs() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.dispatch_jobs(30) == []
    assert s.schedule_job("j", 30, 10, 0, 30) is True
    assert s.get_job_status("j", 30, 30) == "SCHEDULED"
    assert s.dispatch_jobs(30) == ["j,30,1,w"]


# --------------------------------------------------------------------------------- dispatchJobs


def test_dispatch_processes_only_occurrences_at_or_before_the_current_time() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("j", 10, 0, 0, 0) is True
    assert s.dispatch_jobs(9) == []
    assert s.get_job_status("j", 10, 9) == "SCHEDULED"
    assert s.dispatch_jobs(10) == ["j,10,1,w1"]


def test_a_late_dispatch_reports_the_scheduled_time_not_the_current_time() -> None:
    s = one_worker_one_job()
    assert s.schedule_job("late", 5, 0, 0, 0) is True
    assert s.complete_job("j", 0, 1, True, 0) is False
    assert s.dispatch_jobs(100) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, True, 100) is True
    assert s.dispatch_jobs(100) == ["late,5,1,w"]


def test_dispatch_creates_every_due_occurrence_and_runs_them_concurrently() -> None:
    s = CronJobScheduler()
    for n in range(10):
        assert s.register_worker(f"w{n}") is True
    assert s.schedule_job("rec", 0, 10, 0, 0) is True
    assert s.dispatch_jobs(35) == ["rec,0,1,w0", "rec,10,1,w1", "rec,20,1,w2", "rec,30,1,w3"]
    for t in (0, 10, 20, 30):
        assert s.get_job_status("rec", t, 35) == "RUNNING"
    assert s.get_job_status("rec", 40, 35) == "SCHEDULED"
    assert s.dispatch_jobs(35) == []
    assert s.dispatch_jobs(40) == ["rec,40,1,w4"]


def test_a_backlog_waits_queued_in_order() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("rec", 0, 1, 0, 0) is True
    assert s.dispatch_jobs(5) == ["rec,0,1,w"]
    for t in range(1, 6):
        assert s.get_job_status("rec", t, 5) == "QUEUED"
    assert s.get_job_status("rec", 6, 5) == "SCHEDULED"
    for t in range(0, 5):
        assert s.complete_job("rec", t, 1, True, 5) is True
        assert s.dispatch_jobs(5) == [f"rec,{t + 1},1,w"]
    assert s.complete_job("rec", 5, 1, True, 5) is True
    assert s.dispatch_jobs(5) == []
    assert s.dispatch_jobs(6) == ["rec,6,1,w"]


def test_pending_occurrences_go_by_scheduled_time_then_job_id() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("c", 2, 0, 0, 0) is True
    assert s.schedule_job("a", 3, 0, 0, 0) is True
    assert s.schedule_job("b", 2, 0, 0, 0) is True
    assert s.schedule_job("A", 3, 0, 0, 0) is True
    assert s.schedule_job("a", 1, 0, 0, 0) is False
    for n in range(4):
        assert s.register_worker(f"w{n}") is True
    assert s.dispatch_jobs(3) == ["b,2,1,w0", "c,2,1,w1", "A,3,1,w2", "a,3,1,w3"]


def test_queued_first_attempts_and_retries_share_one_order() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("b", 10, 0, 2, 0) is True
    assert s.dispatch_jobs(10) == ["b,10,1,w"]
    assert s.schedule_job("c", 12, 0, 0, 10) is True
    assert s.schedule_job("a", 10, 0, 0, 10) is True
    assert s.schedule_job("a5", 11, 0, 0, 10) is True
    assert s.complete_job("b", 10, 1, False, 12) is True
    # Pending: a@10 (first attempt), b@10 (retry), a5@11, c@12.
    assert s.get_job_status("a", 10, 12) == "SCHEDULED"
    assert s.get_job_status("b", 10, 12) == "RETRY_PENDING"
    assert s.dispatch_jobs(12) == ["a,10,1,w"]
    assert s.complete_job("a", 10, 1, True, 12) is True
    assert s.dispatch_jobs(12) == ["b,10,2,w"]
    assert s.complete_job("b", 10, 2, True, 12) is True
    assert s.dispatch_jobs(12) == ["a5,11,1,w"]
    assert s.complete_job("a5", 11, 1, True, 12) is True
    assert s.dispatch_jobs(12) == ["c,12,1,w"]


def test_an_older_retry_goes_before_a_newer_first_attempt() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("z", 0, 0, 1, 0) is True
    assert s.schedule_job("a", 5, 0, 0, 0) is True
    assert s.dispatch_jobs(5) == ["z,0,1,w"]
    assert s.complete_job("z", 0, 1, False, 6) is True
    assert s.dispatch_jobs(6) == ["z,0,2,w"]
    assert s.get_job_status("a", 5, 6) == "QUEUED"


def test_workers_go_in_java_order_case_sensitive() -> None:
    s = CronJobScheduler()
    for worker_id in ("worker-a", "Worker-b", "worker-", "worker-A"):
        assert s.register_worker(worker_id) is True
    for n in range(4):
        assert s.schedule_job(f"j{n}", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == [
        "j0,0,1,Worker-b",
        "j1,0,1,worker-",
        "j2,0,1,worker-A",
        "j3,0,1,worker-a",
    ]


def test_job_ids_sort_by_utf16_code_units_like_java() -> None:
    # Java: "\U0001F600" is the code units D83D DE00, which sort before FFFF and E000;
    # Python's code-point order would put it last.
    s = CronJobScheduler()
    for worker_id in ("w1", "w2", "w3", "w4"):
        assert s.register_worker(worker_id) is True
    for job_id in ("\uffff", "\ue000", "\U0001f600", "\U00010000"):
        assert s.schedule_job(job_id, 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == [
        "\U00010000,0,1,w1",
        "\U0001f600,0,1,w2",
        "\ue000,0,1,w3",
        "\uffff,0,1,w4",
    ]


def test_worker_ids_sort_by_utf16_code_units_like_java() -> None:
    s = CronJobScheduler()
    for worker_id in ("\uffff", "z", "\U0001f600", "\ue000"):
        assert s.register_worker(worker_id) is True
    for n in range(4):
        assert s.schedule_job(f"j{n}", n, 0, 0, 0) is True
    assert s.dispatch_jobs(3) == [
        "j0,0,1,z",
        "j1,1,1,\U0001f600",
        "j2,2,1,\ue000",
        "j3,3,1,\uffff",
    ]


def test_a_busy_worker_is_not_assigned_until_its_attempt_is_completed() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("first", 0, 0, 0, 0) is True
    assert s.schedule_job("second", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["first,0,1,w"]
    assert s.dispatch_jobs(100) == []
    assert s.get_job_status("second", 0, 100) == "QUEUED"
    assert s.complete_job("second", 0, 1, True, 100) is False
    assert s.dispatch_jobs(100) == []
    assert s.complete_job("first", 0, 1, True, 101) is True
    assert s.dispatch_jobs(101) == ["second,0,1,w"]


def test_no_worker_keeps_queued_and_retry_pending_states() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("b", 0, 0, 1, 0) is True
    assert s.schedule_job("q", 5, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["b,0,1,w"]
    # Scheduled after that dispatch, but due at 0: it goes before b's retry.
    assert s.schedule_job("a", 0, 0, 0, 0) is True
    assert s.complete_job("b", 0, 1, False, 0) is True
    assert s.dispatch_jobs(0) == ["a,0,1,w"]
    assert s.get_job_status("b", 0, 0) == "RETRY_PENDING"
    assert s.dispatch_jobs(0) == []
    assert s.dispatch_jobs(5) == []
    assert s.get_job_status("b", 0, 50) == "RETRY_PENDING"
    assert s.get_job_status("q", 5, 50) == "QUEUED"
    assert s.dispatch_jobs(50) == []
    assert s.get_job_status("b", 0, 50) == "RETRY_PENDING"
    assert s.get_job_status("q", 5, 50) == "QUEUED"
    assert s.complete_job("a", 0, 1, True, 50) is True
    assert s.dispatch_jobs(50) == ["b,0,2,w"]
    assert s.get_job_status("q", 5, 50) == "QUEUED"
    assert s.complete_job("b", 0, 2, True, 51) is True
    assert s.dispatch_jobs(51) == ["q,5,1,w"]


def test_repeated_dispatch_at_the_same_time_never_duplicates() -> None:
    s = CronJobScheduler()
    for n in range(3):
        assert s.register_worker(f"w{n}") is True
    assert s.schedule_job("a", 0, 5, 0, 0) is True
    assert s.schedule_job("b", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(5) == ["a,0,1,w0", "b,0,1,w1", "a,5,1,w2"]
    for _ in range(5):
        assert s.dispatch_jobs(5) == []
    assert s.register_worker("w3") is True
    assert s.dispatch_jobs(5) == []
    assert s.dispatch_jobs(9) == []
    assert s.dispatch_jobs(10) == ["a,10,1,w3"]


def test_dispatch_returns_empty_when_nothing_can_be_assigned() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(0) == []
    assert s.schedule_job("j", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == []  # no worker
    assert s.register_worker("w") is True
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.register_worker("idle") is True
    assert s.dispatch_jobs(1) == []  # a free worker, nothing pending
    assert s.complete_job("j", 0, 1, True, 1) is True
    assert s.dispatch_jobs(1) == []  # everything final


def test_queued_needs_a_dispatch_after_the_job_was_scheduled() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(10) == []
    assert s.schedule_job("j", 10, 0, 0, 10) is True
    # The dispatch at 10 came before the job existed.
    assert s.get_job_status("j", 10, 10) == "SCHEDULED"
    assert s.get_job_status("j", 10, 20) == "SCHEDULED"
    assert s.dispatch_jobs(20) == []  # no worker: created, waiting
    assert s.get_job_status("j", 10, 20) == "QUEUED"


def test_a_due_occurrence_without_a_dispatch_is_scheduled() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("j", 5, 5, 0, 0) is True
    assert s.get_job_status("j", 5, 11) == "SCHEDULED"
    assert s.get_job_status("j", 10, 11) == "SCHEDULED"
    assert s.get_job_status("j", 100, 11) == "SCHEDULED"
    assert s.dispatch_jobs(12) == ["j,5,1,w"]
    assert s.get_job_status("j", 10, 100) == "QUEUED"
    # Dispatched at 12: 15 was not due then, so it is still SCHEDULED.
    assert s.get_job_status("j", 15, 100) == "SCHEDULED"


def test_a_dispatch_before_the_occurrence_is_due_does_not_create_it() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("j", 10, 0, 0, 0) is True
    assert s.dispatch_jobs(9) == []
    assert s.get_job_status("j", 10, 10) == "SCHEDULED"
    assert s.dispatch_jobs(10) == []
    assert s.get_job_status("j", 10, 10) == "QUEUED"


@pytest.mark.parametrize("current_time", [-1, MAX_TIME + 1])
def test_dispatch_with_an_out_of_range_time_changes_nothing_not_even_time(
    current_time: int,
) -> None:
    s = one_worker_one_job()
    assert s.schedule_job("k", 3, 0, 0, 3) is True
    before = snapshot(s)
    assert s.dispatch_jobs(current_time) == []
    assert snapshot(s) == before
    assert s.get_job_status("j", 0, 3) == "SCHEDULED"
    assert s.dispatch_jobs(3) == ["j,0,1,w"]


def test_many_workers_and_jobs_interleaved() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w3") is True
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("sync", 0, 10, 2, 0) is True
    assert s.schedule_job("report", 5, 0, 0, 0) is True
    assert s.schedule_job("backup", 10, 0, 1, 0) is True
    assert s.dispatch_jobs(0) == ["sync,0,1,w1"]
    assert s.dispatch_jobs(10) == ["report,5,1,w2", "backup,10,1,w3"]
    assert s.get_job_status("sync", 10, 10) == "QUEUED"
    assert s.get_job_status("sync", 20, 10) == "SCHEDULED"
    assert s.complete_job("backup", 10, 1, False, 11) is True
    assert s.get_job_status("backup", 10, 11) == "RETRY_PENDING"
    assert s.dispatch_jobs(11) == ["backup,10,2,w3"]
    assert s.get_job_status("sync", 10, 11) == "QUEUED"
    assert s.complete_job("sync", 0, 1, True, 12) is True
    assert s.complete_job("report", 5, 1, True, 12) is True
    assert s.dispatch_jobs(12) == ["sync,10,1,w1"]
    assert s.dispatch_jobs(25) == ["sync,20,1,w2"]
    assert s.get_job_status("sync", 0, 25) == "SUCCEEDED"
    assert s.get_job_status("sync", 10, 25) == "RUNNING"
    assert s.get_job_status("sync", 20, 25) == "RUNNING"
    assert s.get_job_status("report", 5, 25) == "SUCCEEDED"
    assert s.complete_job("backup", 10, 2, False, 26) is True
    assert s.get_job_status("backup", 10, 26) == "FAILED"
    assert s.complete_job("backup", 10, 2, True, 26) is False
    assert s.get_job_status("backup", 10, 26) == "FAILED"
    assert s.dispatch_jobs(30) == ["sync,30,1,w3"]
    assert s.dispatch_jobs(40) == []
    assert s.get_job_status("sync", 40, 40) == "QUEUED"
    assert s.complete_job("sync", 20, 1, False, 41) is True
    assert s.dispatch_jobs(41) == ["sync,20,2,w2"]
    assert s.get_job_status("sync", 40, 41) == "QUEUED"
    assert s.complete_job("sync", 10, 1, True, 42) is True
    assert s.dispatch_jobs(42) == ["sync,40,1,w1"]
    assert s.complete_job("sync", 20, 2, False, 43) is True
    assert s.complete_job("sync", 30, 1, True, 43) is True
    assert s.dispatch_jobs(43) == ["sync,20,3,w2"]
    assert s.complete_job("sync", 20, 3, False, 44) is True
    assert s.get_job_status("sync", 20, 44) == "FAILED"
    assert s.dispatch_jobs(50) == ["sync,50,1,w2"]
    assert s.get_job_status("sync", 60, 50) == "SCHEDULED"


# ---------------------------------------------------------------------------------- completeJob


def test_completion_frees_the_worker_for_the_next_dispatch() -> None:
    s = one_worker_one_job()
    assert s.schedule_job("k", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.engine.query.worker("w").running == ("j", 0)
    assert s.complete_job("j", 0, 1, True, 3) is True
    assert s.engine.query.worker("w").running is None
    assert s.dispatch_jobs(3) == ["k,0,1,w"]


def test_a_successful_occurrence_is_never_dispatched_again() -> None:
    s = one_worker_one_job(max_retries=5)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, True, 1) is True
    assert s.get_job_status("j", 0, 1) == "SUCCEEDED"
    assert s.dispatch_jobs(1) == []
    assert s.dispatch_jobs(MAX_TIME) == []
    assert s.complete_job("j", 0, 1, True, MAX_TIME) is False
    assert s.complete_job("j", 0, 2, True, MAX_TIME) is False
    assert s.get_job_status("j", 0, MAX_TIME) == "SUCCEEDED"


def test_a_failure_with_retries_left_is_retry_pending_and_retried_at_the_same_time() -> None:
    s = one_worker_one_job(max_retries=1)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 0) is True
    assert s.get_job_status("j", 0, 0) == "RETRY_PENDING"
    assert s.dispatch_jobs(0) == ["j,0,2,w"]
    assert s.get_job_status("j", 0, 0) == "RUNNING"


def test_a_retry_may_go_to_another_worker() -> None:
    s = CronJobScheduler()
    assert s.register_worker("b") is True
    assert s.schedule_job("j", 0, 0, 1, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,b"]
    assert s.register_worker("a") is True
    assert s.complete_job("j", 0, 1, False, 1) is True
    assert s.dispatch_jobs(1) == ["j,0,2,a"]


def test_a_failure_without_retries_is_failed_and_never_dispatched_again() -> None:
    s = one_worker_one_job(max_retries=0)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 1) is True
    assert s.get_job_status("j", 0, 1) == "FAILED"
    assert s.dispatch_jobs(1) == []
    assert s.complete_job("j", 0, 1, False, 2) is False
    assert s.complete_job("j", 0, 2, True, 2) is False
    assert s.get_job_status("j", 0, 2) == "FAILED"


@pytest.mark.parametrize("max_retries", [0, 1, 2, 3, 10])
def test_retries_go_up_to_max_retries_plus_one_then_failed(max_retries: int) -> None:
    s = one_worker_one_job(max_retries=max_retries)
    for attempt in range(1, max_retries + 2):
        assert s.dispatch_jobs(attempt) == [f"j,0,{attempt},w"]
        assert s.get_job_status("j", 0, attempt) == "RUNNING"
        assert s.complete_job("j", 0, attempt, False, attempt) is True
        expected = "RETRY_PENDING" if attempt <= max_retries else "FAILED"
        assert s.get_job_status("j", 0, attempt) == expected
    assert s.dispatch_jobs(100) == []
    assert s.complete_job("j", 0, max_retries + 2, True, 100) is False
    assert s.get_job_status("j", 0, 100) == "FAILED"


def test_success_on_a_retry_is_succeeded() -> None:
    s = one_worker_one_job(max_retries=3)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,2,w"]
    assert s.complete_job("j", 0, 2, True, 0) is True
    assert s.get_job_status("j", 0, 0) == "SUCCEEDED"
    assert s.dispatch_jobs(0) == []


def test_complete_returns_acceptance_not_success() -> None:
    s = one_worker_one_job(max_retries=0)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 0) is True


def test_complete_rejects_occurrences_without_a_running_attempt() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("busy", 0, 0, 0, 0) is True
    assert s.schedule_job("rec", 0, 10, 1, 0) is True
    assert s.dispatch_jobs(0) == ["busy,0,1,w"]
    before = snapshot(s)
    assert s.complete_job("nope", 0, 1, True, 1) is False  # unknown job
    assert s.complete_job("busy", 1, 1, True, 1) is False  # not in the schedule
    assert s.complete_job("rec", 0, 1, True, 1) is False  # QUEUED
    assert s.complete_job("rec", 10, 1, True, 1) is False  # SCHEDULED, not due
    assert s.complete_job("rec", 20, 1, False, 1) is False
    assert s.complete_job("busy", -1, 1, True, 1) is False
    assert s.complete_job("busy", MAX_TIME + 1, 1, True, 1) is False
    assert without_time(snapshot(s)) == without_time(before)
    assert s.engine.now == 1
    assert s.get_job_status("busy", 0, 1) == "RUNNING"
    assert s.get_job_status("rec", 0, 1) == "QUEUED"


def test_complete_rejects_a_wrong_attempt_number() -> None:
    s = one_worker_one_job(max_retries=2)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,2,w"]
    before = snapshot(s)
    assert s.complete_job("j", 0, 1, True, 5) is False  # earlier attempt
    assert s.complete_job("j", 0, 1, False, 5) is False
    assert s.complete_job("j", 0, 3, True, 5) is False  # later attempt, not started
    assert s.complete_job("j", 0, 3, False, 5) is False
    assert without_time(snapshot(s)) == without_time(before)
    assert s.engine.now == 5
    assert s.get_job_status("j", 0, 5) == "RUNNING"
    assert s.complete_job("j", 0, 2, True, 6) is True
    assert s.get_job_status("j", 0, 6) == "SUCCEEDED"


@pytest.mark.parametrize("attempt_number", [0, -1, 12, 100])
def test_complete_rejects_attempt_numbers_out_of_range_but_moves_time(attempt_number: int) -> None:
    s = one_worker_one_job(max_retries=10)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    before = snapshot(s)
    assert s.complete_job("j", 0, attempt_number, True, 9) is False
    assert without_time(snapshot(s)) == without_time(before)
    assert s.engine.now == 9
    assert s.get_job_status("j", 0, 9) == "RUNNING"


def test_the_eleventh_attempt_can_be_completed() -> None:
    s = one_worker_one_job(max_retries=10)
    for attempt in range(1, 11):
        assert s.dispatch_jobs(0) == [f"j,0,{attempt},w"]
        assert s.complete_job("j", 0, attempt, False, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,11,w"]
    assert s.complete_job("j", 0, 11, True, 0) is True
    assert s.get_job_status("j", 0, 0) == "SUCCEEDED"


def test_a_duplicate_completion_report_is_rejected() -> None:
    s = one_worker_one_job(max_retries=1)
    assert s.schedule_job("k", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, True, 1) is True
    assert s.dispatch_jobs(1) == ["k,0,1,w"]
    before = snapshot(s)
    assert s.complete_job("j", 0, 1, True, 2) is False
    assert s.complete_job("j", 0, 1, False, 2) is False
    assert without_time(snapshot(s)) == without_time(before)
    # The worker is still busy with k.
    assert s.engine.query.worker("w").running == ("k", 0)
    assert s.get_job_status("j", 0, 2) == "SUCCEEDED"
    assert s.get_job_status("k", 0, 2) == "RUNNING"


def test_a_stale_report_never_touches_a_later_attempt() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("j", 0, 0, 3, 0) is True
    assert s.schedule_job("later", 5, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w1"]
    assert s.complete_job("j", 0, 1, False, 1) is True
    assert s.dispatch_jobs(1) == ["j,0,2,w1"]
    assert s.complete_job("j", 0, 2, False, 2) is True
    assert s.dispatch_jobs(2) == ["j,0,3,w1"]
    before = snapshot(s)
    for attempt in (1, 2):
        for successful in (True, False):
            assert s.complete_job("j", 0, attempt, successful, 3) is False
    assert without_time(snapshot(s)) == without_time(before)
    assert s.get_job_status("j", 0, 3) == "RUNNING"
    # w1 is still busy: the next due occurrence goes to w2.
    assert s.dispatch_jobs(5) == ["later,5,1,w2"]
    assert s.complete_job("j", 0, 3, True, 6) is True
    assert s.get_job_status("j", 0, 6) == "SUCCEEDED"


def test_completing_one_occurrence_leaves_the_others_of_the_same_job_alone() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("rec", 0, 10, 1, 0) is True
    assert s.dispatch_jobs(10) == ["rec,0,1,w1", "rec,10,1,w2"]
    assert s.complete_job("rec", 10, 1, False, 11) is True
    assert s.get_job_status("rec", 0, 11) == "RUNNING"
    assert s.get_job_status("rec", 10, 11) == "RETRY_PENDING"
    assert s.complete_job("rec", 10, 1, True, 11) is False
    assert s.dispatch_jobs(11) == ["rec,10,2,w2"]
    assert s.complete_job("rec", 0, 1, True, 12) is True
    assert s.get_job_status("rec", 10, 12) == "RUNNING"


@pytest.mark.parametrize("current_time", [-1, MAX_TIME + 1])
def test_complete_with_an_out_of_range_time_changes_nothing_not_even_time(
    current_time: int,
) -> None:
    s = one_worker_one_job()
    assert s.dispatch_jobs(4) == ["j,0,1,w"]
    before = snapshot(s)
    assert s.complete_job("j", 0, 1, True, current_time) is False
    assert snapshot(s) == before
    assert s.get_job_status("j", 0, 4) == "RUNNING"
    assert s.complete_job("j", 0, 1, True, 4) is True


# -------------------------------------------------------------------------------- getJobStatus


def test_every_status_value() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("a", 0, 0, 0, 0) is True
    assert s.schedule_job("b", 0, 0, 1, 0) is True
    assert s.schedule_job("c", 0, 0, 0, 0) is True
    assert s.schedule_job("d", 10, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == ["a,0,1,w1", "b,0,1,w2"]
    assert s.complete_job("b", 0, 1, False, 1) is True
    assert s.get_job_status("a", 0, 1) == "RUNNING"
    assert s.get_job_status("b", 0, 1) == "RETRY_PENDING"
    assert s.get_job_status("c", 0, 1) == "QUEUED"
    assert s.get_job_status("d", 10, 1) == "SCHEDULED"
    assert s.get_job_status("e", 0, 1) == ""
    assert s.dispatch_jobs(1) == ["b,0,2,w2"]
    assert s.get_job_status("b", 0, 1) == "RUNNING"
    assert s.get_job_status("c", 0, 1) == "QUEUED"
    assert s.complete_job("a", 0, 1, True, 2) is True
    assert s.complete_job("b", 0, 2, False, 2) is True
    assert s.get_job_status("a", 0, 2) == "SUCCEEDED"
    assert s.get_job_status("b", 0, 2) == "FAILED"
    assert s.get_job_status("c", 0, 2) == "QUEUED"
    assert s.dispatch_jobs(2) == ["c,0,1,w1"]
    assert s.get_job_status("c", 0, 2) == "RUNNING"
    assert s.get_job_status("d", 10, 2) == "SCHEDULED"


def test_status_is_empty_for_unknown_jobs_and_times_outside_the_schedule() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("rec", 100, 10, 0, 0) is True
    assert s.schedule_job("once", 100, 0, 0, 0) is True
    assert s.get_job_status("unknown", 100, 0) == ""
    assert s.get_job_status("", 100, 0) == ""
    assert s.get_job_status("REC", 100, 0) == ""
    assert s.get_job_status("rec ", 100, 0) == ""
    assert s.get_job_status("rec", 90, 0) == ""  # before the first run
    assert s.get_job_status("rec", 0, 0) == ""
    assert s.get_job_status("rec", -10, 0) == ""
    assert s.get_job_status("rec", 105, 0) == ""  # off the grid
    assert s.get_job_status("rec", 111, 0) == ""
    assert s.get_job_status("once", 110, 0) == ""  # a one-time job at another time
    assert s.get_job_status("once", 99, 0) == ""
    assert s.get_job_status("rec", 110, 0) == "SCHEDULED"
    assert s.get_job_status("once", 100, 0) == "SCHEDULED"


def test_status_is_empty_for_a_rejected_job() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(10) == []
    assert s.schedule_job("past", 5, 0, 0, 10) is False
    assert s.get_job_status("past", 5, 10) == ""
    assert s.schedule_job("a,b", 20, 0, 0, 10) is False
    assert s.get_job_status("a,b", 20, 10) == ""


def test_scheduled_is_answered_by_arithmetic_instantly() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("every-second", 0, 1, 0, 0) is True
    assert s.schedule_job("sparse", 7, 10**9, 0, 0) is True
    calls = []
    sys.setprofile(lambda frame, event, arg: calls.append(event) if event == "call" else None)
    try:
        assert s.get_job_status("every-second", MAX_TIME, 0) == "SCHEDULED"
        assert s.get_job_status("every-second", MAX_TIME - 1, 0) == "SCHEDULED"
        assert s.get_job_status("sparse", 7 + 999 * 10**9, 0) == "SCHEDULED"
        assert s.get_job_status("sparse", 6 + 999 * 10**9, 0) == ""
    finally:
        sys.setprofile(None)
    assert len(calls) < 200, "a status query must be arithmetic, not a walk over the schedule"
    assert s.engine.query.records() == {}


def test_a_status_query_never_creates_or_dispatches_anything() -> None:
    def build() -> CronJobScheduler:
        s = CronJobScheduler()
        assert s.register_worker("w") is True
        assert s.schedule_job("rec", 0, 5, 0, 0) is True
        assert s.schedule_job("once", 3, 0, 0, 0) is True
        return s

    queried, plain = build(), build()
    before = snapshot(queried)
    for t in range(-1, 40):
        assert queried.get_job_status("rec", t, 30) == ("SCHEDULED" if t % 5 == 0 else "")
        assert queried.get_job_status("once", t, 30) == ("SCHEDULED" if t == 3 else "")
    assert without_time(snapshot(queried)) == without_time(before)
    assert queried.engine.query.records() == {}
    assert queried.engine.now == 30
    assert queried.dispatch_jobs(30) == plain.dispatch_jobs(30) == ["rec,0,1,w"]
    before = snapshot(queried)
    for t in range(0, 40):
        queried.get_job_status("rec", t, 31)
        queried.get_job_status("once", t, 31)
    assert without_time(snapshot(queried)) == without_time(before)
    assert queried.complete_job("rec", 0, 1, True, 31) is True
    assert plain.complete_job("rec", 0, 1, True, 31) is True
    assert queried.dispatch_jobs(31) == plain.dispatch_jobs(31) == ["once,3,1,w"]


def test_a_status_query_moves_time() -> None:
    s = CronJobScheduler()
    assert s.get_job_status("missing", 0, 50) == ""
    assert s.engine.now == 50
    with pytest.raises(ValueError):
        s.dispatch_jobs(40)


@pytest.mark.parametrize("current_time", [-1, MAX_TIME + 1])
def test_status_with_an_out_of_range_time_changes_nothing_not_even_time(
    current_time: int,
) -> None:
    s = one_worker_one_job()
    assert s.dispatch_jobs(2) == ["j,0,1,w"]
    before = snapshot(s)
    assert s.get_job_status("j", 0, current_time) == ""
    assert snapshot(s) == before
    assert s.get_job_status("j", 0, 2) == "RUNNING"


def test_status_for_a_scheduled_time_beyond_the_constraint_is_empty() -> None:
    s = CronJobScheduler()
    assert s.schedule_job("every-five", 0, 5, 0, 0) is True
    assert s.get_job_status("every-five", MAX_TIME, 0) == "SCHEDULED"
    assert s.get_job_status("every-five", MAX_TIME + 5, 0) == ""
    assert s.get_job_status("every-five", 10 * MAX_TIME, 0) == ""
    assert s.register_worker("w") is True
    assert s.dispatch_jobs(0) == ["every-five,0,1,w"]
    assert s.complete_job("every-five", MAX_TIME + 5, 1, True, 0) is False
    assert s.get_job_status("every-five", 0, 0) == "RUNNING"


# ---------------------------------------------------------------------------------- time rules


def test_calls_may_share_a_current_time() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w") is True
    assert s.schedule_job("j", 7, 0, 1, 7) is True
    assert s.get_job_status("j", 7, 7) == "SCHEDULED"
    assert s.dispatch_jobs(7) == ["j,7,1,w"]
    assert s.complete_job("j", 7, 1, False, 7) is True
    assert s.dispatch_jobs(7) == ["j,7,2,w"]
    assert s.complete_job("j", 7, 2, True, 7) is True
    assert s.get_job_status("j", 7, 7) == "SUCCEEDED"
    assert s.engine.now == 7


def test_every_timed_call_moves_time_even_when_it_fails() -> None:
    s = CronJobScheduler()
    assert s.dispatch_jobs(3) == []
    assert s.engine.now == 3
    assert s.complete_job("none", 0, 1, True, 4) is False
    assert s.engine.now == 4
    assert s.get_job_status("none", 0, 5) == ""
    assert s.engine.now == 5
    assert s.schedule_job("", 6, 0, 0, 6) is False
    assert s.engine.now == 6
    assert s.schedule_job("j", 7, 0, 99, 8) is False
    assert s.engine.now == 8


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.schedule_job("new", 100, 0, 0, 40),
        lambda s: s.dispatch_jobs(40),
        lambda s: s.complete_job("j", 0, 1, True, 40),
        lambda s: s.get_job_status("j", 0, 40),
        lambda s: s.schedule_job("", 100, 0, 0, 40),
        lambda s: s.complete_job("j", 0, 99, True, 40),
    ],
)
def test_a_current_time_going_backwards_raises_and_changes_nothing(call) -> None:
    s = one_worker_one_job()
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.get_job_status("j", 0, 50) == "RUNNING"
    before = snapshot(s)
    with pytest.raises(ValueError) as raised:
        call(s)
    assert "40" in str(raised.value)
    assert "50" in str(raised.value)
    assert snapshot(s) == before
    assert s.get_job_status("new", 100, 50) == ""
    assert s.complete_job("j", 0, 1, True, 50) is True


# ---------------------------------------------------------------------------------- wrong types


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("worker_id", lambda s: s.register_worker(None)),
        ("worker_id", lambda s: s.register_worker(7)),
        ("worker_id", lambda s: s.register_worker(b"w")),
        ("job_id", lambda s: s.schedule_job(None, 10, 0, 0, 5)),
        ("job_id", lambda s: s.schedule_job(3, 10, 0, 0, 5)),
        ("first_run_time", lambda s: s.schedule_job("n", "10", 0, 0, 5)),
        ("first_run_time", lambda s: s.schedule_job("n", True, 0, 0, 5)),
        ("first_run_time", lambda s: s.schedule_job("n", 10.0, 0, 0, 5)),
        ("interval", lambda s: s.schedule_job("n", 10, None, 0, 5)),
        ("interval", lambda s: s.schedule_job("n", 10, False, 0, 5)),
        ("max_retries", lambda s: s.schedule_job("n", 10, 0, "1", 5)),
        ("max_retries", lambda s: s.schedule_job("n", 10, 0, True, 5)),
        ("current_time", lambda s: s.schedule_job("n", 10, 0, 0, "5")),
        ("current_time", lambda s: s.schedule_job("n", 10, 0, 0, None)),
        ("current_time", lambda s: s.dispatch_jobs("5")),
        ("current_time", lambda s: s.dispatch_jobs(True)),
        ("current_time", lambda s: s.dispatch_jobs(None)),
        ("current_time", lambda s: s.dispatch_jobs(5.0)),
        ("job_id", lambda s: s.complete_job(None, 0, 1, True, 5)),
        ("scheduled_time", lambda s: s.complete_job("j", "0", 1, True, 5)),
        ("scheduled_time", lambda s: s.complete_job("j", False, 1, True, 5)),
        ("attempt_number", lambda s: s.complete_job("j", 0, True, True, 5)),
        ("attempt_number", lambda s: s.complete_job("j", 0, "1", True, 5)),
        ("successful", lambda s: s.complete_job("j", 0, 1, 1, 5)),
        ("successful", lambda s: s.complete_job("j", 0, 1, None, 5)),
        ("successful", lambda s: s.complete_job("j", 0, 1, "true", 5)),
        ("current_time", lambda s: s.complete_job("j", 0, 1, True, "5")),
        ("current_time", lambda s: s.complete_job("j", 0, 1, True, True)),
        ("job_id", lambda s: s.get_job_status(None, 0, 5)),
        ("scheduled_time", lambda s: s.get_job_status("j", None, 5)),
        ("scheduled_time", lambda s: s.get_job_status("j", True, 5)),
        ("current_time", lambda s: s.get_job_status("j", 0, "5")),
        ("current_time", lambda s: s.get_job_status("j", 0, False)),
    ],
)
def test_a_wrong_type_raises_type_error_naming_the_argument_and_changes_nothing(
    name: str, call
) -> None:
    s = one_worker_one_job()
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.get_job_status("j", 0, 3) == "RUNNING"
    before = snapshot(s)
    with pytest.raises(TypeError) as raised:
        call(s)
    assert name in str(raised.value)
    assert snapshot(s) == before
    assert s.complete_job("j", 0, 1, True, 5) is True
    assert s.engine.now == 5


# ------------------------------------------------------------------------------ scheduling rules


def test_attempt_numbers_are_unique_start_at_one_and_are_never_reused() -> None:
    s = CronJobScheduler()
    assert s.register_worker("w1") is True
    assert s.register_worker("w2") is True
    assert s.schedule_job("j", 0, 0, 3, 0) is True
    seen = []
    for step in range(4):
        assignments = s.dispatch_jobs(step)
        assert len(assignments) == 1
        seen.append(assignments[0])
        attempt = int(assignments[0].split(",")[2])
        assert s.complete_job("j", 0, attempt, False, step) is True
    assert seen == ["j,0,1,w1", "j,0,2,w1", "j,0,3,w1", "j,0,4,w1"]
    attempts = s.engine.query.record("j", 0).attempts
    assert [a.number for a in attempts] == [1, 2, 3, 4]


def test_an_occurrence_has_at_most_one_running_attempt() -> None:
    s = CronJobScheduler()
    for n in range(5):
        assert s.register_worker(f"w{n}") is True
    assert s.schedule_job("j", 0, 0, 5, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,1,w0"]
    assert s.dispatch_jobs(0) == []
    assert s.complete_job("j", 0, 1, False, 0) is True
    assert s.dispatch_jobs(0) == ["j,0,2,w0"]
    assert s.dispatch_jobs(0) == []
    running = [a for a in s.engine.query.record("j", 0).attempts if a.outcome.value == "RUNNING"]
    assert [a.number for a in running] == [2]


def test_a_worker_runs_at_most_one_attempt_at_a_time() -> None:
    s = CronJobScheduler()
    assert s.register_worker("only") is True
    assert s.schedule_job("rec", 0, 1, 0, 0) is True
    assert s.schedule_job("other", 0, 0, 0, 0) is True
    assert s.dispatch_jobs(10) == ["other,0,1,only"]
    assert s.dispatch_jobs(10) == []
    assert s.get_job_status("rec", 0, 10) == "QUEUED"
    assert s.complete_job("other", 0, 1, True, 10) is True
    assert s.dispatch_jobs(10) == ["rec,0,1,only"]


def test_the_event_log_records_the_attempts() -> None:
    s = one_worker_one_job(max_retries=1)
    assert s.dispatch_jobs(0) == ["j,0,1,w"]
    assert s.complete_job("j", 0, 1, False, 1) is True
    assert s.dispatch_jobs(1) == ["j,0,2,w"]
    assert s.complete_job("j", 0, 2, True, 2) is True
    attempts = [
        (type(event).__name__, event.job_id, event.scheduled, event.attempt, event.worker_id)
        for event in s.engine.log
        if type(event).__name__ in ("AttemptStarted", "AttemptFailed", "AttemptSucceeded")
    ]
    assert attempts == [
        ("AttemptStarted", "j", 0, 1, "w"),
        ("AttemptFailed", "j", 0, 1, "w"),
        ("AttemptStarted", "j", 0, 2, "w"),
        ("AttemptSucceeded", "j", 0, 2, "w"),
    ]


# --------------------------------------------------------------------- Java semantics of ids


def test_id_length_is_counted_in_utf16_code_units_like_java() -> None:
    s = CronJobScheduler()
    assert s.register_worker("\U0001f600" * 50) is True  # Java length 100
    assert s.register_worker("\U0001f601" * 51) is False  # Java length 102
    assert s.register_worker("a" + "\U0001f602" * 50) is False  # Java length 101
    assert s.register_worker("a" + "\U0001f603" * 49 + "b") is True  # Java length 100
    assert s.schedule_job("\U0001f600" * 50, 0, 0, 0, 0) is True
    assert s.schedule_job("a" + "\U0001f600" * 50, 0, 0, 0, 0) is False
    assert s.schedule_job("\U0001f600" * 51, 0, 0, 0, 0) is False
    assert s.get_job_status("\U0001f600" * 50, 0, 0) == "SCHEDULED"
    # "a..." sorts before the emoji: 0x0061 < 0xD83D.
    worker_id = "a" + "\U0001f603" * 49 + "b"
    assert s.dispatch_jobs(0) == ["\U0001f600" * 50 + ",0,1," + worker_id]


@pytest.mark.parametrize("text", ["\u00a0", "\u2007", "\u202f", "\x85", " \u00a0 ", "\u200b"])
def test_blank_means_java_whitespace_only(text: str) -> None:
    # Java's Character.isWhitespace excludes the no-break spaces, NEL and the zero-width space,
    # so these ids are not blank (Python's str.isspace says otherwise for the first five).
    s = CronJobScheduler()
    assert s.register_worker(text) is True
    assert s.schedule_job(text, 0, 0, 0, 0) is True
    assert s.dispatch_jobs(0) == [f"{text},0,1,{text}"]


@pytest.mark.parametrize("blank", ["\x1c\x1d\x1e\x1f", "\u1680", "\u2000\u200a", "\u205f \u3000"])
def test_java_whitespace_controls_and_spaces_are_blank(blank: str) -> None:
    s = CronJobScheduler()
    assert s.register_worker(blank) is False
    assert s.schedule_job(blank, 0, 0, 0, 0) is False
    assert s.engine.query.workers() == {}
    assert s.engine.query.jobs() == {}


def test_ids_with_surrogate_code_points_are_rejected_because_java_could_not_tell_them_apart():
    scheduler = CronJobScheduler()
    assert scheduler.register_worker("\ud83d\ude00") is False
    assert scheduler.register_worker("\U0001f600") is True
    assert scheduler.schedule_job("job-\udc00", 0, 0, 0, 0) is False
