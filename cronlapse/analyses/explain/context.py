"""What every answer reads: the engine at "now", the clock that names ticks, and the log.

A :class:`Context` is built once per question. It reads the engine and its event log only (the
log has what happened; the engine's state has what holds now) and never changes either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core import Engine
from engine.model import events as ev
from engine.schedules.clock import Clock


@dataclass(frozen=True, slots=True)
class Context:
    engine: Engine
    clock: Clock | None = None
    _job_events: dict[str, tuple[ev.Event, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """Each job's events, read once per question: every section reads the run's events, and a
    read is a pass over the whole log (160,000 events at the end of the demo)."""

    @property
    def now(self) -> int:
        return self.engine.now

    def at(self, tick: int) -> str:
        """A tick as people read it: ``1560 (2026-03-29 03:00 +02:00)`` when there is a clock.

        The seconds are shown when the clock's ticks are not whole minutes apart or its times
        are not on whole minutes: with 1-second ticks, ticks 10 and 40 both read 09:00 without
        them. A clock of whole minutes shows none, so every time of one answer has one form."""
        if self.clock is None:
            return f"tick {tick}"
        if not self.clock.names(tick):
            return f"tick {tick} (past the year 9999)"
        moment = self.clock.to_datetime(tick)
        whole_minutes = self.clock.tick_seconds % 60 == 0 and moment.second == 0
        time = f"{moment:%H:%M}" if whole_minutes else f"{moment:%H:%M:%S}"
        return f"tick {tick} ({moment:%a %Y-%m-%d} {time} {_offset(moment.strftime('%z'))})"

    def ticks(self, count: int) -> str:
        """A span of ticks, with its length in time when there is a clock."""
        word = "tick" if count == 1 else "ticks"
        if self.clock is None or count == 0:
            return f"{count} {word}"
        return f"{count} {word} ({_duration(count * self.clock.tick_seconds)})"

    def events_of(self, job_id: str) -> tuple[ev.Event, ...]:
        """The job's events up to now, in order: its runs' and the job's own."""
        events = self._job_events.get(job_id)
        if events is None:
            events = self._job_events[job_id] = tuple(
                kind(*fields)
                for kind, fields in self.engine.log.stored_since(0)
                if len(fields) > 1 and fields[1] == job_id and hasattr(kind, "job_id")
            )
        return events

    def run_events(self, job_id: str, scheduled: int) -> list[ev.OccurrenceEvent]:
        """The events about the run ``(job_id, scheduled)``, in order."""
        return [
            event
            for event in self.events_of(job_id)
            if isinstance(event, ev.OccurrenceEvent) and event.scheduled == scheduled
        ]


def _offset(text: str) -> str:
    return f"{text[:3]}:{text[3:]}" if len(text) == 5 else text


def _duration(seconds: int) -> str:
    parts = []
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return " ".join(parts[:2])
