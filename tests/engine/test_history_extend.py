"""A history whose timeline grows while it is watched (a live service's journal), and whose
user commands can be dropped (a what-if given up): every state still equals a fresh run."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_fingerprint import state_fingerprint
from test_history import ORDERS, SPAN_COSTS, TIMELINE, UNTIL, USER_COMMANDS, fresh, new_engine_for

from engine.core import Engine
from engine.model.commands import PauseJob, WorkerDown
from engine.model.policies import DispatchOrder
from engine.play.history import SPAN_COST, History
from engine.play.ticks import TickDriver, at_ticks

pytestmark = pytest.mark.integration

TIMED = at_ticks(TIMELINE)
AT_ZERO = sum(1 for timed in TIMED if timed.tick == 0)
"""The commands a history must have from the start (it opens having played tick 0)."""


def growing_history(order: DispatchOrder, span_cost: int, known: int) -> History:
    """The history of the timeline's first ``known`` commands only, the rest to come."""
    return History(new_engine_for(order), TIMED[:known], until=UNTIL, span_cost=span_cost)


def extend_from(history: History, known: int, upto: int) -> None:
    """Append the timeline's commands ``known..upto``, moving back before them first."""
    chunk = TIMED[known:upto]
    if chunk and history.tick >= chunk[0].tick:
        history.seek(chunk[0].tick - 1)
    history.extend(chunk)


@settings(max_examples=30)
@given(
    order=st.sampled_from(ORDERS),
    span_cost=SPAN_COSTS,
    cuts=st.lists(st.integers(AT_ZERO, len(TIMED)), min_size=1, max_size=5),
    seeks=st.lists(st.integers(0, UNTIL), min_size=5, max_size=5),
)
def test_a_timeline_that_grows_while_watched_agrees_with_a_fresh_run(order, span_cost, cuts, seeks):
    cuts = sorted(set(cuts))
    known = cuts[0]
    history = growing_history(order, span_cost, known)
    for cut, target in zip([*cuts[1:], len(TIMED)], seeks, strict=False):
        history.seek(target)
        extend_from(history, known, cut)
        known = cut
        history.seek(target)
        partial = growing_history(order, SPAN_COST, known)
        partial.seek(target)
        assert state_fingerprint(history.engine) == state_fingerprint(partial.engine)
    extend_from(history, known, len(TIMED))
    history.seek(UNTIL)
    assert state_fingerprint(history.engine) == fresh(order, UNTIL)


def test_commands_appended_after_a_played_stretch_replay_it():
    history = growing_history(DispatchOrder.FIFO, 3, AT_ZERO)
    history.seek(UNTIL)
    history.seek(20)
    extend_from(history, AT_ZERO, len(TIMED))
    assert history.recorded_through == TIMED[AT_ZERO].tick - 1  # what came before stays
    history.seek(UNTIL)
    assert state_fingerprint(history.engine) == fresh(DispatchOrder.FIFO, UNTIL)


def test_extend_refuses_commands_before_the_history_or_the_timeline():
    history = growing_history(DispatchOrder.FIFO, 3, 4)
    history.seek(30)
    with pytest.raises(ValueError, match="do not follow the timeline"):
        history.extend(TIMED[4:6])  # ticks 25 and 26: the history is at 30
    history.seek(0)
    with pytest.raises(ValueError, match="do not follow the timeline"):
        history.extend(list(reversed(TIMED[4:6])))


def test_dropping_the_user_commands_gives_back_the_timelines_run():
    history = growing_history(DispatchOrder.FIFO, 3, len(TIMED))
    history.seek(60)
    assert history.apply(WorkerDown("w2")).accepted
    history.seek(90)
    assert history.apply(PauseJob("etl")).accepted
    assert [timed.tick for timed in history.user_commands] == [60, 90]
    history.seek(UNTIL)
    assert history.drop_user_commands()
    assert history.tick == 59
    assert not history.user_commands
    assert not history.redo_branch()
    history.seek(UNTIL)
    assert state_fingerprint(history.engine) == fresh(DispatchOrder.FIFO, UNTIL)
    assert not history.drop_user_commands()


@settings(max_examples=30)
@given(
    order=st.sampled_from(ORDERS),
    commands=st.lists(
        st.tuples(st.integers(0, UNTIL), st.integers(0, len(USER_COMMANDS) - 1)), max_size=4
    ),
    target=st.integers(0, UNTIL),
)
def test_any_what_if_dropped_agrees_with_a_fresh_run(order, commands, target):
    history = growing_history(order, 3, len(TIMED))
    for tick, index in commands:
        history.seek(tick)
        history.apply(USER_COMMANDS[index])
    history.drop_user_commands()
    history.seek(target)
    assert state_fingerprint(history.engine) == fresh(order, history.tick)


@pytest.mark.parametrize("archive", [False, True])
def test_a_history_started_later_rewinds_to_its_start_and_no_further(archive: bool) -> None:
    """A history may start from an engine already played to the end of a tick (the live
    dashboard on a compacted journal starts from a snapshot): every state from there on is a
    fresh run's (its log holds the events after the start only), and nothing goes back
    before it."""
    order, start = ORDERS[0], 60

    def played_to_start() -> Engine:
        driver = TickDriver(new_engine_for(order, archive)())
        for timed in TIMED:
            if timed.tick <= start:
                driver.apply(timed)
        driver.finish(start)
        return driver.engine

    later = [timed for timed in TIMED if timed.tick > start]
    history = History(played_to_start, later, until=UNTIL, span_cost=3, start=start)
    assert history.tick == history.first_tick == start
    for tick in (UNTIL, 100, 0, 61, 200, start):
        history.seek(tick)
        assert history.tick == max(tick, start)
        state = state_fingerprint(history.engine)
        expected = dict(fresh(order, history.tick, archive))
        assert state.pop("log") == [e for e in expected.pop("log") if e.tick > start]
        assert state == expected
    assert not history.step_back()
    assert not history.apply(PauseJob("etl")).accepted, "nothing of its first tick to redo"
    assert history.step_forward() and history.tick > start
