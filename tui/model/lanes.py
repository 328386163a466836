"""Worker lanes for the timeline: which attempt ran on which worker when, and when it was down.

Kept from the event log: a forward move appends and closes spans; a rewind drops the spans that
start after the new tick and reopens the ones that had not ended by then, for the workers the
undone events name. A rebuild reads the whole log once.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from engine.core import Engine
from engine.model import events as ev
from tui.model.navigator import Change
from tui.model.rows import REBUILD_EVENTS

_ENDS = {
    ev.AttemptSucceeded: "SUCCEEDED",
    ev.AttemptFailed: "FAILED",
    ev.AttemptTimedOut: "TIMED_OUT",
    ev.AttemptLost: "LOST",
    ev.AttemptTerminated: "TERMINATED",
}


@dataclass(slots=True)
class Span:
    """One attempt on one worker, ``[start, end)``; ``end`` None while it runs."""

    start: int
    end: int | None
    job_id: str
    scheduled: int
    attempt: int
    outcome: str | None = None
    """How it ended (an :class:`~engine.model.records.AttemptOutcome` name), None while running."""


@dataclass(slots=True)
class Outage:
    start: int
    end: int | None


class Lanes:
    """Spans and outages per worker, each list in start order."""

    def __init__(self) -> None:
        self.spans: dict[str, list[Span]] = {}
        self.outages: dict[str, list[Outage]] = {}

    def rebuild(self, engine: Engine) -> None:
        workers = engine.query.workers()
        self.spans = {worker_id: [] for worker_id in workers}
        self.outages = {worker_id: [] for worker_id in workers}
        self._play(engine.log)

    def apply(self, change: Change, engine: Engine) -> None:
        if change.rebuild or len(change.events) > REBUILD_EVENTS:
            self.rebuild(engine)
        elif change.forward:
            self._play(change.events)
        else:
            self._rewind(change.after, change.events, engine)

    def overlapping(self, worker_id: str, start: int, end: int) -> list[Span]:
        """The spans of ``worker_id`` that overlap ``[start, end)``, in start order."""
        spans = self.spans.get(worker_id, [])
        index = bisect.bisect_left(spans, end, key=lambda span: span.start)
        found = []
        while index > 0:
            index -= 1
            span = spans[index]
            if span.start < start and span.end is not None and span.end <= start:
                break  # spans on a worker do not overlap: every earlier one ended earlier
            found.append(span)
        found.reverse()
        return found

    def down_between(self, worker_id: str, start: int, end: int) -> list[Outage]:
        return [
            outage
            for outage in self.outages.get(worker_id, [])
            if outage.start < end and (outage.end is None or outage.end > start)
        ]

    def _play(self, events: Iterable[ev.Event]) -> None:
        spans, outages = self.spans, self.outages
        for event in events:
            kind = type(event)
            if kind is ev.AttemptStarted:
                spans.setdefault(event.worker_id, []).append(
                    Span(event.tick, None, event.job_id, event.scheduled, event.attempt)
                )
            elif kind in _ENDS:
                key = (event.job_id, event.scheduled, event.attempt)
                for span in reversed(spans.get(event.worker_id, [])):
                    if span.end is None and (span.job_id, span.scheduled, span.attempt) == key:
                        span.end, span.outcome = event.tick, _ENDS[kind]
                        break
            elif kind is ev.WorkerRegistered:
                spans.setdefault(event.worker_id, [])
                outages.setdefault(event.worker_id, [])
            elif kind is ev.WorkerWentDown:
                outages.setdefault(event.worker_id, []).append(Outage(event.tick, None))
            elif kind is ev.WorkerCameUp:
                down = outages.get(event.worker_id)
                if down and down[-1].end is None:
                    down[-1].end = event.tick

    def _rewind(self, tick: int, undone: Iterable[ev.Event], engine: Engine) -> None:
        workers = {event.worker_id for event in undone if hasattr(event, "worker_id")}
        for worker_id in workers:
            if engine.query.worker(worker_id) is None:
                self.spans.pop(worker_id, None)
                self.outages.pop(worker_id, None)
                continue
            spans = self.spans.get(worker_id, [])
            del spans[bisect.bisect_right(spans, tick, key=lambda span: span.start) :]
            for span in reversed(spans):
                if span.end is None or span.end <= tick:
                    break
                span.end, span.outcome = None, None
            down = self.outages.get(worker_id, [])
            while down and down[-1].start > tick:
                down.pop()
            if down and down[-1].end is not None and down[-1].end > tick:
                down[-1].end = None
