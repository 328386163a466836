"""``benchmarks/history.py`` plays every round in the heap its first round played in.

The rounds run under the dashboard's collector policy, which freezes what survives a move
(``gc.freeze``): unless the benchmark unfreezes and collects before each round, the engines and
histories of the rounds before stay alive in the permanent generation, and each round plays in a
larger heap than the one before it (the recording's cost then rose from round to round)."""

from __future__ import annotations

import gc
import weakref

import pytest

from benchmarks.history import free_rounds_before
from tui.model.collector import collector_paused

pytestmark = pytest.mark.integration


class _Round:
    """Stands for a round's engine: an object in a reference cycle, as an engine's parts are."""

    def __init__(self) -> None:
        self.cycle = self


def test_a_round_is_freed_before_the_next() -> None:
    with collector_paused():
        left = _Round()
    gone = weakref.ref(left)
    del left
    try:
        free_rounds_before()
        assert gc.get_freeze_count() == 0
        assert gone() is None
    finally:
        gc.unfreeze()
