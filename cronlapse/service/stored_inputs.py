"""The service's inputs decoded straight into engine commands, without the scenario readers.

A journal row's arguments were read, and accepted, by the scenario readers
(:func:`~cronlapse.service.codec.read_input`) before the row was written; reading them again
that way on every restart rebuilt positioned nodes, readers and problem lists for each row, a
third of a restart with 20,000 jobs (issue 36). Most rows are in a few plain forms (a job
created with an interval or a time, a run's completion, a worker or job named), and here those
forms become their commands directly, each value checked for its type and the engine's limits;
an input the API takes is decoded the same way (a burst of completion reports is most of them).

A row in any other form (a calendar schedule, a relative time, a setting beyond the plain
ones, a change kept for after a run) is :data:`NOT_PLAIN`: the caller reads it with the full
readers, which also give the messages of a row that no longer reads. For a row both read, the
command is the same (``tests/service/test_stored_inputs.py`` draws rows to check it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Final

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.codec import (
    CLOCK,
    DOWNTIME,
    RUN_KEY,
    SERVICE_DEFAULTS,
    Decoded,
    read_input,
)
from engine.model import commands as cmd
from engine.model import limits
from engine.model.limits import Limit
from engine.model.records import JobSpec
from engine.scenario.schema import MAX_TICK
from engine.schedules.kinds import Every, Once, Schedule


class _NotPlain:
    """The marker of a row this module does not decode."""


NOT_PLAIN: Final = _NotPlain()

LAST_NAMED_TICK = int(
    (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - ENGINE_CLOCK.epoch).total_seconds()
)
"""The last tick the engine's clock names as a date (a time the readers refuse past it)."""

_SETTINGS: dict[str, tuple[str, Limit]] = {
    "priority": ("priority", limits.PRIORITY),
    "max_attempts": ("max_attempts", limits.ATTEMPTS),
    "timeout": ("timeout", limits.TIMEOUT),
}
"""The plain job settings: a whole number within the engine's limit, as the JobSpec field."""
_SCHEDULE_PLAIN = frozenset(
    {"id", "every", "first", "at", "payload", RUN_KEY, "max_retries", *_SETTINGS}
)


def decode(verb: str, args: Mapping[str, object], tick: int) -> Decoded | None:
    """What the input ``verb``/``args`` does at ``tick``: None for a clock reading and for a
    downtime (their effect depends on the state, not on their words); a plain form directly,
    any other by the codec's readers (:class:`~cronlapse.service.codec.InputInvalid`). The one
    decoding of the service's inputs, live and from the journal."""
    if verb in (CLOCK, DOWNTIME):
        return None
    decoded = decode_stored(verb, args, tick)
    if decoded is NOT_PLAIN:
        return read_input(verb, args, tick, ENGINE_CLOCK)
    return decoded  # type: ignore[return-value]


def decode_stored(verb: str, args: Mapping[str, object], tick: int) -> Decoded | _NotPlain:
    """What the row ``verb``/``args`` at ``tick`` does, when it is in a plain form;
    :data:`NOT_PLAIN` otherwise (clock readings and downtimes included: they decode to
    nothing)."""
    decoder = _DECODERS.get(verb)
    return NOT_PLAIN if decoder is None else decoder(args, tick)


def _is_id(value: object) -> bool:
    """An id as the readers accept it from a string (a bare number is read through its text)."""
    return type(value) is str and bool(value.strip()) and "," not in value and len(value) <= 100


def _is_name(value: object) -> bool:
    """An executor's name as the codec accepts it."""
    return type(value) is str and bool(value.strip())


def _is_tick(value: object) -> bool:
    return type(value) is int and 0 <= value <= min(MAX_TICK, LAST_NAMED_TICK)


def _within(value: object, limit: Limit) -> bool:
    return type(value) is int and limit.problem(value) is None


def _schedule(args: Mapping[str, object], tick: int) -> Decoded | _NotPlain:
    if not args.keys() <= _SCHEDULE_PLAIN or not _is_id(args.get("id")):
        return NOT_PLAIN
    schedule = _plain_schedule(args, tick)
    run = args.get(RUN_KEY)
    payload = args.get("payload")
    if schedule is None or (run is not None and not _is_name(run)):
        return NOT_PLAIN
    if "payload" in args and type(payload) is not str:
        return NOT_PLAIN
    settings: dict[str, object] = dict(SERVICE_DEFAULTS)
    for key, (name, limit) in _SETTINGS.items():
        if key in args:
            if not _within(args[key], limit):
                return NOT_PLAIN
            settings[name] = args[key]
    if "max_retries" in args:
        retries = args["max_retries"]
        if "max_attempts" in args or not _within(retries, limits.RETRIES):
            return NOT_PLAIN
        settings["max_attempts"] = retries + 1  # type: ignore[operator]
    if "payload" in args:
        settings["payload"] = payload
    spec = JobSpec(str(args["id"]), schedule, **settings)  # type: ignore[arg-type]
    return Decoded(cmd.ScheduleJob(spec), run)  # type: ignore[arg-type]


def _plain_schedule(args: Mapping[str, object], tick: int) -> Schedule | None:
    """``every`` (with ``first``), ``at``, or neither (once, now); None for anything else."""
    every, first, at = args.get("every"), args.get("first"), args.get("at")
    if "every" in args:
        if "at" in args or type(every) is not int or not 1 <= every <= MAX_TICK:
            return None
        if "first" not in args:
            return Every(tick, every)
        return Every(first, every) if _is_tick(first) else None  # type: ignore[arg-type]
    if "first" in args:
        return None
    if "at" in args:
        return Once(at) if _is_tick(at) and at >= tick else None  # type: ignore[operator,arg-type]
    return Once(tick)


def _complete(args: Mapping[str, object], tick: int) -> Decoded | _NotPlain:
    job, scheduled, attempt, ok = (args.get(key) for key in ("job", "scheduled", "attempt", "ok"))
    if (
        len(args) != 4
        or not _is_id(job)
        or not _is_tick(scheduled)
        or not _within(attempt, limits.ATTEMPT)
        or type(ok) is not bool
    ):
        return NOT_PLAIN
    return Decoded(cmd.Complete(job, scheduled, attempt, ok), None)  # type: ignore[arg-type]


def _named(key: str, build: Callable[[str], cmd.Command]) -> Callable[..., Decoded | _NotPlain]:
    """A verb whose one argument is a job's or a worker's id."""

    def decode(args: Mapping[str, object], tick: int) -> Decoded | _NotPlain:
        name = args.get(key)
        if len(args) != 1 or not _is_id(name):
            return NOT_PLAIN
        return Decoded(build(name), None)  # type: ignore[arg-type]

    return decode


_DECODERS: dict[str, Callable[[Mapping[str, object], int], Decoded | _NotPlain]] = {
    "schedule": _schedule,
    "complete": _complete,
    "register": _named("worker", cmd.RegisterWorker),
    "drain": _named("worker", cmd.DrainWorker),
    "down": _named("worker", cmd.WorkerDown),
    "up": _named("worker", cmd.WorkerUp),
    "pause": _named("job", cmd.PauseJob),
    "resume": _named("job", cmd.ResumeJob),
    "delete": _named("job", cmd.DeleteJob),
    "cancel": _named("job", cmd.CancelOccurrence),
}
"""The verbs with plain forms (a delivery report is read directly by the codec already; a clock
reading and a downtime decode to nothing)."""
