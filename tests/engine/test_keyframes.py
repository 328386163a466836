"""Keyframes: spans merge by levels, a jump reads few of them, and its cost is the records changed.

The exactness of jumps (every state equals a fresh run) is tested by the rollback machine
(test_rollback_stateful.py) and the history's walks (test_history.py); here, the structure and
the complexity: counts, never times.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core import Engine
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.events import EventRecords
from engine.model.records import JobSpec
from engine.play.history import History
from engine.play.ticks import at_ticks
from engine.rewind.journal import Mark
from engine.rewind.keyframes import FANOUT, Keyframe, Span, Timeline, merge
from engine.schedules.kinds import Every


def timeline_of(count: int) -> Timeline:
    """``count`` keyframes; span ``i`` (before keyframe ``i + 1``) changed record ``i`` only."""
    timeline = Timeline()
    for index in range(count):
        mark = Mark(index, (), None, index, ())
        before = {-1: {index - 1: ("before", index - 1)}}
        span = Span(before, {index - 1: ("after", index - 1)}, ({},))
        timeline.add(
            Keyframe(index, mark, ()), span if index else None, EventRecords(bytearray(), [])
        )
    return timeline


@given(data=st.data(), count=st.integers(1, 700))
def test_a_cover_is_the_spans_between_two_keyframes_in_few_merged_ones(data, count):
    timeline = timeline_of(count)
    low = data.draw(st.integers(0, count - 1))
    high = data.draw(st.integers(low, count - 1))
    spans = timeline.cover(low, high)
    keys = [key for span in spans for group in span.before.values() for key in group]
    assert sorted(keys) == list(range(low, high))  # each span once
    assert len(spans) <= 2 * (FANOUT - 1) * len(timeline.levels)


@given(count=st.integers(2, 300), keep=st.data())
def test_truncating_keeps_the_merged_spans_of_what_is_kept(count, keep):
    timeline = timeline_of(count)
    kept = keep.draw(st.integers(1, count))
    timeline.truncate(kept)
    assert len(timeline.keyframes) == kept
    keys = [key for span in timeline.cover(0, kept - 1) for g in span.before.values() for key in g]
    assert sorted(keys) == list(range(kept - 1))


def test_a_merged_span_keeps_the_earliest_value_before_and_the_latest_after():
    first = Span({-1: {1: ("a", 1)}}, {1: ("a", 2)}, ({"k1": "r1"},))
    second = Span(
        {-1: {1: ("a", 2)}, 0: {2: ("b", 1)}}, {1: ("a", 3), 2: ("b", 2)}, ({"k2": "r2"},)
    )
    merged = merge([first, second])
    assert merged.before == {-1: {1: ("a", 1)}, 0: {2: ("b", 1)}}
    assert first.before == {-1: {1: ("a", 1)}}  # merging copies: the spans keep their own
    assert merged.after == {1: ("a", 3), 2: ("b", 2)}
    assert merged.born == ({"k1": "r1", "k2": "r2"},)
    assert list(merged.born[0]) == ["k1", "k2"]  # in the order they were made


JOBS = 10
TICKS = 3_000


def busy_history(span_cost: int) -> History:
    """Ten jobs falling due every tick on three workers: every tick changes records."""
    commands = [(0, RegisterWorker(f"w{index}")) for index in range(3)]
    commands += [(0, ScheduleJob(JobSpec(f"j{index}", Every(0, 1)))) for index in range(JOBS)]
    return History(Engine, at_ticks(commands), until=TICKS, span_cost=span_cost)


def count_restored(monkeypatch) -> list[int]:
    """Spy on jumps: how many records each restores."""
    restored: list[int] = []
    back, forward = Timeline.values_back, Timeline.values_forward

    def values_back(self, low, high):
        values = back(self, low, high)
        restored.append(len(values))
        return values

    def values_forward(self, low, high):
        values, spans = forward(self, low, high)
        restored.append(len(values))
        return values, spans

    monkeypatch.setattr(Timeline, "values_back", values_back)
    monkeypatch.setattr(Timeline, "values_forward", values_forward)
    return restored


def test_a_jump_across_the_run_restores_the_records_changed_not_the_changes(monkeypatch):
    history = busy_history(span_cost=100)
    history.seek(TICKS)
    engine = history.engine
    changes = len(engine.log)
    assert changes > 20 * (JOBS + 3 + len(engine.query.records()) // 100)
    restored = count_restored(monkeypatch)
    history.seek(20)
    existing = len(engine.query.jobs()) + len(engine.query.workers()) + len(engine.query.records())
    assert restored[-1] <= existing
    history.seek(TICKS)
    # Forward, the runs made on the way go back into their tables; only those changed after
    # the span they were made in are restored (an attempt running across a keyframe).
    born = len(engine.query.records())
    assert restored[-1] <= JOBS + 3 + born // 10


def test_the_history_keeps_the_restore_points_of_two_spans_only():
    span_cost = 50
    history = busy_history(span_cost)
    history.seek(TICKS)
    assert len(history.engine.journal.keyframes) > TICKS // (2 * span_cost)
    assert len(history._marks) <= 2 * span_cost + 1
    assert len(history.engine.journal.generations) <= 2 * span_cost + 2


def test_the_end_of_a_bounded_run_is_a_keyframe_so_the_first_step_back_takes_none():
    history = busy_history(span_cost=10_000)
    history.seek(TICKS)
    journal = history.engine.journal
    assert journal.keyframes[-1].label == TICKS
    count = len(journal.keyframes)
    history.step_back()
    assert len(journal.keyframes) == count
    history.seek(TICKS)
    assert history.engine.now == TICKS and len(journal.keyframes) == count
