"""The dashboard's event vocabulary: every event type the engine emits reads as a word, a colour
and a detail, looked up by type."""

from __future__ import annotations

import dataclasses
import sys
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model import events as ev
from tui.describe import detail, event_style, event_word
from tui.states import PLAIN


def concrete_event_types() -> list[type[ev.Event]]:
    """Every ``Event`` subclass that has none of its own (the bases only group), recursively.

    ``dataclass(slots=True)`` makes a new class and leaves the first one among its base's
    subclasses: only the class its module names counts."""
    found: list[type[ev.Event]] = []
    waiting = [ev.Event]
    while waiting:
        kind = waiting.pop()
        subclasses = [
            sub
            for sub in kind.__subclasses__()
            if getattr(sys.modules[sub.__module__], sub.__qualname__, None) is sub
        ]
        waiting += subclasses
        if not subclasses:
            found.append(kind)
    return sorted(found, key=lambda kind: kind.__name__)


def test_the_walk_finds_the_event_types() -> None:
    kinds = concrete_event_types()
    assert ev.BacklogCancelled in kinds and ev.AttemptStarted in kinds
    assert ev.OccurrenceEvent not in kinds and ev.NotificationEvent not in kinds


def an_event(kind: type[ev.Event]) -> st.SearchStrategy[ev.Event]:
    """Any event of a type; its texts are not empty (the engine never emits an empty id)."""
    hints = typing.get_type_hints(kind)
    fields = {
        f.name: st.text(min_size=1) if hints[f.name] is str else st.from_type(hints[f.name])
        for f in dataclasses.fields(kind)
    }
    return st.builds(kind, **fields)


@pytest.mark.parametrize("kind", concrete_event_types(), ids=lambda kind: kind.__name__)
@settings(max_examples=10)
@given(data=st.data())
def test_every_event_type_has_a_word_a_colour_and_a_detail(kind, data) -> None:
    event = data.draw(an_event(kind))
    word = event_word(event)
    assert word and word != kind.__name__, "a short word, not the class name"
    style = event_style(event)
    assert style != PLAIN and style.color is not None
    assert detail(event)
