"""``expect:``: checks of the engine's state at ticks, after everything of that tick has run.

An entry names its tick and one or more checks: ``status`` and ``attempts`` of one occurrence
(``job`` and ``scheduled``, which a one-time job may leave out), ``counts`` of occurrences by
state, ``events`` by type (both for one ``job`` or for all) and a ``worker``'s ``state``.
"""

from __future__ import annotations

from engine.model.records import OccurrenceState, WorkerState
from engine.scenario.checks import (
    COUNTABLE_STATES,
    AttemptCount,
    Check,
    EventCount,
    Expectation,
    OccurrenceStatus,
    StateCount,
    WorkerStateIs,
    event_types,
)
from engine.scenario.errors import did_you_mean, one_of, path_key
from engine.scenario.schema import Reader
from engine.scenario.timeline import Reference
from engine.scenario.yaml_source import Mapping, Node
from engine.schedules.kinds import Once

EXPECT_KEYS = (
    "at",
    "job",
    "scheduled",
    "status",
    "attempts",
    "counts",
    "events",
    "worker",
    "state",
)
CHECK_KEYS = ("status", "attempts", "counts", "events", "state")
_NEEDS = {"status": "job", "attempts": "job", "state": "worker"}


class ExpectReader:
    """Reads the ``expect:`` list; ``once`` gives a one-time job's tick when ``scheduled`` is
    left out."""

    def __init__(self, reader: Reader, once: dict[str, Once], broken: set[str]) -> None:
        self.reader = reader
        self.once = once
        self.broken = broken
        """Jobs whose definition was wrong (and reported): whether they are one-time is unknown."""
        self.references: list[Reference] = []

    def read(self, node: Node) -> list[Expectation]:
        expectations: list[Expectation] = []
        for path, item in self.reader.items(node, "expect", "a list of {at: TICK, ...checks}"):
            expectations.extend(self._entry(item, path))
        return expectations

    def _entry(self, node: Node, path: str) -> list[Expectation]:
        fields = self.reader.mapping(node, path, EXPECT_KEYS, required=("at",))
        if fields is None or "at" not in fields:
            return []
        tick = self.reader.tick(fields["at"], path_key(path, "at"))
        checks = [key for key in CHECK_KEYS if key in fields]
        if not checks:
            self.reader.error(node, path, f"expected a check: {one_of(CHECK_KEYS)}")
        if not self._consistent(fields, path):
            return []
        job = worker = None
        if "job" in fields:
            job = self._reference("job", fields["job"], path_key(path, "job"), tick)
        if "worker" in fields:
            worker = self._reference("worker", fields["worker"], path_key(path, "worker"), tick)
        scheduled = self._scheduled(fields, path, job)
        results = []
        for key in checks:
            value, key_path = fields[key], path_key(path, key)
            if key in ("counts", "events"):
                found = self._counts(key, value, key_path, job)
            else:
                check = self._check(key, value, key_path, job, worker, scheduled)
                found = [] if check is None else [(check, value)]
            results += [Expectation(tick, c, n.pos) for c, n in found if tick is not None]
        return results

    def _consistent(self, fields: dict[str, Node], path: str) -> bool:
        """Each check has the subject it needs, and no subject is left without a check."""
        ok = True
        for check, subject in _NEEDS.items():
            if check in fields and subject not in fields:
                self.reader.error(
                    fields[check], path_key(path, check), f"{check} needs a {subject}"
                )
                ok = False
        if "worker" in fields and "state" not in fields:
            self.reader.error(fields["worker"], path_key(path, "worker"), "worker goes with state")
            ok = False
        if "scheduled" in fields and not {"status", "attempts"} & fields.keys():
            message = "scheduled goes with status or attempts"
            self.reader.error(fields["scheduled"], path_key(path, "scheduled"), message)
            ok = False
        if "job" in fields and "state" in fields:
            message = "state is a worker's; an occurrence's is status"
            self.reader.error(fields["state"], path_key(path, "state"), message)
            ok = False
        return ok

    def _reference(self, kind: str, node: Node, path: str, tick: int | None) -> str | None:
        name = self.reader.identifier(node, path, f"a {kind} id")
        if name is not None and tick is not None:
            self.references.append(Reference(kind, name, tick, node, path, lenient=False))
        return name

    def _scheduled(self, fields: dict[str, Node], path: str, job: str | None) -> int | None:
        if "scheduled" in fields:
            return self.reader.tick(fields["scheduled"], path_key(path, "scheduled"))
        if job is None or not {"status", "attempts"} & fields.keys():
            return None
        once = self.once.get(job)
        if once is None and job in self.broken:
            return None
        if once is None:
            self.reader.error(
                fields["job"],
                path_key(path, "job"),
                f"give scheduled: {job!r} is not a one-time job with a single occurrence",
            )
            return None
        return once.at

    def _check(
        self,
        key: str,
        node: Node,
        path: str,
        job: str | None,
        worker: str | None,
        scheduled: int | None,
    ) -> Check | None:
        reader = self.reader
        if key == "status":
            state = reader.choice(node, path, {s.name: s for s in OccurrenceState})
            if state is None or job is None or scheduled is None:
                return None
            return OccurrenceStatus(job, scheduled, state)
        if key == "attempts":
            attempts = reader.integer(node, path, 0, 1001)
            if attempts is None or job is None or scheduled is None:
                return None
            return AttemptCount(job, scheduled, attempts)
        if key == "state":
            worker_state = reader.choice(node, path, {s.name: s for s in WorkerState})
            if worker_state is None or worker is None:
                return None
            return WorkerStateIs(worker, worker_state)
        return None

    def _counts(self, key: str, node: Node, path: str, job: str | None) -> list[tuple[Check, Node]]:
        """``counts: {STATE: n}`` or ``events: {Type: n}``: one check per count, at its value."""
        names: dict[str, object] = dict(COUNTABLE_STATES) if key == "counts" else event_types()
        if not isinstance(node, Mapping):
            kind = "states" if key == "counts" else "event types"
            self.reader.expected(node, path, f"a mapping of {kind} to numbers")
            return []
        checks: list[tuple[Check, Node]] = []
        for name_node, value_node in node.entries:
            name, item_path = name_node.text, path_key(path, name_node.text)
            count = self.reader.integer(value_node, item_path, 0)
            if name not in names:
                self.reader.error(name_node, item_path, _unknown_name(key, name, names))
                continue
            if count is None:
                continue
            if key == "counts":
                checks.append((StateCount(job, COUNTABLE_STATES[name], count), value_node))
            else:
                checks.append((EventCount(job, name, count), value_node))
        return checks


def _unknown_name(key: str, name: str, names: dict[str, object]) -> str:
    if key == "counts" and name in ("QUEUED", "SCHEDULED"):
        return (
            f"{name} cannot be counted: runs that fall due and wait stay implicit until a worker "
            "takes them; check one occurrence's status instead"
        )
    hint = did_you_mean(name, names)
    kind = "state" if key == "counts" else "event type"
    return f"unknown {kind} {name!r}{hint}" + (
        "" if hint else f": expected {one_of(sorted(names))}"
    )
