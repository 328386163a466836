"""How a run reads: one line per event, one JSON object per event, and the summary tables.

Lines are built from the events' own fields, so an event type added to the engine prints without
a change here. Rich is imported inside :func:`print_summary` only: the engine never needs it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from enum import Enum
from operator import add, attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, TextIO

from cronlapse.analyses.stats import JobStats, RunStats, Waits
from engine.model import events as ev
from engine.model.event_log import EVENT_KINDS
from engine.schedules.clock import Clock, TickTimes

if TYPE_CHECKING:
    from rich.text import Text

SUMMARY_ROWS = 50
"""Jobs shown in the summary table; the rest are totalled in one row (the CSV export has all)."""


class EventFormatter:
    """Formats events; with a clock each line also shows the tick's wall-clock time."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock
        self._times = None if clock is None else TickTimes(clock)
        self._time: tuple[int, str] = (-1, "")

    def line(self, event: ev.Event) -> str:
        """``t=12 AttemptStarted report@10 attempt 1 on w-a``."""
        kind = type(event)
        return self.stored_line(kind, tuple(getattr(event, name) for name in kind.__match_args__))

    def stored_line(self, kind: type[ev.Event], fields: tuple) -> str:
        """:meth:`line` of an event as the log stores it (its class and its fields): a run
        prints millions of lines, so none is built first."""
        return self._head(fields[0]) + _body(kind, fields)

    def coded_lines(self, coded: Iterable[tuple[int, tuple]]) -> str:
        """:meth:`stored_line` of each event as the log stores it, its class given by its code
        (:meth:`~engine.model.event_log.EventLog.coded_since`), each line ended by a newline,
        as one string: a run prints its lines a step at a time, and most of them take one
        ``%`` of their kind's template, done here without a call a line.

        The lines of one tick share their head (its tick and wall time), made once a tick and
        joined to them by one ``str.join`` a tick, not added to each line (the demo's 160,000
        lines: 34 M of their 1,066 M instructions, callgrind)."""
        templates = _TEMPLATES
        ticks: list[str] = []
        bodies: list[str] = []
        head_tick, head = -1, ""
        for code, fields in coded:
            tick = fields[0]
            if tick != head_tick:
                if bodies:
                    ticks.append(_headed(head, bodies))
                    bodies = []
                head_tick, head = tick, self._head(tick)
            template = templates[code]
            if template is None:
                bodies.append(_stepped_body(EVENT_KINDS[code], fields))
            else:
                text, shown = template
                bodies.append(text % shown(fields))
        if bodies:
            ticks.append(_headed(head, bodies))
        if not ticks:
            return ""
        ticks.append("")
        return "\n".join(ticks)

    def json(self, event: ev.Event) -> str:
        """One JSON object with a ``type`` and the event's fields, in declaration order; with a
        clock, ``time`` (ISO 8601 with UTC offset) follows ``tick``."""
        record: dict[str, object] = {"type": type(event).__name__, "tick": event.tick}
        if self.clock is not None:
            record["time"] = self._wall_time(event.tick)
        for name in type(event).__match_args__[1:]:
            record[name] = _json_value(getattr(event, name))
        return json.dumps(record, ensure_ascii=False)

    def _head(self, tick: int) -> str:
        """What a line of an event at ``tick`` starts with: ``t=TICK``, its wall time if there
        is a clock, and a space."""
        return f"t={tick} {self._wall_time(tick)} " if self.clock is not None else f"t={tick} "

    def _wall_time(self, tick: int) -> str:
        # Consecutive events mostly share a tick; formatting a datetime is the slow part.
        if self._time[0] != tick:
            assert self._times is not None
            self._time = (tick, self._times.format(tick))
        return self._time[1]


_PAIR, _KEY, _NAMED = "pair", "key", "named"


def _headed(head: str, bodies: list[str]) -> str:
    """The lines of one tick, without the last newline: each body after the tick's head."""
    return head + ("\n" + head).join(bodies)


def _body(kind: type[ev.Event], fields: tuple) -> str:
    """A line after its head: the event's class and the fields its kind shows, by the kind's
    template when it has one, else step by step (:func:`_line_plan`)."""
    template = _line_template(kind)
    if template is not None:
        text, shown = template
        return text % shown(fields)
    return _stepped_body(kind, fields)


def _stepped_body(kind: type[ev.Event], fields: tuple) -> str:
    """:func:`_body` step by step, for a kind without a template."""
    parts = [kind.__name__]
    for step, at in _line_plan(kind):
        if step is _PAIR:
            parts.append(f"{fields[at[0]]}@{fields[at[1]]}")
        elif step is _KEY:
            job_id, scheduled, attempt, happening, channel, target = fields[at[0]]
            parts.append(
                f"{job_id}@{scheduled} attempt {attempt} {happening} via {channel} {target}"
            )
        elif step is _NAMED:
            value = fields[at[1]]
            if value is not None:
                parts.append(f"{at[0]}={_plain(value)}")
        else:
            parts.append(step.format(fields[at[0]]))
    return " ".join(parts)


@functools.cache
def _line_plan(kind: type[ev.Event]) -> tuple[tuple[str, tuple], ...]:
    """How a line shows an event of ``kind``, after its tick, time and class: each step a
    format (or one of the three steps above) and the indices of the fields it shows. Which
    parts a line has depends on the class's fields alone, so it is worked out once a class."""
    index = {name: at for at, name in enumerate(kind.__match_args__) if at}  # after the tick
    steps: list[tuple[str, tuple]] = []
    if "job_id" in index and "scheduled" in index:
        steps.append((_PAIR, (index.pop("job_id"), index.pop("scheduled"))))
    elif "key" in index:
        steps.append((_KEY, (index.pop("key"),)))
    for name in ("job_id", "worker_id"):
        if name in index and "attempt" not in index:
            steps.append(("{}", (index.pop(name),)))
    if "attempt" in index:
        steps.append(("attempt {}", (index.pop("attempt"),)))
        if "worker_id" in index:
            steps.append(("on {}", (index.pop("worker_id"),)))
    if "schedule" in index:
        steps.append(("({})", (index.pop("schedule"),)))
    steps += [(_NAMED, (name, at)) for name, at in index.items()]
    return tuple(steps)


@functools.cache
def _line_template(kind: type[ev.Event]) -> tuple[str, Callable[[tuple], Any]] | None:
    """The line of ``kind`` after its head (``t=TICK`` and the wall time) as one ``%``
    template and the function that picks the fields it shows, when every step of its plan is a
    plain substitution (most kinds: the attempts' starts and ends, which are most of a run's
    lines); None when a step depends on a value (a field shown only when set, a notification's
    key). One ``%`` a line instead of a step at a time: the lines were a seventh of ``cronlapse
    run`` on the demo (cProfile), and ``%`` costs two thirds of ``str.format``. The fields shown
    this way are ints and strings, which ``%s`` writes as ``{}`` does."""
    parts, shown = [kind.__name__.replace("%", "%%")], []
    for step, at in _line_plan(kind):
        if step is _PAIR:
            parts.append("%s@%s")
            shown += at
        elif step is _KEY or step is _NAMED:
            return None
        else:
            parts.append(step.replace("%", "%%").replace("{}", "%s"))
            shown.append(at[0])
    if shown == list(range(1, len(shown) + 1)):
        # The fields after the tick, in their order (the attempts' starts and ends): one
        # slice of the stored tuple, where picking each field was 28 M more instructions
        # over the demo's 160,000 lines (callgrind).
        return " ".join(parts), itemgetter(slice(1, len(shown) + 1))
    # One field is given to ``%`` bare (an int or a string, never a tuple), several as a tuple.
    return " ".join(parts), itemgetter(*shown) if shown else _no_fields


class _Templates(dict[int, tuple[str, Callable[[tuple], Any]] | None]):
    """:func:`_line_template` of each kind by its code, worked out at its first line. A run
    looks its kind's template up at each of its lines: ``functools.cache`` makes a tuple key a
    call and compares it, a dict subscript in C does not (the demo's 160,000 lines: 74 M of
    their 1.2 G instructions, callgrind)."""

    def __missing__(self, code: int) -> tuple[str, Callable[[tuple], Any]] | None:
        template = self[code] = _line_template(EVENT_KINDS[code])
        return template


_TEMPLATES = _Templates()


def _no_fields(fields: tuple) -> tuple:
    return ()


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return ",".join(str(_plain(item)) for item in value)
    return value


def event_json(event: ev.Event, clock: Clock | None = None) -> str:
    """:meth:`EventFormatter.json` of one event (a run's lines share a formatter instead: its
    wall times are formatted once a tick)."""
    return EventFormatter(clock).json(event)


def _json_value(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset):
        return [_json_value(item) for item in value]
    return value


def print_summary(stats: RunStats, out: TextIO) -> None:
    """The per-job and per-worker tables, drawn with rich in plain text when ``out`` is a file."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Every cell is data, a Text: no markup or emoji codes to look for in each.
    width = 110 if not out.isatty() else None
    console = Console(file=out, width=width, highlight=False, markup=False, emoji=False)
    jobs = Table(title=f"Jobs (at tick {stats.now})", title_justify="left")
    names = ("job", "runs", "ok", "failed", "retries", "skipped", "cancelled", "wait p50", "p95")
    for name in (*names, "max"):
        jobs.add_column(name, justify="left" if name == "job" else "right")
    shown = list(stats.jobs.items())[:SUMMARY_ROWS]
    for job_id, job in shown:
        jobs.add_row(
            Text(job_id),  # data, not markup: an id may hold "[/b]"
            *_job_cells(_counts(job), job.waits),
        )
    hidden = list(stats.jobs.values())[SUMMARY_ROWS:]
    hidden_waits = Waits.merged(job.waits for job in hidden)
    hidden_counts = _total_counts(hidden)
    if hidden:
        jobs.add_row(Text(f"({len(hidden)} more jobs)"), *_job_cells(hidden_counts, hidden_waits))
    # Every job's counts and waits: the hidden ones' summed above and the shown ones', not
    # each job's again.
    shown_counts = _total_counts([job for _, job in shown])
    all_waits = Waits.merged([*(job.waits for _, job in shown), hidden_waits])
    jobs.add_section()
    jobs.add_row(Text("all jobs"), *_job_cells(map(add, shown_counts, hidden_counts), all_waits))
    console.print(jobs)
    workers = Table(title="Workers", title_justify="left")
    for name in ("worker", "busy ticks", "utilisation"):
        workers.add_column(name, justify="left" if name == "worker" else "right")
    for worker_id, worker in stats.workers.items():
        share = worker.utilisation(stats.now)
        workers.add_row(
            Text(worker_id), Text(str(worker.busy)), Text("-" if share is None else f"{share:.1%}")
        )
    console.print(workers)


_COUNTS = ("runs", "successes", "failures", "retries", "skipped", "cancellations")
_counts = attrgetter(*_COUNTS)
"""A job's :data:`_COUNTS`."""


def _total_counts(jobs: list[JobStats]) -> list[int]:
    """The sum of each of the :data:`_COUNTS` over ``jobs``, each in one ``sum`` over a
    ``map``: a generator over the demo's 2,000 jobs for each count, and again for all of them,
    was 31 M instructions more (callgrind)."""
    return [sum(map(attrgetter(name), jobs)) for name in _COUNTS]


def _job_cells(counts: Iterable[int], waits: Waits) -> list[Text]:
    """The cells of the :data:`_COUNTS` and of the waits' quantiles, as ``Text``: Rich makes a
    ``Text`` of a string cell each time it measures or draws it."""
    from rich.text import Text

    quantiles = [waits.percentile(0.5), waits.percentile(0.95), waits.max()]
    return [Text(str(count)) for count in counts] + [
        Text("-" if value is None else str(value)) for value in quantiles
    ]
