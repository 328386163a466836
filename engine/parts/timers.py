"""Timers: what the engine must do at a later tick, in the order it runs within one tick.

Given nothing: the parts set timers, and the engine takes each one due off the heap and hands
its payload to its kind's handler (:func:`engine.core.timer_handlers`).

Attempt ends, a timer for nearly every attempt, are grouped by tick (:meth:`Timers.add`): the
heap holds an item for a tick's first end only, whose handler also runs the later ones
(:meth:`engine.parts.attempts.Attempts.duration_over`), so a later end costs an append, not a
push and a pop of the heap: the demo's week (50 workers) ends its 78,000 attempts at about
10,000 ticks. A tick's first end is an item as any timer is, so a run that ends alone in its
tick (seed 001's one worker) pays an entry in a dictionary, not a group.
"""

from __future__ import annotations

from enum import IntEnum
from heapq import heappush
from typing import Any

from engine.rewind.heap import Heap
from engine.rewind.journal import JournaledPart


class TimerKind(IntEnum):
    """What a timer is for. The values are the order in which a tick's own events run (the
    timers' heap sorts a tick's timers by kind, then by the order they were set): this is where
    that order is stated (docs/architecture.md, "Tick order", tells it to users). Each kind's
    handler is in the table :func:`engine.core.timer_handlers` builds."""

    ATTEMPT_END = 0
    """A simulated attempt's duration is over: it succeeds or fails as scripted."""
    TIMEOUT = 1
    """The reviewer's check: an attempt still running at start + timeout is timed out."""
    BACKOFF_END = 2
    NOTIFICATION_TRY = 3
    DEADLINE = 4
    """A run's deadline (``JobSpec.deadline``): checked after the tick's attempts ended."""
    START_DEADLINE = 5
    """A run's start deadline (``JobSpec.start_deadline``): checked before the tick's dispatch,
    after its attempts ended (a worker they free may not take an expired run)."""
    RUN_TIMEOUT = 6
    """A run's time limit (``JobSpec.run_timeout``), from its first attempt's start: after the
    tick's attempts ended (one ending at that very tick is on time), before its dispatch (a
    worker the run frees is taken in the same tick)."""


_ATTEMPT_END = TimerKind.ATTEMPT_END
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook), and every timer set is compared with
it."""


class EndsByTick:
    """The ticks whose first attempt end is an item of the timers' heap, each with the ends
    set after it for that tick (their payloads, in the order they were set; None while there
    are none): a container of the timers, copied whole by a keyframe and put back in place."""

    __slots__ = ("later",)

    def __init__(self) -> None:
        self.later: dict[int, list[Any] | None] = {}

    def snapshot(self) -> tuple:
        return tuple(
            [(tick, None if ends is None else tuple(ends)) for tick, ends in self.later.items()]
        )

    def restore(self, saved: tuple) -> None:
        """In place (the timers hold this object)."""
        later = self.later
        later.clear()
        later.update((tick, None if ends is None else list(ends)) for tick, ends in saved)


class Timers(JournaledPart):
    """A heap of ``(tick, kind, sequence, payload)``: within a tick, by kind, then by the order
    they were set. A timer is never withdrawn; its handler ignores it when it has gone stale.

    A tick's attempt ends after its first are not items of the heap but follow the first's in
    :attr:`ends`, and its handler runs them: they run where their own items would, a tick's
    ends before its other kinds, in the order they were set."""

    def __init__(self) -> None:
        self.heap = Heap()
        self.sequence = 0
        self.ends = EndsByTick()

    def __setstate__(self, state: dict) -> None:
        """Also loads timers an older cronlapse pickled (a service's snapshot), whose heap held
        an item for each attempt end: a tick's later ends follow its first."""
        self.__dict__.update(state)
        if "ends" not in state:
            self.ends = EndsByTick()
            self._group_ends()

    def _group_ends(self) -> None:
        """Move each tick's attempt ends after its first off the heap (see the class)."""
        items, later = sorted(self.heap.items), self.ends.later
        kept = []
        for item in items:
            tick, kind, sequence, payload = item
            if kind is not _ATTEMPT_END:
                kept.append(item)
            elif tick not in later:
                later[tick] = None
                kept.append((tick, kind, sequence, (*payload, tick)))
            elif (ends := later[tick]) is None:
                later[tick] = [payload]
            else:
                ends.append(payload)
        self.heap.items[:] = kept  # sorted: a heap

    def containers(self) -> tuple[Heap | EndsByTick, ...]:
        return (self.heap, self.ends)

    def scalars(self) -> tuple:
        return (self.sequence,)

    def restore_scalars(self, values: tuple) -> None:
        (self.sequence,) = values

    def add(self, tick: int, kind: TimerKind, payload: Any) -> None:
        """A timer of ``kind`` at ``tick``; an attempt's end after the first of its tick
        follows that one instead (see the class), and the first's payload gets the tick,
        which its handler reads the later ends by."""
        if kind is _ATTEMPT_END:
            later = self.ends.later
            if tick in later:
                if (ends := later[tick]) is None:
                    later[tick] = [payload]
                else:
                    ends.append(payload)
                return
            later[tick] = None
            payload += (tick,)
        self.sequence += 1
        heap, item = self.heap, (tick, kind, self.sequence, payload)
        heappush(heap.items, item)  # heapq on the list: a call fewer a timer
        if heap.pushed is not None:  # keyframes are recorded (engine.rewind.heap)
            heap.pushed.append(item)

    def next_tick(self) -> int | None:
        """The tick of the first timer, if any. Asked once per tick the engine plays: the heap's
        first item is read here rather than through its ``peek``, a call fewer per tick."""
        items = self.heap.items
        return items[0][0] if items else None
