"""Keyframes: spans merge by levels, a jump reads few of them, and its cost is the records changed.

The exactness of jumps (every state equals a fresh run) is tested by the rollback machine
(test_rollback_stateful.py) and the history's walks (test_history.py); here, the structure and
the complexity: counts, never times.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.model.events import EventRecords
from engine.rewind.journal import Mark
from engine.rewind.keyframes import FANOUT, Keyframe, Span, Timeline, merge


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
