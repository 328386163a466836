"""Timers: what the engine must do at a later tick, in the order it runs within one tick.

Given nothing: the parts set timers, and the engine takes each one due off the heap and hands
its payload to its kind's handler (:func:`engine.core.timer_handlers`).
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


class Timers(JournaledPart):
    """A heap of ``(tick, kind, sequence, payload)``: within a tick, by kind, then by the order
    they were set. A timer is never withdrawn; its handler ignores it when it has gone stale."""

    def __init__(self) -> None:
        self.heap = Heap()
        self.sequence = 0

    def containers(self) -> tuple[Heap, ...]:
        return (self.heap,)

    def scalars(self) -> tuple:
        return (self.sequence,)

    def restore_scalars(self, values: tuple) -> None:
        (self.sequence,) = values

    def add(self, tick: int, kind: TimerKind, payload: Any) -> None:
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
