"""The service's inputs as JSON, read into engine commands by the scenario vocabulary.

A journal row holds an input as a verb and its arguments, exactly as a scenario's timeline
would write the command (``{"verb": "schedule", "args": {"id": "x", "every": 60}}``), and it is
read back by the same :data:`~engine.scenario.vocabulary.VERBS` table and the same readers
(:class:`~engine.scenario.command_reader.CommandReader`): a job posted to the API is accepted or
refused with a scenario's rules and messages, and replaying a row at its tick builds the very
command that was applied live (the reader is deterministic given the arguments, the tick and the
clock; relative times such as ``+60`` are relative to the row's tick).

Two keys are the service's own, read here rather than by the engine:

- ``run``: the name of the executor that runs the job (the server's config defines them; the
  API only names one, so it can never define a command line);
- ``cancel_next`` (PUT only): cancel the job's next run instead of amending it.

Keys that only mean something in a simulation (a scripted failure, a simulated duration) are
refused: a real job's attempts end when its executor says so. A key nobody takes is refused here
too, listing the keys a request body may hold (:func:`body_keys`): the vocabulary's would name
the simulation's keys and not ``run``.

One input is the service's own rather than the vocabulary's: ``delivery``, how one delivery try
of a notification ended (:mod:`cronlapse.service.delivery`), read here into the engine's
:class:`~engine.model.commands.ReportDelivery`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cronlapse.service.json_nodes import to_node
from engine.model.commands import Command, ReportDelivery, Result, ScheduleJob
from engine.model.problems import Code, Problem
from engine.model.records import CatchUp
from engine.scenario.command_reader import CommandReader
from engine.scenario.errors import Problems, did_you_mean_key, one_of
from engine.scenario.jobs import JobReader, dependency_node
from engine.scenario.schedule_keys import SCHEDULE_KEYS
from engine.scenario.schema import Reader
from engine.scenario.vocabulary import VERBS
from engine.schedules.clock import Clock

SIMULATION_ONLY = ("duration", "fail", "hang", "failure_rate")
"""Job keys of scenarios that a real job has no use for."""
SERVICE_DEFAULTS: dict[str, object] = {"catch_up": CatchUp.LATEST}
"""Job settings the service defaults differently from a scenario: runs missed while the server
was down are coalesced into one (APScheduler's ``coalesce=True``; see docs/service.md)."""
RUN_KEY = "run"
CANCEL_NEXT = "cancel_next"
CLOCK = "clock"
"""The verb of a clock reading: time moved to the row's tick (no arguments)."""
DOWNTIME = "downtime"
"""The verb of a restart after downtime: ``{"since": tick}`` (see :mod:`cronlapse.service.live`)."""
AFTER_RUN = "after_run"
"""A journal key of ``modify``, ``cancel`` and ``delete`` (``?after_run=true`` in the API): while
a run of the job is running, the change is kept (in the service's state, not the engine's) and
applied by the report that ends that run, before the tick's dispatch when the job's next run is
waiting for a slot (``LiveService._end_attempt``). A run that ends otherwise (a timeout) leaves
it to a row of its own with :data:`KEPT`."""
KEPT = "kept"
"""A journal key: this row applies the job's first kept change, which it then no longer keeps
(unless the engine refuses it because a run of the job is running again: it stays first)."""
KEEPABLE = ("modify", "cancel", "delete")
"""The verbs whose change can wait for the job's running run to end."""
LIVE_VERBS = (
    "schedule",
    "modify",
    "cancel",
    "delete",
    "pause",
    "resume",
    "complete",
    "register",
    "drain",
)
"""The vocabulary's verbs the service journals."""
DELIVERY = "delivery"
"""The verb of a delivery try's end: the notification's key as ``job``, ``scheduled``,
``attempt``, ``event``, ``channel`` and ``to``, and ``ok`` (did the receiver take it)."""
DELIVERY_FIELDS = {
    "job": str,
    "scheduled": int,
    "attempt": int,
    "event": str,
    "channel": str,
    "to": str,
    "ok": bool,
}


def body_keys(verb: str) -> tuple[str, ...]:
    """The keys a request body for ``schedule`` (POST) or ``modify`` (PUT, whose job is in the
    URL) may hold, sorted."""
    keys = {*VERBS[verb].keys, RUN_KEY} - set(SIMULATION_ONLY)
    if verb == "modify":
        keys = (keys - {"job"}) | {CANCEL_NEXT}
    return tuple(sorted(keys))


def _unknown_keys(verb: str, fields: dict[str, object]) -> list[Problem]:
    """A problem for each key of ``fields`` the service takes nowhere, which is removed (the
    vocabulary's reader would refuse it again, listing its own keys)."""
    accepted = {*body_keys(verb), "job"}
    problems = []
    for key in [key for key in fields if key not in accepted and key not in SIMULATION_ONLY]:
        del fields[key]
        keys = body_keys(verb)
        hint = did_you_mean_key(key, keys)
        message = f"unknown key {key!r}{hint}" + ("" if hint else f": expected {one_of(keys)}")
        problems.append(request_problem(key, message, Code.UNKNOWN_KEY))
    return problems


REQUEST = "request"
"""The source of a request's problems: their path is the field's JSON path in the body."""


def request_problem(path: str, message: str, code: Code | None = None) -> Problem:
    """A problem of the request body's field at ``path`` (empty: the body as a whole)."""
    return Problem(REQUEST, None, None, path, message, code)


class InputInvalid(ValueError):
    """An input the readers refuse; ``problems`` holds each field's path and message."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}".lstrip(": ") for p in problems))
        self.problems = problems


SCHEDULE_COMPANIONS = ("first", "timezone")
"""Schedule keys that go with a schedule (``every``, ``cron``...) rather than being one."""


def with_field(command: Command, args: Mapping[str, object], result: Result) -> Result:
    """``result``, its problem (if the engine refused ``command``) a problem of the request:
    the field the engine names, as the JSON path of ``args`` that gave it.

    The readers cannot refuse some inputs: a dependency may be created by an earlier input of
    the same commit, and the pools and a job's dependents are the engine's, so the engine
    judges them when the input applies, after it is journaled. Its problem's code and field
    say which rule refused and what about; here they become the key (and the item of a list)
    that a scenario's check would name. Other refusals name no field of the body: the engine's
    limits, a run time already past and a field it cannot modify are the readers' first, so
    they reach the engine only once the readers have passed them."""
    problem = result.problem
    if problem is None:
        return result
    path = _request_path(command, args, problem)
    return Result(
        result.outcome, result.value, request_problem(path, problem.message, problem.code)
    )


def _request_path(command: Command, args: Mapping[str, object], problem: Problem) -> str:
    """Where in ``args`` the field of the engine's ``problem`` was given; empty when the
    engine's field is not one of the body's."""
    if problem.code is Code.UNKNOWN_DEPENDENCY and isinstance(command, ScheduleJob):
        return dependency_node(to_node(dict(args)), "", problem.subject)[1]
    if problem.code is Code.UNKNOWN_POOL:
        return "pool"
    if problem.code is Code.DEPENDENTS_KEEP_SCHEDULE:
        given = (key for key in SCHEDULE_KEYS if key in args and key not in SCHEDULE_COMPANIONS)
        return next(given, "")
    return ""


@dataclass(frozen=True, slots=True)
class Decoded:
    """What an input does: an engine command (None when only ``run`` changes) and the executor
    it names (None when it names none)."""

    command: Command | None
    run: str | None
    after_run: bool = False
    """Not applied now: kept until no run of the job is running (see :data:`AFTER_RUN`)."""
    kept: bool = False
    """A change kept so, applied now: the job's first kept change (see :data:`KEPT`)."""


def read_input(verb: str, args: Mapping[str, object], tick: int, clock: Clock) -> Decoded:
    """The command ``args`` give ``verb`` at ``tick``; :class:`InputInvalid` lists every problem."""
    if verb == DELIVERY:
        return _read_delivery(args)
    if verb in KEEPABLE and (AFTER_RUN in args or KEPT in args):
        return _read_kept(verb, args, tick, clock)
    return _read_command(verb, dict(args), tick, clock)


def _read_kept(verb: str, args: Mapping[str, object], tick: int, clock: Clock) -> Decoded:
    """A change kept until the job's run ends (``after_run``), or such a change applied now
    (``kept``): read in full either way, so a change that cannot apply is refused when asked."""
    fields = dict(args)
    flags = {key: fields.pop(key) for key in (AFTER_RUN, KEPT) if key in fields}
    problems = [
        request_problem(key, "expected true") for key, value in flags.items() if value is not True
    ]
    if len(flags) > 1:
        problems.append(request_problem(KEPT, f"goes without {AFTER_RUN}"))
    if problems:
        raise InputInvalid(problems)
    decoded = _read_command(verb, fields, tick, clock)
    if AFTER_RUN in flags:
        return Decoded(None, None, after_run=True)
    return Decoded(decoded.command, decoded.run, kept=True)


def _read_command(verb: str, fields: dict[str, object], tick: int, clock: Clock) -> Decoded:
    problems: list[Problem] = []
    run = fields.pop(RUN_KEY, None) if verb in ("schedule", "modify") else None
    if verb in ("schedule", "modify"):
        problems += _unknown_keys(verb, fields)
    if run is not None and (not isinstance(run, str) or not run.strip()):
        problems.append(request_problem(RUN_KEY, "expected the name of an executor"))
    for key in SIMULATION_ONLY:
        if verb in ("schedule", "modify") and key in fields:
            message = f"{key} only means something in a simulation: a real job's attempts end "
            problems.append(request_problem(key, message + "when its executor reports"))
    if verb == "modify" and set(fields) == {"job"} and run is not None:
        if problems:
            raise InputInvalid(problems)
        return Decoded(None, run)  # type: ignore[arg-type]
    found = Problems(REQUEST)
    reader = Reader(found)
    defaults = SERVICE_DEFAULTS if verb == "schedule" else {}
    commands = CommandReader(reader, JobReader(reader, clock), dict(defaults))
    command = commands.command(VERBS[verb], to_node(fields), "", tick, lenient=True)
    problems += found
    if problems or command is None:
        raise InputInvalid(problems or [request_problem("", f"expected the arguments of {verb}")])
    return Decoded(command, run)  # type: ignore[arg-type]


def _read_delivery(args: Mapping[str, object]) -> Decoded:
    """A delivery report: exactly the key's fields and ``ok``, each of its type."""
    problems = [
        request_problem(name, f"expected a {kind.__name__}")
        for name, kind in DELIVERY_FIELDS.items()
        if type(args.get(name)) is not kind
    ]
    problems += [
        request_problem(name, "unknown key") for name in args if name not in DELIVERY_FIELDS
    ]
    if problems:
        raise InputInvalid(problems)
    key = tuple(args[name] for name in DELIVERY_FIELDS if name != "ok")
    return Decoded(ReportDelivery(key, bool(args["ok"])), None)  # type: ignore[arg-type]
