"""Runs kept as ranges: a deleted job's cancelled backlog and a dependent's blocked runs.

The engine keeps such runs implicit (one range per job, see docs/engine.md, "Lazy occurrences"),
but nothing a user sees may depend on that: the status query, the listing and its counts, the
notifications and the run summary must be the ones the same runs would give as records.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.invariants import violations
from cronlapse.analyses.stats import run_stats
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import (
    Advance,
    CancelOccurrence,
    DeleteJob,
    Dispatch,
    ModifyJob,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
)
from engine.model.policies import CompletionMode, DispatchMode, DispatchOrder, Policy
from engine.model.records import (
    CancelReason,
    CatchUp,
    Channel,
    JobSpec,
    NotifyOn,
    OccurrenceState,
    Subscription,
)
from engine.scenario.checks import StateCount
from engine.schedules.kinds import Every, Once

S = OccurrenceState

ON_CANCEL = (
    Subscription(frozenset({NotifyOn.CANCELLED}), Channel.EMAIL, "ops@example.com"),
    Subscription(frozenset({NotifyOn.CANCELLED, NotifyOn.FAILED}), Channel.WEBHOOK, "https://h"),
)


def rows(engine: Engine, **filters: object) -> list[tuple]:
    page = engine.query.runs(limit=1000, **filters)  # type: ignore[arg-type]
    return [(r.job_id, r.scheduled, r.state) for r in page.items]


def waiting_backlog() -> Engine:
    """Manual dispatch, priority order: w1 runs b@0 (never reported), so a@10 .. a@50 wait."""
    engine = Engine(
        Policy(
            order=DispatchOrder.PRIORITY,
            dispatch=DispatchMode.MANUAL,
            completion=CompletionMode.REPORTED,
        )
    )
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("b", Once(0))))
    engine.apply(ScheduleJob(JobSpec("a", Every(10, 10), notify=ON_CANCEL)))
    engine.apply(Dispatch())
    engine.apply(Advance(50))
    engine.apply(Dispatch())
    return engine


def notifications(engine: Engine) -> list[ev.Event]:
    return [e for e in engine.log if isinstance(e, ev.NotificationEvent)]


def test_deleting_a_backlog_shows_the_same_runs_and_notifications_as_records() -> None:
    # Two engines with the same five waiting runs a@10 .. a@50: in one they stay implicit, in the
    # other a priority change (priority order) materialises them first. Deleting a must then look
    # the same to a user: every run listed as CANCELLED, a "cancelled" notification per run and
    # subscription, in the same order, and the same count of cancellations in the summary.
    lazy, eager = waiting_backlog(), waiting_backlog()
    assert eager.apply(ModifyJob.of("a", priority=0)).accepted
    assert len(eager.query.records()) == 6 and len(lazy.query.records()) == 1
    for engine in (lazy, eager):
        assert engine.apply(DeleteJob("a")).accepted
        engine.apply(Advance(60))
    runs = [("a", t, S.CANCELLED) for t in (10, 20, 30, 40, 50)]
    assert rows(lazy, state=S.CANCELLED) == rows(eager, state=S.CANCELLED) == runs
    assert rows(lazy, job_id="a") == rows(eager, job_id="a") == runs
    assert rows(lazy) == rows(eager)
    assert list(lazy.query.notifications()) == list(eager.query.notifications())
    assert notifications(lazy) == notifications(eager)
    ticks = [key[1] for key in lazy.query.notifications()]
    assert ticks == [t for t in (10, 20, 30, 40, 50) for _ in "ew"]
    summary = run_stats(lazy.log, lazy.now).jobs["a"].cancellations
    assert summary == run_stats(eager.log, eager.now).jobs["a"].cancellations == 5
    assert violations(lazy) == []


def test_a_recurring_job_blocked_for_a_million_ticks_makes_no_record_per_run() -> None:
    # r fires every tick and depends on d, which runs only at 1_000_000 (for 5 ticks). Until then
    # every run of r is BLOCKED, by arithmetic: no record and no event per run.
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("d", Once(1_000_000), duration=5)))
    engine.apply(ScheduleJob(JobSpec("r", Every(0, 1), depends_on=("d",))))
    engine.apply(Advance(1_000_000))
    assert engine.query.run_state("r", 0) is S.BLOCKED
    assert engine.query.run_state("r", 999_999) is S.BLOCKED
    assert engine.query.run_state("r", 1_000_000) is S.SCHEDULED
    assert len(engine.query.records()) == 0
    assert len(engine.log) < 10
    page = engine.query.runs(state=S.BLOCKED, offset=999_998, limit=5)
    assert [(r.scheduled, r.record) for r in page.items] == [(999_998, None), (999_999, None)]
    assert not page.more


def test_deleting_a_backlog_is_counted_and_its_rows_say_why() -> None:
    engine = waiting_backlog()
    assert engine.apply(CancelOccurrence("a", 30)).accepted  # a record, inside the range
    assert engine.apply(DeleteJob("a")).accepted
    assert ev.BacklogCancelled(50, "a", 10, 50, 4, CancelReason.DELETED, None) in engine.log
    assert engine.query.count_runs(state=S.CANCELLED) == 5
    assert engine.query.count_runs(state=S.CANCELLED, job_id="a") == 5
    assert engine.query.count_runs(state=S.QUEUED, job_id="a") == 0
    assert engine.query.count_runs(job_id="a") == 5
    assert StateCount("a", S.CANCELLED, 5).verify(engine) is None
    reasons = [(r.scheduled, r.cancel_reason) for r in engine.query.runs(state=S.CANCELLED).items]
    assert reasons == [
        (10, CancelReason.DELETED),
        (20, CancelReason.DELETED),
        (30, CancelReason.USER),
        (40, CancelReason.DELETED),
        (50, CancelReason.DELETED),
    ]
    row = engine.query.run("a", 40)
    assert row is not None and (row.state, row.record, row.cancel_reason) == (
        S.CANCELLED,
        None,
        CancelReason.DELETED,
    )


def dependent(fail: bool, **spec: object) -> Engine:
    """d runs at 20 (1 tick; fails for good if ``fail``); r every 5 from 0 depends on it."""
    engine = Engine()
    engine.apply(RegisterWorker("w1"))
    failures = frozenset({1}) if fail else frozenset()
    engine.apply(ScheduleJob(JobSpec("d", Once(20), fail_attempts=failures)))
    engine.apply(ScheduleJob(JobSpec("r", Every(0, 5), depends_on=("d",), **spec)))  # type: ignore[arg-type]
    engine.apply(Advance(20))
    return engine


def test_blocked_runs_are_listed_counted_and_unblocked_as_one_range() -> None:
    # r@0 .. r@15 fall due blocked. d runs at 20 and succeeds at 21: r@0 .. r@20 are unblocked
    # together, then run one a tick on w1 (r@20 fell due at 20, still blocked).
    engine = dependent(fail=False)
    blocked = [("r", t, S.BLOCKED) for t in (0, 5, 10, 15)]
    assert rows(engine, state=S.BLOCKED) == rows(engine, job_id="r") == blocked
    assert engine.query.count_runs(state=S.BLOCKED) == 4
    assert StateCount("r", S.BLOCKED, 4).verify(engine) is None
    assert [e for e in engine.log if isinstance(e, ev.OccurrenceBlocked)] == [
        ev.OccurrenceBlocked(0, "r", 0)
    ]
    engine.apply(Advance(22))  # tick 21: d@20 succeeds, r@0 starts
    assert rows(engine, state=S.BLOCKED) == []
    assert rows(engine, job_id="r") == [("r", 0, S.RUNNING)] + [
        ("r", t, S.QUEUED) for t in (5, 10, 15, 20)
    ]
    assert [e for e in engine.log if isinstance(e, ev.OccurrenceUnblocked)] == [
        ev.OccurrenceUnblocked(21, "r", 0)
    ]
    engine.apply(Advance(30))
    starts = [(e.tick, e.scheduled) for e in engine.log if isinstance(e, ev.AttemptStarted)]
    assert starts == [(20, 20), (21, 0), (22, 5), (23, 10), (24, 15), (25, 20), (26, 25)]
    assert violations(engine) == []


def test_a_cascade_cancels_blocked_runs_as_one_range_notified_run_by_run() -> None:
    # d fails for good at 21: r@0 .. r@20 (blocked) are cancelled by cascade, as one range.
    engine = dependent(fail=True, notify=ON_CANCEL)
    engine.apply(Advance(22))
    assert ev.BacklogCancelled(21, "r", 0, 20, 5, CancelReason.CASCADE, "d") in engine.log
    assert not any(isinstance(e, ev.OccurrenceCancelled) for e in engine.log)
    assert rows(engine, job_id="r") == [("r", t, S.CANCELLED) for t in (0, 5, 10, 15, 20)]
    assert {r.cancel_cause for r in engine.query.runs(job_id="r").items} == {"d"}
    assert engine.query.count_runs(state=S.CANCELLED) == 5
    assert [key[:4] for key in engine.query.notifications()] == [
        ("r", t, 0, "cancelled") for t in (0, 5, 10, 15, 20) for _ in "ew"
    ]
    assert engine.query.run_state("r", 25) is None  # never created
    assert run_stats(engine.log, engine.now).jobs["r"].cancellations == 5
    assert violations(engine) == []


def test_cancelling_the_run_that_opened_a_blocked_range_keeps_the_rest_blocked() -> None:
    engine = dependent(fail=False)
    assert engine.apply(CancelOccurrence("r", 0)).accepted
    assert rows(engine, job_id="r") == [("r", 0, S.CANCELLED)] + [
        ("r", t, S.BLOCKED) for t in (5, 10, 15)
    ]
    engine.apply(Advance(22))
    assert ev.OccurrenceUnblocked(21, "r", 5) in engine.log
    assert engine.query.run_state("r", 5) is S.RUNNING


STEPS = st.one_of(
    st.builds(lambda k: ("advance", k), st.integers(1, 12)),
    st.just(("dispatch",)),
    st.builds(
        lambda j, t: ("cancel", j, t), st.sampled_from("drs"), st.none() | st.integers(0, 60)
    ),
    st.builds(lambda j: ("delete", j), st.sampled_from("drs")),
    st.builds(lambda j: ("pause", j), st.sampled_from("rs")),
    st.builds(lambda j, c: ("resume", j, c), st.sampled_from("rs"), st.sampled_from(CatchUp)),
    st.builds(lambda j, p: ("priority", j, p), st.sampled_from("rs"), st.integers(0, 2)),
    st.builds(lambda j, n: ("every", j, n), st.sampled_from("rs"), st.integers(1, 4)),
)


def command(engine: Engine, step: tuple):
    match step:
        case ("advance", k):
            return Advance(engine.now + k)
        case ("dispatch",):
            return Dispatch()
        case ("cancel", job_id, tick):
            return CancelOccurrence(job_id, tick)
        case ("delete", job_id):
            return DeleteJob(job_id)
        case ("pause", job_id):
            return PauseJob(job_id)
        case ("resume", job_id, catch_up):
            return ResumeJob(job_id, catch_up)
        case ("priority", job_id, priority):
            return ModifyJob.of(job_id, priority=priority)
        case ("every", job_id, interval):
            return ModifyJob.of(job_id, schedule=Every(engine.now, interval))
    raise AssertionError(step)


def assert_views_agree(engine: Engine) -> None:
    """The listing, the counts, the status query and the ranges all tell the same story."""
    everything = engine.query.runs(limit=10_000).items
    for row in everything:
        assert engine.query.run_state(row.job_id, row.scheduled) is row.state, row
    for state in S:
        listed = [r for r in everything if r.state is state]
        assert engine.query.runs(state=state, limit=10_000).items == listed
        if state is not S.SCHEDULED:
            assert engine.query.count_runs(state=state) == len(listed), state
    for job in engine.query.jobs().values():
        waiting = engine.query.implicit_range(job.job_id)
        if waiting is not None:
            ticks = list(engine.query.implicit_runs(job.job_id, waiting.first, waiting.last))
            counted = engine.query.run_counter().between(job.job_id, waiting.first, waiting.last)
            assert counted == len(ticks)
            assert ticks, "a range always holds a run"


@settings(max_examples=150)
@given(
    manual=st.booleans(),
    order=st.sampled_from([DispatchOrder.FIFO, DispatchOrder.PRIORITY]),
    d_at=st.integers(0, 30),
    d_fails=st.booleans(),
    r_every=st.integers(1, 4),
    steps=st.lists(STEPS, max_size=14),
)
def test_ranges_agree_with_the_status_query_the_listing_and_the_counts(
    manual: bool, order: DispatchOrder, d_at: int, d_fails: bool, r_every: int, steps: list
) -> None:
    engine = Engine(
        Policy(order=order, dispatch=DispatchMode.MANUAL if manual else DispatchMode.AUTO)
    )
    engine.apply(RegisterWorker("w1"))
    failures = frozenset({1}) if d_fails else frozenset()
    engine.apply(ScheduleJob(JobSpec("d", Once(d_at), fail_attempts=failures, notify=ON_CANCEL)))
    engine.apply(ScheduleJob(JobSpec("r", Every(1, r_every), depends_on=("d",), notify=ON_CANCEL)))
    engine.apply(ScheduleJob(JobSpec("s", Every(0, 3), duration=2, notify=ON_CANCEL)))
    for step in steps:
        engine.apply(command(engine, step))
        assert_views_agree(engine)
    assert violations(engine) == []


def _engine_lines(action) -> int:
    """Lines of engine code executed by ``action()``: a count of work that, unlike time, does
    not depend on the machine."""
    engine_dir = str(Path(ev.__file__).parent)
    lines = 0

    def trace(frame, event, arg):
        nonlocal lines
        if not frame.f_code.co_filename.startswith(engine_dir):
            return None
        if event == "line":
            lines += 1
        return trace

    sys.settrace(trace)
    try:
        action()
    finally:
        sys.settrace(None)
    return lines


def _many_records_then_delete(other_jobs_runs: int) -> tuple[int, int]:
    """An engine whose other jobs have about ``other_jobs_runs`` records, one job with a small
    backlog deleted there and its cancelled range read: the engine lines that took, and the
    cancelled runs."""
    engine = Engine(Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED))
    engine.apply(RegisterWorker("w"))
    engine.apply(ScheduleJob(JobSpec("busy", Every(0, 1), duration=1)))
    engine.advance(other_jobs_runs)
    assert len(engine.query.records()) >= other_jobs_runs - 1
    start = engine.now
    engine.apply(ScheduleJob(JobSpec("late", Every(start, 1), priority=-1)))
    engine.advance(start + 5)
    # "late" never ran: its runs wait as one range (the worker always takes "busy" first).
    assert engine.query.implicit_range("late") is not None

    def delete_and_read() -> None:
        assert engine.apply(DeleteJob("late")).accepted
        assert engine.query.cancelled_range("late") is not None

    lines = _engine_lines(delete_and_read)
    view = engine.query.cancelled_range("late")
    assert view is not None
    return lines, view.runs


def test_deleting_a_job_costs_its_own_runs_not_every_record_in_the_engine() -> None:
    """Counting a deleted job's cancelled range subtracts the records inside it; finding them
    must not read every other job's records (a cascade over many jobs was quadratic, and so
    was the dashboard's table of cancellations)."""
    few_lines, few_runs = _many_records_then_delete(200)
    many_lines, many_runs = _many_records_then_delete(20_000)
    assert few_runs == many_runs
    assert many_lines < few_lines * 1.5, (few_lines, many_lines)


def test_counting_the_queued_runs_costs_the_ranges_not_every_record() -> None:
    """The service samples the queue depth every second (``cronlapse_queue_depth``): a count
    that read every record would make a long-running scheduler slower by the hour."""

    def engine_with(other_jobs_runs: int) -> Engine:
        engine = Engine(Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED))
        engine.apply(RegisterWorker("w"))
        engine.apply(ScheduleJob(JobSpec("busy", Every(0, 1), duration=1)))
        engine.advance(other_jobs_runs)
        start = engine.now
        engine.apply(ScheduleJob(JobSpec("late", Every(start, 1), priority=-1)))
        engine.advance(start + 5)
        return engine

    few, many = engine_with(200), engine_with(20_000)
    counts: list[int] = []
    few_lines = _engine_lines(lambda: counts.append(few.query.count_runs(state=S.QUEUED)))
    many_lines = _engine_lines(lambda: counts.append(many.query.count_runs(state=S.QUEUED)))
    assert counts[0] == counts[1] > 0
    assert many_lines < few_lines * 1.5, (few_lines, many_lines)
