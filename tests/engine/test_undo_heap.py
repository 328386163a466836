"""UndoHeap: what its users observe (the live items, smallest first) before and after undoing.

``pop_through`` is the call the engine's drain loops make (timers, the due heap), so it is held to
what a test, a peek and a pop did before it, including with items whose push was undone."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.rewind.undo_heap import UndoHeap


def _undo(heap: UndoHeap, steps: list[tuple]) -> None:
    """Run the undo steps newest first, as the journal's rollback does, with no journal."""
    heap.journal = None
    for function, *arguments in reversed(steps):
        function(*arguments)
    steps.clear()


def _pop_through_by_peek(heap: UndoHeap, tick: int) -> tuple | None:
    top = heap.peek()
    return heap.pop() if top is not None and top[0] <= tick else None


operations = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(0, 20), st.integers(0, 3)),
        st.tuples(st.just("pop_through"), st.integers(-1, 21)),
        st.tuples(st.just("undo")),
    ),
    max_size=60,
)


@given(operations)
def test_pop_through_takes_what_a_peek_and_a_pop_took(script: list[tuple]) -> None:
    heap, twin = UndoHeap(), UndoHeap()
    steps: list[tuple] = []
    twin_steps: list[tuple] = []
    heap.journal, twin.journal = steps, twin_steps
    sequence = 0
    for operation in script:
        if operation[0] == "push":
            sequence += 1
            item = (operation[1], operation[2], sequence)
            heap.push(item)
            twin.push(item)
        elif operation[0] == "pop_through":
            tick = operation[1]
            assert heap.pop_through(tick) == _pop_through_by_peek(twin, tick)
        else:
            _undo(heap, steps)
            _undo(twin, twin_steps)
            heap.journal, twin.journal = steps, twin_steps
        assert heap.live() == twin.live()
        assert len(heap) == len(twin)


def test_pop_through_skips_an_item_whose_push_was_undone() -> None:
    heap = UndoHeap()
    heap.push((5, "kept"))
    steps: list[tuple] = []
    heap.journal = steps
    heap.push((1, "undone"))
    _undo(heap, steps)
    assert heap.pop_through(4) is None
    assert heap.pop_through(5) == (5, "kept")
    assert heap.pop_through(10**12) is None
