"""The dashboard's model on plain values: moves, incremental indexes, lanes, script adapter."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tui_helpers import small_session

from engine import run_script
from engine.core import Engine
from engine.facades.script import event_line, execute_script
from engine.model.commands import (
    CancelOccurrence,
    Command,
    DeleteJob,
    ModifyJob,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
)
from engine.model.records import CatchUp, JobSpec, OccurrenceState
from engine.play.history import History
from engine.play.ticks import at_ticks
from engine.schedules.kinds import Every
from tui.model.indexes import LogIndex, SortedIndex, text_matcher
from tui.model.lanes import Lanes
from tui.model.live import service_engine
from tui.model.navigator import Navigator, merge
from tui.model.rows import (
    EventRows,
    OccurrenceRows,
    final_rows,
    natural_key,
    notification_rows,
    retry_rows,
    worker_rows,
)
from tui.model.script import script_run
from tui.model.session import LoadFailed, empty_session, load_session

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _models(engine_ref):
    return [
        OccurrenceRows(),
        retry_rows(engine_ref),
        final_rows(),
        worker_rows(),
        notification_rows(engine_ref),
        EventRows(),
    ]


def _keys(model) -> list:
    return [model.index.key_at(i) for i in range(len(model.index))]


def _lanes(lanes: Lanes, workers) -> dict:
    return {worker: lanes.spans.get(worker, []) for worker in workers}


moves = st.lists(
    st.one_of(
        st.tuples(st.just("step"), st.integers(-12, 12)),
        st.tuples(st.just("seek"), st.integers(0, 70)),
        st.tuples(st.just("ends"), st.booleans()),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=40)
@given(moves)
def test_indexes_updated_from_changes_equal_a_rebuild(plan) -> None:
    """After any sequence of steps, rewinds and seeks, every incrementally updated index holds
    exactly the rows a rebuild from the engine would hold, in the same order."""
    navigator = Navigator(small_session().history)
    models = _models(lambda: navigator.engine)
    lanes = Lanes()
    for model in models:
        model.rebuild(navigator.engine)
    lanes.rebuild(navigator.engine)
    for kind, value in plan:
        if kind == "step":
            change = navigator.step(value)
        elif kind == "seek":
            change = navigator.seek(value)
        else:
            change = navigator.last() if value else navigator.first()
        for model in models:
            model.apply(change, navigator.engine)
        lanes.apply(change, navigator.engine)
        fresh = _models(lambda: navigator.engine)
        for model, rebuilt in zip(models, fresh, strict=True):
            rebuilt.rebuild(navigator.engine)
            assert _keys(model) == _keys(rebuilt), type(model).__name__
        rebuilt_lanes = Lanes()
        rebuilt_lanes.rebuild(navigator.engine)
        workers = navigator.engine.query.workers()
        assert _lanes(lanes, workers) == _lanes(rebuilt_lanes, workers)


def test_a_step_reports_the_events_it_added_and_a_rewind_those_it_undid() -> None:
    navigator = Navigator(small_session().history)
    forward = navigator.step(3)
    assert forward.forward and (forward.before, forward.after) == (0, 3)
    assert [e.tick for e in forward.events] == sorted(e.tick for e in forward.events)
    assert all(0 < e.tick <= 3 for e in forward.events)
    back = navigator.step(-2)
    assert not back.forward and back.after == 1
    assert back.events == [e for e in forward.events if e.tick > 1]
    assert navigator.step(0).moved is False


def test_merge_joins_forward_changes() -> None:
    navigator = Navigator(small_session().history)
    first, second = navigator.step(1), navigator.step(1)
    merged = merge([first, second])
    assert (merged.before, merged.after) == (0, 2)
    assert list(merged.events) == [*first.events, *second.events]


def test_seek_is_clamped_to_the_run() -> None:
    navigator = Navigator(small_session().history)
    navigator.seek(10_000)
    assert navigator.tick == 60
    navigator.seek(-5)
    assert navigator.tick == 0


def test_sorted_index_filters_and_finds_positions() -> None:
    index = SortedIndex(lambda key: (key % 10,))
    index.reset([13, 21, 5, 40])
    assert [index.key_at(i) for i in range(len(index))] == [40, 21, 13, 5]
    index.put(2)
    assert index.position(2) == 2
    index.set_filter(lambda key: key > 10)
    assert [index.key_at(i) for i in range(len(index))] == [40, 21, 13]
    assert index.position(5) is None and index.total == 5
    index.discard(21)
    assert [index.key_at(i) for i in range(len(index))] == [40, 13]


def test_log_index_keeps_its_filter_through_growth_and_truncation() -> None:
    index = LogIndex()
    index.resize(10)
    index.set_filter(lambda position: position % 3 == 0)
    assert [index.key_at(i) for i in range(len(index))] == [0, 3, 6, 9]
    index.resize(14)
    assert len(index) == 5 and index.position(12) == 4
    index.resize(5)
    assert [index.key_at(i) for i in range(len(index))] == [0, 3]


def test_text_matcher_needs_every_word_and_refuses_bang_words() -> None:
    match = text_matcher("etl !succeeded", lambda row: row)
    assert match("etl RUNNING w1") and not match("etl SUCCEEDED") and not match("report")
    assert text_matcher("   ", str) is None


def test_natural_order_puts_w2_before_w10() -> None:
    assert sorted(["w10", "w2", "w1"], key=natural_key) == ["w1", "w2", "w10"]
    assert sorted(["w²", "w2"], key=natural_key) == ["w2", "w²"], "only 0-9 are read as numbers"


SCRIPT = """\
INIT 2 3
SUBMIT A 1 3 2 0
SUBMIT B 5 2 1 0
FAIL A 1
TICK 4
SUBMIT C 0 1 1 1 A
TICK 20
STATUS C
"""


def test_a_script_replays_as_the_protocol_runs_it() -> None:
    """The adapter's timeline, replayed by history, gives the events the protocol printed."""
    run = script_run(SCRIPT.splitlines())
    assert not execute_script(SCRIPT.splitlines()).problems
    history = History(run.new_engine, run.timeline, run.until)
    navigator = Navigator(history)
    navigator.seek(run.until - 1)
    printed = [line for e in history.engine.log if (line := event_line(e)) is not None]
    expected = [line for line in run_script(SCRIPT.splitlines()) if line.split()[0] != "OK"]
    expected = [line for line in expected if not line.startswith("C ")]
    assert sorted(printed) == sorted(expected)


def test_every_session_the_dashboard_opens_rewinds_an_archiving_engine(tmp_path: Path) -> None:
    """One kind of engine under History: finished runs leave the live state, so keyframes and
    a step back cost live work, whatever the file (and a service's journal) played."""
    script = tmp_path / "run.txt"
    script.write_text(SCRIPT)
    scenario = load_session(SCENARIOS / "seed-000-example-1.yaml")
    sessions = [scenario, load_session(script), empty_session()]
    assert all(session.engine.archives for session in sessions)
    assert service_engine().archives


def test_a_scripts_rejected_lines_are_reported_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("INIT 2 3\nSUBMIT A x 1 1 0\nTICK 2\n")
    with pytest.raises(LoadFailed) as caught:
        load_session(path)
    problems = [(p.line, p.message) for p in caught.value.problems]
    assert problems == [(2, "priority must be an integer, got 'x'")]


lifecycle = st.lists(
    st.tuples(
        st.integers(1, 60),
        st.sampled_from(["a", "b"]),
        st.one_of(
            st.tuples(st.just("modify"), st.integers(0, 70), st.integers(1, 12)),
            st.just(("pause",)),
            st.just(("resume",)),
            st.just(("delete",)),
            st.just(("cancel",)),
            st.just(("worker",)),
        ),
    ),
    max_size=8,
)


def _lifecycle_command(job_id: str, action: tuple) -> Command:
    match action:
        case ("modify", first, interval):
            return ModifyJob.of(job_id, schedule=Every(first, interval), max_attempts=2)
        case ("pause",):
            return PauseJob(job_id)
        case ("resume",):
            return ResumeJob(job_id, CatchUp.ALL)
        case ("delete",):
            return DeleteJob(job_id)
        case ("cancel",):
            return CancelOccurrence(job_id)
    return RegisterWorker(f"w-{job_id}")


@settings(max_examples=60)
@given(plan=lifecycle, seeks=st.lists(st.integers(0, 80), min_size=1, max_size=6))
def test_occurrence_rows_show_each_job_front_as_the_query_api_lists_it(plan, seeks) -> None:
    """Whatever modify, pause, resume, delete and cancel did, the occurrences table holds every
    materialised run and, per job, the first run the query API lists as waiting implicitly."""
    timeline: list[tuple[int, Command]] = [
        (0, ScheduleJob(JobSpec("a", Every(0, 5), duration=4))),
        (0, ScheduleJob(JobSpec("b", Every(2, 7), duration=9))),
    ]
    timeline += [(tick, _lifecycle_command(job_id, action)) for tick, job_id, action in plan]
    timeline.sort(key=lambda item: item[0])
    navigator = Navigator(History(Engine, at_ticks(timeline), 80))
    rows = OccurrenceRows()
    rows.rebuild(navigator.engine)
    for tick in seeks:
        rows.apply(navigator.seek(tick), navigator.engine)
        engine = navigator.engine
        waiting = engine.query.runs(state=OccurrenceState.QUEUED, limit=10_000).items
        fronts: dict[str, int] = {}
        for row in waiting:
            if row.record is None:
                fronts.setdefault(row.job_id, row.scheduled)
        assert set(_keys(rows)) == set(engine.query.records()) | set(fronts.items())
