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
refused: a real job's attempts end when its executor says so.

One input is the service's own rather than the vocabulary's: ``delivery``, how one delivery try
of a notification ended (:mod:`cronlapse.service.delivery`), read here into the engine's
:class:`~engine.model.commands.ReportDelivery`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cronlapse.service.json_nodes import to_node
from engine.model.commands import (
    MODIFIABLE_FIELDS,
    Command,
    ModifyJob,
    Outcome,
    ReportDelivery,
    Result,
    ScheduleJob,
)
from engine.model.limits import spec_problem
from engine.model.records import CatchUp
from engine.parts.lifecycle import past_run_time
from engine.rules.dependencies import dependency_problem
from engine.rules.pools import pool_problem
from engine.scenario.command_reader import CommandReader
from engine.scenario.errors import Problems
from engine.scenario.jobs import Definition, JobReader
from engine.scenario.schedule_keys import SCHEDULE_KEYS
from engine.scenario.schema import Reader
from engine.scenario.vocabulary import VERBS
from engine.schedules.clock import Clock

if TYPE_CHECKING:
    from engine.core import Engine

SIMULATION_ONLY = ("duration", "fail", "hang", "failure_rate")
"""Job keys of scenarios that a real job has no use for."""
SERVICE_DEFAULTS: dict[str, object] = {"catch_up": CatchUp.LATEST}
"""Job settings the service defaults differently from a scenario: runs missed while the server
was down are coalesced into one (APScheduler's ``coalesce=True``; see docs/service.md)."""
RUN_KEY = "run"
CLOCK = "clock"
"""The verb of a clock reading: time moved to the row's tick (no arguments)."""
DOWNTIME = "downtime"
"""The verb of a restart after downtime: ``{"since": tick}`` (see :mod:`cronlapse.service.live`)."""
LIVE_VERBS = ("schedule", "modify", "cancel", "delete", "complete", "register", "drain")
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


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str


class InputInvalid(ValueError):
    """An input the readers refuse; ``problems`` holds each field's path and message."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}".lstrip(": ") for p in problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Refused(Result):
    """The engine's refusal of an input, with the path of the field it concerns.

    The engine's :class:`~engine.model.commands.Result` carries a message and no field: it judges
    commands, not the JSON they were read from. The service holds both, so it names the field
    (as the readers do: ``depends_on[1]``, ``pool``) and the 422 says which one is wrong. It is
    a Result still, so whatever reads an outcome (the group commit, the export) reads it as
    before."""

    path: str = ""


def with_field(
    engine: Engine, command: Command, args: Mapping[str, object], result: Result
) -> Result:
    """``result``, as a :class:`Refused` naming its field when the engine refused a ``schedule``
    for a dependency or a pool it does not know, or a ``modify`` of the schedule of a job that
    others depend on.

    The readers cannot refuse these: a dependency may be created by an earlier input of the
    same commit, and the pools and a job's dependents are the engine's, so the engine judges
    them when the input applies, after it is journaled. Which check refused is asked of the
    engine's own checks again, not read from the message's wording: a refused command changes
    nothing, so they answer as they did. (The engine's other refusals of a job's fields, its
    limits and a run time already past, and on ``modify`` a field it cannot change, are the
    readers' first: each reaches the engine only once the readers have passed it.)"""
    if result.outcome is not Outcome.INVALID:
        return result
    if isinstance(command, ModifyJob):
        path = _kept_schedule_path(engine, command, args)
        return (
            result if path is None else Refused(result.outcome, result.value, result.message, path)
        )
    if not isinstance(command, ScheduleJob):
        return result
    spec = command.spec
    jobs = engine.query.jobs()
    if spec.depends_on and dependency_problem(jobs, spec) == result.message:
        unknown = next(name for name in spec.depends_on if name not in jobs)
        # The scenario check's own path for a dependency: its item in a list, else the key.
        definition = Definition(spec.job_id, spec, engine.now, to_node(dict(args)), "")
        path = definition.dependency_node(unknown)[1]
    elif pool_problem(dict(engine.policy.pools), spec.pool) == result.message:
        path = "pool"
    else:
        return result
    return Refused(result.outcome, result.value, result.message, path)


SCHEDULE_COMPANIONS = ("first", "timezone")
"""Schedule keys that go with a schedule (``every``, ``cron``...) rather than being one."""


def _kept_schedule_path(
    engine: Engine, command: ModifyJob, args: Mapping[str, object]
) -> str | None:
    """The schedule's key when the engine refused ``command`` because others depend on the
    job (:meth:`engine.parts.lifecycle.Lifecycle.modify`); None when another check refused it.

    That check is the last of the modify's INVALID ones and has no function of its own to ask
    again: it refused when the change is the schedule's, the job has dependents, and each
    check before it (a field it cannot change, the limits, a run time already past) passes."""
    changes = dict(command.changes)
    job = engine.query.job(command.job_id)
    if job is None or not job.dependents or "schedule" not in changes:
        return None
    if set(changes) - MODIFIABLE_FIELDS:
        return None
    spec = dataclasses.replace(job.spec, **changes)
    if spec_problem(spec) is not None or past_run_time(spec.schedule, engine.now) is not None:
        return None
    return next(
        (key for key in SCHEDULE_KEYS if key in args and key not in SCHEDULE_COMPANIONS), None
    )


@dataclass(frozen=True, slots=True)
class Decoded:
    """What an input does: an engine command (None when only ``run`` changes) and the executor
    it names (None when it names none)."""

    command: Command | None
    run: str | None


def read_input(verb: str, args: Mapping[str, object], tick: int, clock: Clock) -> Decoded:
    """The command ``args`` give ``verb`` at ``tick``; :class:`InputInvalid` lists every problem."""
    if verb == DELIVERY:
        return _read_delivery(args)
    fields = dict(args)
    problems: list[Problem] = []
    run = fields.pop(RUN_KEY, None) if verb in ("schedule", "modify") else None
    if run is not None and (not isinstance(run, str) or not run.strip()):
        problems.append(Problem(RUN_KEY, "expected the name of an executor"))
    for key in SIMULATION_ONLY:
        if verb in ("schedule", "modify") and key in fields:
            message = f"{key} only means something in a simulation: a real job's attempts end "
            problems.append(Problem(key, message + "when its executor reports"))
    if verb == "modify" and set(fields) == {"job"} and run is not None:
        if problems:
            raise InputInvalid(problems)
        return Decoded(None, run)  # type: ignore[arg-type]
    found = Problems("request")
    reader = Reader(found)
    defaults = SERVICE_DEFAULTS if verb == "schedule" else {}
    commands = CommandReader(reader, JobReader(reader, clock), dict(defaults))
    command = commands.command(VERBS[verb], to_node(fields), "", tick, lenient=True)
    problems += [Problem(error.path, error.message) for error in found.errors]
    if problems or command is None:
        raise InputInvalid(problems or [Problem("", f"expected the arguments of {verb}")])
    return Decoded(command, run)  # type: ignore[arg-type]


def _read_delivery(args: Mapping[str, object]) -> Decoded:
    """A delivery report: exactly the key's fields and ``ok``, each of its type."""
    problems = [
        Problem(name, f"expected a {kind.__name__}")
        for name, kind in DELIVERY_FIELDS.items()
        if type(args.get(name)) is not kind
    ]
    problems += [Problem(name, "unknown key") for name in args if name not in DELIVERY_FIELDS]
    if problems:
        raise InputInvalid(problems)
    key = tuple(args[name] for name in DELIVERY_FIELDS if name != "ok")
    return Decoded(ReportDelivery(key, bool(args["ok"])), None)  # type: ignore[arg-type]
