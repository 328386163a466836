"""Inputs read by the scenario readers: the forms :mod:`cronlapse.service.stored_inputs` does not
decode, the keys a request body may hold, and the field an engine's refusal names.

A job posted to the API is accepted or refused with a scenario's rules and messages: the same
:data:`~engine.scenario.vocabulary.VERBS` table and the same readers
(:class:`~engine.scenario.command_reader.CommandReader`) read it, from the JSON body as positioned
nodes (:func:`~cronlapse.service.json_nodes.to_node`). Those readers are a good part of the
simulator, and most inputs never need them: a job with an interval or a time, a run's report,
a worker or job named (:mod:`cronlapse.service.stored_inputs`). :mod:`cronlapse.service.codec`
imports this module when an input needs it, so a server whose inputs are plain, and every
restart replaying them, loads none of it (``tests/service/test_serve_imports.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from cronlapse.service.codec import (
    AFTER_RUN,
    CANCEL_NEXT,
    KEPT,
    REQUEST,
    RUN_KEY,
    SCHEDULE_COMPANIONS,
    SERVICE_DEFAULTS,
    SIMULATION_ONLY,
    Decoded,
    InputInvalid,
    request_problem,
)
from cronlapse.service.json_nodes import to_node
from engine.model.commands import Command, ScheduleJob
from engine.model.problems import Code, Problem
from engine.scenario.command_reader import CommandReader
from engine.scenario.errors import Problems, did_you_mean_key, one_of
from engine.scenario.jobs import JobReader, dependency_node
from engine.scenario.schedule_keys import SCHEDULE_KEYS
from engine.scenario.schema import Reader
from engine.scenario.vocabulary import VERBS
from engine.schedules.clock import Clock


def body_keys(verb: str) -> tuple[str, ...]:
    """The keys a request body for ``schedule`` (POST) or ``modify`` (PUT, whose job is in the
    URL) may hold, sorted."""
    keys = {*VERBS[verb].keys, RUN_KEY} - set(SIMULATION_ONLY)
    if verb == "modify":
        keys = (keys - {"job"}) | {CANCEL_NEXT}
    return tuple(sorted(keys))


def unknown_keys(verb: str, fields: dict[str, object]) -> list[Problem]:
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


def read_kept(verb: str, args: Mapping[str, object], tick: int, clock: Clock) -> Decoded:
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
    decoded = read_command(verb, fields, tick, clock)
    if AFTER_RUN in flags:
        return Decoded(None, None, after_run=True)
    return Decoded(decoded.command, decoded.run, kept=True)


def read_command(verb: str, fields: dict[str, object], tick: int, clock: Clock) -> Decoded:
    problems: list[Problem] = []
    run = fields.pop(RUN_KEY, None) if verb in ("schedule", "modify") else None
    if verb in ("schedule", "modify"):
        problems += unknown_keys(verb, fields)
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


def request_path(command: Command, args: Mapping[str, object], problem: Problem) -> str:
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
