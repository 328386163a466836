"""``timeline:``: engine commands at ticks, each optionally with the answer it must give.

An entry is ``{at: TICK, COMMAND: {...}, expect: ANSWER}``. The commands are the engine's own
(:mod:`engine.commands`) plus ``status``, a read-only query like seed 000's ``getJobStatus``.
References to jobs and workers are collected as :class:`Reference` values and checked by the
loader once every definition in the file is known.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import commands as cmd
from engine.model import CatchUp, OccurrenceState
from engine.scenario.checks import (
    OUTCOME_NAMES,
    Accepted,
    Answer,
    Assignments,
    OutcomeIs,
    StateIs,
    StatusQuery,
)
from engine.scenario.errors import Position, one_of, path_key
from engine.scenario.jobs import INVALID, MODIFY_KEYS, SCHEDULE_KEYS, Definition, JobReader
from engine.scenario.model import Action
from engine.scenario.schema import Reader
from engine.scenario.settings import values_of
from engine.scenario.yaml_source import Node, Scalar, Sequence

COMMAND_KEYS = (
    "register",
    "schedule",
    "dispatch",
    "complete",
    "fail",
    "modify",
    "cancel",
    "delete",
    "pause",
    "resume",
    "down",
    "up",
    "drain",
    "status",
)
ENTRY_KEYS = ("at", "expect", *COMMAND_KEYS)

_WORKER_COMMANDS = {
    "down": cmd.WorkerDown,
    "up": cmd.WorkerUp,
    "drain": cmd.DrainWorker,
}
_JOB_COMMANDS = {"delete": cmd.DeleteJob, "pause": cmd.PauseJob}
_HTTP = {outcome.value: outcome for outcome in cmd.Outcome}


@dataclass(frozen=True, slots=True)
class Reference:
    """A job or worker id used at ``tick``; ``lenient`` when the entry states the answer it
    expects (then an unknown id is a test of the engine's answer, not a typo)."""

    kind: str
    """``job`` or ``worker``."""
    name: str
    tick: int
    node: Node
    path: str
    lenient: bool


@dataclass(frozen=True, slots=True)
class RawEntry:
    """A timeline entry before sorting: its position in the file keeps ties in file order."""

    tick: int
    action: Action
    expected: Answer | None
    pos: Position
    at_node: Node


class TimelineReader:
    """Reads the ``timeline:`` list; collects references and job definitions for the loader."""

    def __init__(self, reader: Reader, jobs: JobReader, defaults: dict[str, object]) -> None:
        self.reader = reader
        self.jobs = jobs
        self.defaults = defaults
        self.references: list[Reference] = []
        self.registrations: list[Reference] = []
        """The workers ``register`` commands define, in file order."""
        self.schedules: list[Definition] = []
        """The jobs ``schedule`` commands define, in file order."""

    def read(self, node: Node) -> list[RawEntry]:
        entries = []
        for path, item in self.reader.items(node, "timeline", "a list of {at: TICK, COMMAND: ...}"):
            entry = self._entry(item, path)
            if entry is not None:
                entries.append(entry)
        return entries

    def _entry(self, node: Node, path: str) -> RawEntry | None:
        fields = self.reader.mapping(node, path, ENTRY_KEYS, required=("at",))
        if fields is None:
            return None
        given = [key for key in fields if key in COMMAND_KEYS]
        if not given:
            self.reader.error(node, path, f"expected one command: {one_of(COMMAND_KEYS)}")
            return None
        for extra in given[1:]:
            self.reader.error(
                fields[extra], path_key(path, extra), f"one command per entry; {given[0]} is given"
            )
        if "at" not in fields or len(given) > 1:
            return None
        tick = self.reader.tick(fields["at"], path_key(path, "at"))
        key = given[0]
        expect = fields.get("expect")
        lenient = expect is not None
        # A wrong tick is reported; the command is still read (at tick 0) for its own problems.
        action = self._command(key, fields[key], path_key(path, key), tick or 0, lenient)
        if action is None or tick is None:
            return None
        expected = None
        if expect is not None:
            expected = self._answer(action, expect, path_key(path, "expect"))
            if expected is None:
                return None
        pos = expect.pos if expect is not None else node.pos
        return RawEntry(tick, action, expected, pos, fields["at"])

    # ------------------------------------------------------------- commands

    def _command(self, key: str, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        if key == "dispatch":
            if not (isinstance(node, Scalar) and node.value is None):
                self.reader.mapping(node, path, ())
            return cmd.Dispatch()
        if key == "schedule":
            definition = self.jobs.job(node, path, tick, self.defaults, lenient)
            if definition is None:
                return None
            self.schedules.append(definition)
            return None if definition.spec is None else cmd.ScheduleJob(definition.spec)
        if key == "register":
            return self._register(node, path, tick, lenient)
        if key in _WORKER_COMMANDS or key in _JOB_COMMANDS:
            kind = "worker" if key in _WORKER_COMMANDS else "job"
            fields = self._fields(node, path, (kind,))
            name = None if fields is None else self._id(fields, kind, path, tick, lenient)
            if name is None:
                return None
            return {**_WORKER_COMMANDS, **_JOB_COMMANDS}[key](name)
        return {
            "complete": self._complete,
            "fail": self._fail,
            "modify": self._modify,
            "cancel": self._cancel,
            "resume": self._resume,
            "status": self._status,
        }[key](node, path, tick, lenient)

    def _register(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        """A worker defined from ``tick`` on (its id is a definition, not a reference)."""
        fields = self._fields(node, path, ("worker",))
        if fields is None:
            return None
        worker_path = path_key(path, "worker")
        worker = self.reader.identifier(fields["worker"], worker_path, "a worker id")
        if worker is None:
            return None
        self.registrations.append(
            Reference("worker", worker, tick, fields["worker"], worker_path, lenient)
        )
        return cmd.RegisterWorker(worker)

    def _complete(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        keys = ("job", "scheduled", "attempt", "ok")
        fields = self._fields(node, path, keys, required=keys)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        scheduled = self.reader.tick(fields["scheduled"], path_key(path, "scheduled"))
        attempt = self.reader.integer(fields["attempt"], path_key(path, "attempt"), 1, 1001)
        ok = self.reader.boolean(fields["ok"], path_key(path, "ok"))
        if job is None or scheduled is None or attempt is None or ok is None:
            return None
        return cmd.Complete(job, scheduled, attempt, ok)

    def _fail(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        fields = self._fields(node, path, ("job", "attempt"), required=("job", "attempt"))
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        attempt = self.reader.integer(fields["attempt"], path_key(path, "attempt"), 1, 1001)
        return None if job is None or attempt is None else cmd.ScriptFailure(job, attempt)

    def _modify(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        fields = self._fields(node, path, MODIFY_KEYS, required=("job",))
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        changes = self.jobs.settings(fields, path)
        if any(key in fields for key in SCHEDULE_KEYS):
            changes["schedule"] = self.jobs.schedule(fields, path, tick)
        if not changes:
            self.reader.error(node, path, "expected at least one change besides job")
            return None
        if job is None or changes.get("schedule", True) is None or INVALID in changes.values():
            return None
        return cmd.ModifyJob.of(job, **changes)

    def _cancel(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        fields = self._fields(node, path, ("job", "scheduled"))
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        scheduled = None
        if "scheduled" in fields:
            scheduled = self.reader.tick(fields["scheduled"], path_key(path, "scheduled"))
            if scheduled is None:
                return None
        return None if job is None else cmd.CancelOccurrence(job, scheduled)

    def _resume(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        fields = self._fields(node, path, ("job", "catch_up"))
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        catch_up = None
        if "catch_up" in fields:
            catch_up = self.reader.choice(
                fields["catch_up"], path_key(path, "catch_up"), values_of(CatchUp)
            )
            if catch_up is None:
                return None
        return None if job is None else cmd.ResumeJob(job, catch_up)  # type: ignore[arg-type]

    def _status(self, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        keys = ("job", "scheduled")
        fields = self._fields(node, path, keys, required=keys)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient=True)
        scheduled = self.reader.tick(fields["scheduled"], path_key(path, "scheduled"))
        return None if job is None or scheduled is None else StatusQuery(job, scheduled)

    # --------------------------------------------------------------- helpers

    def _fields(
        self, node: Node, path: str, keys: tuple[str, ...], required: tuple[str, ...] | None = None
    ) -> dict[str, Node] | None:
        """The command's keys; all required unless said otherwise. None if any is missing."""
        required = keys[:1] if required is None else required
        fields = self.reader.mapping(node, path, keys, required=required)
        if fields is None or any(key not in fields for key in required):
            return None
        return fields

    def _id(
        self, fields: dict[str, Node], key: str, path: str, tick: int, lenient: bool
    ) -> str | None:
        node = fields[key]
        name = self.reader.identifier(node, path_key(path, key), f"a {key} id")
        if name is not None:
            self._refer(key, name, tick, node, path_key(path, key), lenient)
        return name

    def _refer(self, kind: str, name: str, tick: int, node: Node, path: str, lenient: bool) -> None:
        self.references.append(Reference(kind, name, tick, node, path, lenient))

    # --------------------------------------------------------------- answers

    def _answer(self, action: Action, node: Node, path: str) -> Answer | None:
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(action, StatusQuery):
            states = {state.name: state for state in OccurrenceState}
            if value == "":
                return StateIs(None)
            state = self.reader.choice(node, path, states)
            return None if state is None else StateIs(state)
        if isinstance(node, Sequence) and isinstance(action, cmd.Dispatch):
            lines = [self._assignment(item, f"{path}[{i}]") for i, item in enumerate(node.items)]
            return None if None in lines else Assignments(tuple(lines))  # type: ignore[arg-type]
        if isinstance(value, bool):
            return Accepted(value)
        if isinstance(value, int) and value in _HTTP:
            return OutcomeIs(_HTTP[value])
        if isinstance(value, str):
            outcome = self.reader.choice(node, path, OUTCOME_NAMES)
            return None if outcome is None else OutcomeIs(outcome)
        what = "true, false, an outcome (created, ok, not_found, conflict, invalid), an HTTP status"
        if isinstance(action, cmd.Dispatch):
            what += ' or a list of "job,scheduled,attempt,worker"'
        self.reader.expected(node, path, what)
        return None

    def _assignment(self, node: Node, path: str) -> str | None:
        text = node.value if isinstance(node, Scalar) else None
        parts = text.split(",") if isinstance(text, str) else []
        if len(parts) != 4 or not parts[1].isdigit() or not parts[2].isdigit():
            self.reader.expected(
                node, path, '"job,scheduled,attempt,worker" such as "report,10,1,w-a"'
            )
            return None
        return text
