"""Track, query, list: a job with its definition and next fire times, an occurrence with its full
attempt history, and lists of jobs and occurrences filtered by state, job, worker and tick range,
with paging; implicit (untouched) QUEUED occurrences of a backlog are listed too."""

from __future__ import annotations

import pytest
from engine_steps import add

from engine.core import Engine
from engine.model.commands import (
    CancelOccurrence,
    Complete,
    DeleteJob,
    Dispatch,
    PauseJob,
    RegisterWorker,
    WorkerDown,
)
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import AttemptOutcome, OccurrenceState, WorkerState
from engine.schedules.kinds import Every, Once

S = OccurrenceState


def make(workers: int = 1, **policy: object) -> Engine:
    engine = Engine(Policy(**policy))  # type: ignore[arg-type]
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    return engine


def rows(page) -> list[tuple[str, int, OccurrenceState]]:
    return [(r.job_id, r.scheduled, r.state) for r in page.items]


# ---------------------------------------------------------------------------------------- job_view


def test_job_view_has_definition_status_and_next_fire_times() -> None:
    engine = make()
    add(engine, "a", Every(0, 10), priority=2, payload="{}")
    view = engine.query.job_view("a")
    assert view is not None
    assert (view.status, view.next_fire_times) == ("active", (0, 10, 20, 30, 40))
    assert view.job.spec.priority == 2 and view.job.spec.payload == "{}"
    engine.advance(25)  # a@0, a@10, a@20 ran: next is 30
    assert engine.query.job_view("a").next_fire_times == (30, 40, 50, 60, 70)  # type: ignore[union-attr]
    assert engine.query.job_view("a", fire_times=2).next_fire_times == (30, 40)  # type: ignore[union-attr]
    assert engine.apply(PauseJob("a")).accepted
    assert engine.query.job_view("a").status == "paused"  # type: ignore[union-attr]
    assert engine.query.job_view("ghost") is None


def test_job_view_of_a_finished_or_deleted_job_has_no_fire_times() -> None:
    engine = make()
    add(engine, "once", Once(3))
    add(engine, "gone", Every(0, 5))
    engine.advance(7)  # one worker: gone@0 over [0, 1), once@3 over [3, 4), gone@5 over [5, 6)
    assert engine.apply(DeleteJob("gone")).accepted
    once, gone = engine.query.job_view("once"), engine.query.job_view("gone")
    assert once is not None and (once.status, once.next_fire_times) == ("active", ())
    assert gone is not None and (gone.status, gone.next_fire_times) == ("deleted", ())


# ---------------------------------------------------------------------------------- occurrence_row


def test_occurrence_row_has_the_full_attempt_history() -> None:
    # Two workers. a@0 attempt 1 on w1 fails at 2 (duration 2); attempt 2 on w1 from 2 is lost
    # when w1 goes down at 3; attempt 3 on w2 from 3 succeeds at 5.
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=2, max_attempts=2, fail_attempts=frozenset({1}))
    engine.advance(3)
    engine.begin_tick()
    assert engine.apply(WorkerDown("w1")).accepted
    engine.advance(6)
    row = engine.query.run("a", 0)
    assert row is not None and row.state is S.SUCCEEDED and row.record is not None
    assert [(a.number, a.worker_id, a.started, a.ended, a.outcome) for a in row.attempts] == [
        (1, "w1", 0, 2, AttemptOutcome.FAILED),
        (2, "w1", 2, 3, AttemptOutcome.LOST),
        (3, "w2", 3, 5, AttemptOutcome.SUCCEEDED),
    ]


def test_occurrence_row_of_implicit_future_and_unknown_occurrences() -> None:
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "a", Every(0, 10))
    engine.apply(Dispatch())  # a@0 runs on w1
    engine.advance(20)
    engine.apply(Dispatch())  # a@10 and a@20 created, waiting
    running = engine.query.run("a", 0)
    assert running is not None and running.state is S.RUNNING
    assert [(a.number, a.worker_id, a.ended, a.outcome) for a in running.attempts] == [
        (1, "w1", None, AttemptOutcome.RUNNING)
    ]
    waiting = engine.query.run("a", 10)
    assert waiting is not None and (waiting.state, waiting.record, waiting.attempts) == (
        S.QUEUED,
        None,
        [],
    )
    future = engine.query.run("a", 30)
    assert future is not None and (future.state, future.record) == (S.SCHEDULED, None)
    assert engine.query.run("a", 15) is None  # not a fire tick
    assert engine.query.run("ghost", 0) is None
    assert ("a", 10) not in engine.query.records()  # a query creates nothing


# -------------------------------------------------------------------------------- list_occurrences


def fleet() -> Engine:
    """Two workers, auto dispatch. By tick 30:

    - a every 10 from 0, duration 3: a@0 (w1, 0-3), a@10 (w1, 10-13), a@20 (w1, 20-23) succeed;
    - b every 15 from 5, attempt 1 scripted to fail, one try: b@5 on w1 (idle since 3, the lowest
      id) fails at 6; b@20 goes to w2 (a@20 took w1: "a" < "b" at the same tick) and fails at 21;
    - c once at 12, cancelled in advance at 0.
    """
    engine = make(workers=2)
    add(engine, "a", Every(0, 10), duration=3)
    add(engine, "b", Every(5, 15), fail_attempts=frozenset({1}))
    add(engine, "c", Once(12))
    assert engine.apply(CancelOccurrence("c")).accepted
    engine.advance(30)
    return engine


def test_list_occurrences_in_tick_then_id_order_with_filters() -> None:
    engine = fleet()
    everything = engine.query.runs()
    assert rows(everything) == [
        ("a", 0, S.SUCCEEDED),
        ("b", 5, S.FAILED),
        ("a", 10, S.SUCCEEDED),
        ("c", 12, S.CANCELLED),
        ("a", 20, S.SUCCEEDED),
        ("b", 20, S.FAILED),
    ]
    assert not everything.more
    assert rows(engine.query.runs(state=S.FAILED)) == [
        ("b", 5, S.FAILED),
        ("b", 20, S.FAILED),
    ]
    assert rows(engine.query.runs(job_id="a", state=S.SUCCEEDED)) == [
        ("a", 0, S.SUCCEEDED),
        ("a", 10, S.SUCCEEDED),
        ("a", 20, S.SUCCEEDED),
    ]
    assert [(r.job_id, r.scheduled) for r in engine.query.runs(worker_id="w2").items] == [("b", 20)]
    assert [(r.job_id, r.scheduled) for r in engine.query.runs(since=10, until=20).items] == [
        ("a", 10),
        ("c", 12),
        ("a", 20),
        ("b", 20),
    ]
    assert engine.query.runs(since=21).items == []
    assert engine.query.runs(job_id="ghost").items == []


def test_list_occurrences_paging() -> None:
    engine = fleet()
    first = engine.query.runs(limit=4)
    second = engine.query.runs(offset=4, limit=4)
    assert (len(first.items), first.more, first.offset) == (4, True, 0)
    assert (len(second.items), second.more, second.offset) == (2, False, 4)
    assert rows(first) + rows(second) == rows(engine.query.runs())
    exact = engine.query.runs(limit=6)
    assert (len(exact.items), exact.more) == (6, False)


def backlog(size: int) -> Engine:
    """Manual dispatch, reported completion: a (every 1 from 0) runs a@0 on the only worker; the
    dispatch at ``size`` creates a@1..a@size, which wait implicitly."""
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "a", Every(0, 1))
    engine.apply(Dispatch())
    engine.advance(size)
    engine.apply(Dispatch())
    return engine


def test_implicit_queued_rows_of_a_backlog_are_listed_and_paged() -> None:
    engine = backlog(1000)
    assert len(engine.query.records()) == 1  # only a@0 exists as a record
    page = engine.query.runs(state=S.QUEUED, offset=500, limit=3)
    assert rows(page) == [("a", 501, S.QUEUED), ("a", 502, S.QUEUED), ("a", 503, S.QUEUED)]
    assert page.more and all(r.record is None for r in page.items)
    last = engine.query.runs(state=S.QUEUED, offset=998, limit=5)
    assert (rows(last), last.more) == ([("a", 999, S.QUEUED), ("a", 1000, S.QUEUED)], False)
    everything = engine.query.runs(limit=2)
    assert rows(everything) == [("a", 0, S.RUNNING), ("a", 1, S.QUEUED)]
    assert rows(engine.query.runs(since=700, until=701)) == [
        ("a", 700, S.QUEUED),
        ("a", 701, S.QUEUED),
    ]
    assert engine.query.runs(state=S.RUNNING).items[0].scheduled == 0
    assert len(engine.query.records()) == 1  # listing created nothing


def test_a_million_queued_rows_cost_only_the_page() -> None:
    engine = backlog(10**6)
    page = engine.query.runs(state=S.QUEUED, limit=2)
    assert rows(page) == [("a", 1, S.QUEUED), ("a", 2, S.QUEUED)] and page.more
    assert len(engine.query.records()) == 1


def test_materialised_and_implicit_rows_merge_in_order() -> None:
    # As backlog(5), with b (once at 2) waiting too; a@3 is cancelled (so materialised).
    engine = make(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    add(engine, "a", Every(0, 1))
    add(engine, "b", Once(2))
    engine.apply(Dispatch())
    engine.advance(5)
    engine.apply(Dispatch())
    assert engine.apply(CancelOccurrence("a", 3)).accepted
    assert rows(engine.query.runs(since=1, until=4)) == [
        ("a", 1, S.QUEUED),
        ("a", 2, S.QUEUED),
        ("b", 2, S.QUEUED),
        ("a", 3, S.CANCELLED),
        ("a", 4, S.QUEUED),
    ]
    assert rows(engine.query.runs(state=S.QUEUED, job_id="b")) == [("b", 2, S.QUEUED)]
    # Work the backlog off: a@0 completes, the next dispatch takes a@1.
    assert engine.apply(Complete("a", 0, 1, True)).accepted
    assert [x.scheduled for x in engine.apply(Dispatch()).value] == [1]
    assert rows(engine.query.runs(until=1)) == [("a", 0, S.SUCCEEDED), ("a", 1, S.RUNNING)]


# ---------------------------------------------------------------------------------------- list_jobs


def test_list_jobs_with_status_filter_and_paging() -> None:
    engine = make()
    for n in range(5):
        add(engine, f"j{n}", Every(n, 10))
    assert engine.apply(PauseJob("j1")).accepted
    assert engine.apply(DeleteJob("j3")).accepted
    every = engine.query.job_views()
    assert [(v.job.job_id, v.status) for v in every.items] == [
        ("j0", "active"),
        ("j1", "paused"),
        ("j2", "active"),
        ("j3", "deleted"),
        ("j4", "active"),
    ]
    assert [v.next_fire_times for v in every.items] == [(0,), (1,), (2,), (), (4,)]
    assert [v.job.job_id for v in engine.query.job_views(status="active").items] == [
        "j0",
        "j2",
        "j4",
    ]
    page = engine.query.job_views(offset=1, limit=2)
    assert ([v.job.job_id for v in page.items], page.more) == (["j1", "j2"], True)
    page = engine.query.job_views(offset=3, limit=2)
    assert ([v.job.job_id for v in page.items], page.more) == (["j3", "j4"], False)


def test_list_jobs_active_means_a_run_not_final_or_a_run_to_come() -> None:
    # One worker, FIFO (tick, then id): done@0 runs over [0, 1), long@0 over [1, 11), then
    # queued@0 and rec@0 wait (implicitly QUEUED). later runs at 40; cancelled's only run was
    # cancelled. At 5, done and cancelled have no run left: they are not active (they used to
    # be). At 60 only the recurring job has a run to come.
    engine = make()
    add(engine, "done", Once(0))
    add(engine, "long", Once(0), duration=10)
    add(engine, "queued", Once(0))
    add(engine, "later", Once(40))
    add(engine, "cancelled", Once(50))
    add(engine, "rec", Every(0, 100))
    assert engine.apply(CancelOccurrence("cancelled")).accepted
    engine.advance(5)
    assert rows(engine.query.runs(until=0)) == [
        ("done", 0, S.SUCCEEDED),
        ("long", 0, S.RUNNING),
        ("queued", 0, S.QUEUED),
        ("rec", 0, S.QUEUED),
    ]
    active = engine.query.job_views(status="active")
    assert [v.job.job_id for v in active.items] == ["long", "queued", "later", "rec"]
    engine.advance(60)
    assert [v.job.job_id for v in engine.query.job_views(status="active").items] == ["rec"]
    assert len(engine.query.job_views().items) == 6


# -------------------------------------------------------------------------------------- worker_rows


def test_worker_rows_utilisation() -> None:
    # w1 (registered at 0) runs a@0 over [0, 10), goes down at 15: at 20, busy 10 of 20 ticks.
    # w2 (registered at 0, down at 15) never worked: 0.0. w3 (registered at 15) runs b@15
    # (duration 10) from 15: busy 5 of 5 ticks, attempt 1. w4 (registered at 16) is idle: 0 of 4.
    engine = make(workers=2)
    add(engine, "a", Once(0), duration=10)
    engine.advance(15)
    assert engine.apply(RegisterWorker("w3")).accepted
    add(engine, "b", Once(15), duration=10)
    assert engine.apply(WorkerDown("w1")).accepted
    assert engine.apply(WorkerDown("w2")).accepted
    engine.advance(16)
    assert engine.apply(RegisterWorker("w4")).accepted
    engine.advance(20)
    table = {r.worker_id: r for r in engine.query.worker_rows()}
    assert (table["w1"].state, table["w1"].running, table["w1"].utilisation) == (
        WorkerState.DOWN,
        None,
        0.5,
    )
    assert (table["w2"].state, table["w2"].utilisation) == (WorkerState.DOWN, 0.0)
    assert (table["w4"].state, table["w4"].utilisation) == (WorkerState.IDLE, 0.0)
    w3 = table["w3"]
    assert (w3.state, w3.running, w3.attempt, w3.since, w3.utilisation) == (
        WorkerState.BUSY,
        ("b", 15),
        1,
        15,
        1.0,
    )


@pytest.mark.parametrize("now", [0, 7])
def test_worker_rows_of_a_fresh_worker(now: int) -> None:
    engine = make(workers=0)
    engine.advance(now)
    assert engine.apply(RegisterWorker("w")).accepted
    (row,) = engine.query.worker_rows()
    assert (row.state, row.utilisation, row.since) == (WorkerState.IDLE, 0.0, now)


def test_an_engine_without_the_index_by_state_answers_by_key_and_refuses_by_state() -> None:
    """``Engine(indexed=False)`` (``cronlapse script``'s) keeps no index of its runs by state:
    a run, its state and its attempts read by key as in any engine; a question by state is
    refused rather than answered from an index that is not kept."""
    indexed, unindexed = make(), Engine(indexed=False)
    assert unindexed.apply(RegisterWorker("w1")).accepted
    for engine in (indexed, unindexed):
        add(engine, "a", Once(0), duration=2)
        add(engine, "b", Once(0), duration=2)
        engine.advance(3)
    for engine in (indexed, unindexed):
        assert engine.query.run_state("a", 0) is S.SUCCEEDED
        assert engine.query.run_state("b", 0) is S.RUNNING
        assert [a.outcome for a in engine.query.attempts("a", 0)] == [AttemptOutcome.SUCCEEDED]
    assert list(indexed.query.record_keys(S.SUCCEEDED)) == [("a", 0)]
    assert indexed.query.count_runs(state=S.RUNNING) == 1
    for question in (
        lambda: unindexed.query.record_keys(S.SUCCEEDED),
        lambda: unindexed.query.live_record_keys(S.RUNNING),
        lambda: unindexed.query.count_runs(state=S.RUNNING),
    ):
        with pytest.raises(TypeError, match="does not index its runs by state"):
            question()
