"""Reading a command's values into the action it builds, for the scenario timeline and the
dashboard's command line alike (:mod:`engine.scenario.vocabulary` holds the table of commands).

Each builder takes the command's value as a file gives it (the command line's words are turned
into the same values first), reads it with the job readers every job key goes through, and
records the job and worker ids it uses, which a scenario's loader checks once the file is known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.model import commands as cmd
from engine.model import limits
from engine.model.records import BackfillOrder, CatchUp, Channel, NotifyOn
from engine.model.values import value
from engine.scenario.checks import StatusQuery
from engine.scenario.errors import path_key
from engine.scenario.jobs import INVALID, Definition, JobReader
from engine.scenario.model import Action
from engine.scenario.schedule_keys import SCHEDULE_KEYS
from engine.scenario.schema import Reader
from engine.scenario.settings import values_of
from engine.scenario.yaml_source import Node, Scalar
from engine.schedules.clock import Clock
from engine.schedules.schedule_clock import calendar_clock

if TYPE_CHECKING:
    from engine.core import Engine
    from engine.scenario.vocabulary import Verb

OUTCOMES = {"ok": True, "fail": False, "succeeded": True, "failed": False}
_EVENTS = {happening.value: happening.value for happening in NotifyOn}
_CHANNELS = {channel.value: channel.value for channel in Channel}
"""A notification key's event and channel are their names (:mod:`engine.parts.notifications`)."""
"""How ``complete`` says an attempt ended, besides true and false."""


@value
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


Built = Action | None
"""What a builder gives: the action, or None after reporting a problem."""
Zones = Callable[[str], Clock | None]
"""A job's zone (the clock its calendar schedule is read in) by its id; None if it has none."""


def no_zones(_: str) -> Clock | None:
    return None


def defined_zones(*groups: list[Definition]) -> Zones:
    """The zones of the jobs a file defines (under ``jobs:``, by ``schedule`` commands), as
    the lists stand when a modify is read."""

    def zone(job_id: str) -> Clock | None:
        for group in groups:
            for definition in group:
                if definition.job_id == job_id and definition.spec is not None:
                    return calendar_clock(definition.spec.schedule)
        return None

    return zone


def engine_zones(engine: Engine) -> Zones:
    """The zones of the engine's jobs as they are now (the command line, the service)."""

    def zone(job_id: str) -> Clock | None:
        job = engine.query.job(job_id)
        return None if job is None else calendar_clock(job.spec.schedule)

    return zone


class CommandReader:
    """Reads a verb's values into the action it builds; records the ids it refers to and defines,
    which a scenario's loader checks once the whole file is known."""

    def __init__(
        self,
        reader: Reader,
        jobs: JobReader,
        defaults: dict[str, object],
        zones: Zones = no_zones,
    ) -> None:
        self.reader = reader
        self.jobs = jobs
        self.defaults = defaults
        self.zones = zones
        """A modify's schedule that names no ``timezone`` keeps the job's zone, not the clock's."""
        self._modified_zones: dict[str, Clock | None] = {}
        """The zones modifies read so far gave their jobs (a file's later modify keeps them)."""
        self.references: list[Reference] = []
        self.registrations: list[Reference] = []
        """The workers ``register`` commands define, in file order."""
        self.schedules: list[Definition] = []
        """The jobs ``schedule`` commands define, in file order."""

    def _zone_of(self, job_id: str) -> Clock | None:
        if job_id in self._modified_zones:
            return self._modified_zones[job_id]
        return self.zones(job_id)

    def command(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Action | None:
        """The action ``node`` gives ``verb`` at ``tick``; None after reporting a problem."""
        return verb.build(self, verb, node, path, tick, lenient)

    def _fields(self, verb: Verb, node: Node, path: str) -> dict[str, Node] | None:
        """The verb's keys; None if one it needs is missing."""
        required = tuple(param.key for param in verb.params if not param.optional)
        fields = self.reader.mapping(node, path, verb.keys, required=required)
        if fields is None or any(key not in fields for key in required):
            return None
        return fields

    # ------------------------------------------------------------ builders

    def build_dispatch(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Action:
        if not (isinstance(node, Scalar) and node.value is None):
            self.reader.mapping(node, path, ())
        return cmd.Dispatch()

    def build_schedule(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        definition = self.jobs.job(node, path, tick, self.defaults, lenient)
        if definition is None:
            return None
        self.schedules.append(definition)
        return None if definition.spec is None else cmd.ScheduleJob(definition.spec)

    def build_register(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        """A worker defined from ``tick`` on (its id is a definition, not a reference)."""
        fields = self._fields(verb, node, path)
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

    def build_named(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        """A command on one job or worker: its id is all it takes."""
        fields = self._fields(verb, node, path)
        name = None if fields is None else self._id(fields, verb.params[0].key, path, tick, lenient)
        return None if name is None else verb.builds(name)

    def build_complete(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        scheduled = self._scheduled(fields, path, tick)
        attempt = self._attempt(fields, path)
        ok = self._outcome(fields["ok"], path_key(path, "ok"))
        if job is None or scheduled is None or attempt is None or ok is None:
            return None
        return cmd.Complete(job, scheduled, attempt, ok)

    def build_delivery(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        """A notification's delivery try ended: its idempotency key's parts, and ``ok``."""
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        scheduled = self._scheduled(fields, path, tick)
        attempt = self._attempt(fields, path)
        event = self.reader.choice(fields["event"], path_key(path, "event"), _EVENTS)
        channel = self.reader.choice(fields["channel"], path_key(path, "channel"), _CHANNELS)
        to = self.reader.string(fields["to"], path_key(path, "to"), "the subscription's target")
        ok = self._outcome(fields["ok"], path_key(path, "ok"))
        parts = (job, scheduled, attempt, event, channel, to, ok)
        if any(part is None for part in parts):
            return None
        key = (job, scheduled, attempt, event, channel, to)
        return cmd.ReportDelivery(key, ok)  # type: ignore[arg-type]

    def build_fail(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        attempt = self._attempt(fields, path)
        return None if job is None or attempt is None else cmd.ScriptFailure(job, attempt)

    def build_modify(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        changes = self.jobs.settings(fields, path)
        if any(key in fields for key in SCHEDULE_KEYS):
            zone = None if job is None else self._zone_of(job)
            changes["schedule"] = schedule = self.jobs.schedule(fields, path, tick, zone)
            if job is not None and schedule is not None:
                self._modified_zones[job] = calendar_clock(schedule)
        if not changes:
            self.reader.error(node, path, "expected at least one change besides job")
            return None
        if job is None or changes.get("schedule", True) is None or INVALID in changes.values():
            return None
        return cmd.ModifyJob.of(job, **changes)

    def build_cancel(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        scheduled = None
        if "scheduled" in fields:
            scheduled = self._scheduled(fields, path, tick)
            if scheduled is None:
                return None
        return None if job is None else cmd.CancelOccurrence(job, scheduled)

    def build_resume(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
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

    def build_backfill(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        """The job's runs for the logical ticks from ``from`` to ``to``, in ``order``."""
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient)
        clock = self.jobs.clock
        first = self.jobs.time(fields["from"], path_key(path, "from"), tick, clock)
        last = self.jobs.time(fields["to"], path_key(path, "to"), tick, clock)
        order: BackfillOrder | None = BackfillOrder.PARALLEL
        if "order" in fields:
            order = self.reader.choice(
                fields["order"], path_key(path, "order"), values_of(BackfillOrder)
            )
        max_runs: int | float | None = limits.DEFAULT_BACKFILL_RUNS
        if "max_runs" in fields:
            max_runs = self.jobs.limited(
                fields["max_runs"], path_key(path, "max_runs"), limits.BACKFILL_RUNS
            )
        if first is not None and last is not None and last < first:
            self.reader.error(
                fields["to"], path_key(path, "to"), f"expected a tick from {first} on"
            )
            return None
        if job is None or first is None or last is None or order is None or max_runs is None:
            return None
        return cmd.BackfillJob(job, first, last, order, int(max_runs))

    def build_status(self, verb: Verb, node: Node, path: str, tick: int, lenient: bool) -> Built:
        fields = self._fields(verb, node, path)
        if fields is None:
            return None
        job = self._id(fields, "job", path, tick, lenient=True)
        scheduled = self._scheduled(fields, path, tick)
        return None if job is None or scheduled is None else StatusQuery(job, scheduled)

    # --------------------------------------------------------------- values

    def _id(
        self, fields: dict[str, Node], key: str, path: str, tick: int, lenient: bool
    ) -> str | None:
        node = fields[key]
        name = self.reader.identifier(node, path_key(path, key), f"a {key} id")
        if name is not None:
            self.references.append(Reference(key, name, tick, node, path_key(path, key), lenient))
        return name

    def _scheduled(self, fields: dict[str, Node], path: str, tick: int) -> int | None:
        """An occurrence's scheduled tick, written as any time ``at`` takes."""
        return self.jobs.time(
            fields["scheduled"], path_key(path, "scheduled"), tick, self.jobs.clock
        )

    def _attempt(self, fields: dict[str, Node], path: str) -> int | None:
        value = self.jobs.limited(fields["attempt"], path_key(path, "attempt"), limits.ATTEMPT)
        return None if value is None else int(value)

    def _outcome(self, node: Node, path: str) -> bool | None:
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(value, bool):
            return value
        return self.reader.choice(node, path, {"true": True, "false": False, **OUTCOMES})
