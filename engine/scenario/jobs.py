"""Jobs: schedules and settings, as under ``jobs:``, ``defaults:``, ``schedule:`` and ``modify:``.

One reader serves every place a job's keys appear, and the dashboard's ``KEY=VALUE`` words too
(:func:`word_node` gives a typed word the value the same text has in a file), so a key means the
same everywhere and its errors read the same. Limits are the engine's (:mod:`engine.model.limits`),
refused in its words; calendar keys reuse :mod:`engine.schedules.calendar`'s builders and messages.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.model import limits
from engine.model.job_rules import Overlap, OverlapRule, TriggerRule
from engine.model.limits import Limit
from engine.model.records import PRIORITY_LEVELS, CatchUp, Channel, JobSpec, NotifyOn, Subscription
from engine.model.values import value
from engine.scenario.errors import Position, Problems, ScenarioInvalid, path_index, path_key
from engine.scenario.schedule_keys import SCHEDULE_KEYS, ScheduleReader
from engine.scenario.schema import Reader, is_null
from engine.scenario.settings import read_backoff, values_of
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence, parse_yaml
from engine.schedules.clock import Clock
from engine.schedules.kinds import Schedule

MODIFIABLE_KEYS = (
    "priority",
    "duration",
    "max_retries",
    "max_attempts",
    "timeout",
    "payload",
    "catch_up",
    "notify",
)
SETTING_KEYS = (
    *MODIFIABLE_KEYS,
    "fail",
    "hang",
    "failure_rate",
    "backoff",
    "overlap",
    "max_active",
    "pool",
    "trigger_rule",
    "deadline",
    "catch_up_window",
    "max_missed",
    "start_deadline",
    "run_timeout",
)
"""What ``defaults:`` may set for every job."""
JOB_KEYS = ("id", *SCHEDULE_KEYS, *SETTING_KEYS, "depends_on")
SOURCE_KEY = "source"
"""Where an imported job came from and what of it the scenario does not model (its entry as
written, the rest of its manifest, its unit files), kept so that ``cronlapse export`` can write
it back: text for the exporters, which the engine never reads. Allowed on ``jobs:`` entries."""
_ENTRY_KEYS = dict.fromkeys((*JOB_KEYS, SOURCE_KEY))
"""The keys of a ``jobs:`` entry, in order, for :meth:`Reader.mapping`: a dict finds each of an
entry's keys at once where the tuple was walked for it (the demo's 2,000 generated jobs)."""
MODIFY_KEYS = ("job", *SCHEDULE_KEYS, *MODIFIABLE_KEYS)
NOTIFY_KEYS = ("on", "channel", "to")

INVALID = object()
"""A setting whose value was wrong (already reported); distinct from a legitimate None."""
_NULL = object()
_FIELD_NAMES = {"max_retries": "max_attempts", "fail": "fail_attempts", "hang": "hang_attempts"}
_ALLOW = object()
"""``overlap: Allow`` (Kubernetes) or ``AllowAll`` (Temporal): runs may overlap, no rule."""
OVERLAP_NAMES: dict[str, object] = {
    "Allow": _ALLOW,
    "AllowAll": _ALLOW,
    **{policy.value: policy for policy in Overlap},
}
"""The ``overlap`` values, as the source systems spell them (read ignoring case)."""


@value
class Definition:
    """A job defined under ``jobs:``/``generate:`` (tick 0) or by a ``schedule`` command."""

    job_id: str | None
    """None when the id is missing or wrong (and reported): the job defines nothing, but its
    own dependencies are still checked."""
    spec: JobSpec | None
    """None when some key was wrong (and reported): the id still counts as defined, so that
    references to it do not add errors that fixing the job would not fix."""
    tick: int
    node: Node
    """The job's mapping, for the positions of its id and its dependencies."""
    path: str
    lenient: bool = False
    """A ``schedule`` command that states its expected answer: its conflicts are tests."""
    dependencies: tuple[str, ...] = ()
    schedule: Schedule | None = None
    source: dict[str, str] | None = None
    """The job's ``source:`` mapping, if it has one."""
    """The valid dependencies and the schedule (None when wrong), kept apart from ``spec`` so
    that a job with another error is still checked with what of it could be read: every error
    of a file is reported in one pass."""

    def id_node(self) -> Node:
        return _value(self.node, "id")

    def dependency_node(self, name: str) -> tuple[Node, str]:
        """The node and key path of ``name`` in this job's ``depends_on``."""
        return dependency_node(self.node, self.path, name)


def dependency_node(job: Node, path: str, name: str) -> tuple[Node, str]:
    """The node and key path of ``name`` in the ``depends_on`` of the job at ``job`` (whose
    key path is ``path``): its item in a list, else the key itself (``depends_on: a, b``)."""
    path = path_key(path, "depends_on")
    dependencies = _value(job, "depends_on")
    if isinstance(dependencies, Sequence):
        for index, item in enumerate(dependencies.items):
            if isinstance(item, Scalar) and item.text == name:
                return item, path_index(path, index)
    return dependencies, path


def _value(node: Node, key: str) -> Node:
    """A mapping's value for ``key``, or the node itself when there is none (for positions)."""
    value = node.get(key) if isinstance(node, Mapping) else None
    return node if value is None else value


class JobReader(ScheduleReader):
    """Reads job keys: settings here, schedules in :class:`ScheduleReader`."""

    def __init__(self, reader: Reader, clock: Clock | None, clock_failed: bool = False) -> None:
        super().__init__(reader, clock, clock_failed)
        limited = self.limited
        self._settings: dict[str, Callable[[Node, str], object]] = {
            "priority": self._priority,
            "duration": lambda n, p: limited(n, p, limits.DURATION),
            "max_retries": lambda n, p: _plus_one(limited(n, p, limits.RETRIES)),
            "max_attempts": lambda n, p: limited(n, p, limits.ATTEMPTS),
            "timeout": lambda n, p: _NULL if _none(n) else limited(n, p, limits.TIMEOUT),
            "payload": self._payload,
            "catch_up": lambda n, p: reader.choice(n, p, values_of(CatchUp)),
            "fail": self._attempt_numbers,
            "hang": self._attempt_numbers,
            "failure_rate": lambda n, p: limited(n, p, limits.FAILURE_RATE),
            "backoff": lambda n, p: read_backoff(reader, n, p),
            "notify": self._notify,
            "overlap": lambda n, p: reader.choice(n, p, OVERLAP_NAMES),
            "max_active": lambda n, p: limited(n, p, limits.MAX_ACTIVE),
            "pool": lambda n, p: reader.identifier(n, p, "a pool name"),
            "trigger_rule": lambda n, p: reader.choice(n, p, values_of(TriggerRule)),
            "deadline": lambda n, p: limited(n, p, limits.DEADLINE),
            "catch_up_window": lambda n, p: limited(n, p, limits.CATCH_UP_WINDOW),
            "max_missed": lambda n, p: limited(n, p, limits.MAX_MISSED),
            "start_deadline": lambda n, p: limited(n, p, limits.START_DEADLINE),
            "run_timeout": lambda n, p: limited(n, p, limits.RUN_TIMEOUT),
        }
        """Each returns the value, None after reporting a problem, or _NULL for a null timeout."""

    # ------------------------------------------------------------------- jobs

    def job(
        self,
        node: Node,
        path: str,
        now: int,
        defaults: dict[str, object],
        lenient: bool = False,
    ) -> Definition | None:
        """A ``jobs:`` entry (or a ``schedule:`` command at tick ``now``); None when it is not
        a mapping.

        ``defaults`` holds only valid settings: a wrong default is reported once, at itself.
        """
        fields = self.reader.mapping(node, path, _ENTRY_KEYS, required=("id",))
        if fields is None:
            return None
        source = None
        if SOURCE_KEY in fields:
            source = self.source(fields[SOURCE_KEY], path_key(path, SOURCE_KEY))
        job_id = None
        if "id" in fields:
            job_id = self.reader.identifier(fields["id"], path_key(path, "id"), "a job id")
        schedule = self.schedule(fields, path, now)
        settings = dict(defaults)
        settings.update(self.settings(fields, path))
        self._overlap_rule(settings, node, path)
        read: list[str | None] = []
        if "depends_on" in fields:
            read = self.job_ids(fields["depends_on"], path_key(path, "depends_on"))
        depends_on = tuple(dict.fromkeys(name for name in read if name is not None))
        spec = None
        if (
            job_id is not None
            and schedule is not None
            and None not in read
            and INVALID not in settings.values()
        ):
            spec = JobSpec(job_id, schedule, depends_on=depends_on, **settings)  # type: ignore[arg-type]
        return Definition(job_id, spec, now, node, path, lenient, depends_on, schedule, source)

    def source(self, node: Node, path: str) -> dict[str, str] | None:
        """A ``source:`` mapping: names to text (a number is read as the text it is written
        as, ``line: 7``); None after reporting a problem."""
        if not isinstance(node, Mapping):
            self.reader.expected(node, path, "a mapping of names to text")
            return None
        texts: dict[str, str] = {}
        for key, item in node.entries:
            if not isinstance(item, Scalar) or not isinstance(item.value, str | int):
                self.reader.expected(item, path_key(path, key.text), "text")
                return None
            texts[key.text] = item.value if isinstance(item.value, str) else item.text
        return texts

    def _overlap_rule(self, settings: dict[str, object], node: Node, path: str) -> None:
        """Combine ``overlap`` and ``max_active`` (the job's or the defaults') into the one
        JobSpec field: ``max_active`` alone is Airflow's max_active_runs, a policy alone has a
        limit of one, Allow and AllowAll set no rule."""
        policy = settings.pop("overlap", None)
        limit = settings.pop("max_active", None)
        if policy is INVALID or limit is INVALID:
            settings["overlap"] = INVALID
        elif policy is _ALLOW:
            if limit is not None:
                given = isinstance(node, Mapping) and node.get("max_active") is not None
                self.reader.error(
                    _value(node, "max_active"),
                    path_key(path, "max_active") if given else path,
                    f"overlap Allow runs without a limit: drop max_active: {limit}, or give a "
                    "policy such as BufferAll or Forbid",
                )
                settings["overlap"] = INVALID
        elif policy is not None or limit is not None:
            rule = OverlapRule(policy or Overlap.MAX_ACTIVE_RUNS, limit or 1)  # type: ignore[arg-type]
            settings["overlap"] = rule

    def job_ids(self, node: Node, path: str) -> list[str | None]:
        """A list of job ids (or ``a,b``) in the order given, None for each wrong one (and
        reported), a single None when the list itself is wrong."""
        items = self.items(node, path, "a list of job ids")
        if items is None:
            return [None]
        return [
            self.reader.identifier(item, path_index(path, index), "a job id")
            for index, item in enumerate(items)
        ]

    def settings(self, fields: dict[str, Node], path: str) -> dict[str, object]:
        """The JobSpec keyword arguments the setting keys among ``fields`` give, INVALID where a
        value was wrong; ``max_retries: n`` is ``max_attempts: n + 1``."""
        settings: dict[str, object] = {}
        for key, node in fields.items():
            read = self._settings.get(key)
            if read is None:
                continue
            value = read(node, path_key(path, key))
            settings[_FIELD_NAMES.get(key, key)] = (
                INVALID if value is None else None if value is _NULL else value
            )
        if "max_retries" in fields and "max_attempts" in fields:
            self.reader.error(
                fields["max_attempts"],
                path_key(path, "max_attempts"),
                "give max_retries or max_attempts, not both (max_attempts = max_retries + 1)",
            )
            settings["max_attempts"] = INVALID
        return settings

    def items(self, node: Node, path: str, what: str) -> tuple[Node, ...] | None:
        """A list, or its short form: one number, or ``a,b`` read as the flow list ``[a,b]``."""
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(value, str) and value.strip():
            assert isinstance(node, Scalar)
            return tuple(word_node(part.strip(), node.pos) for part in value.split(","))
        if isinstance(value, int) and not isinstance(value, bool):
            return (node,)
        return self.reader.sequence(node, path, what)

    def limited(self, node: Node, path: str, limit: Limit) -> int | float | None:
        """A number within one of the engine's limits, refused with the engine's message."""
        value = node.value if isinstance(node, Scalar) else None
        kind = int if limit.whole else int | float
        if isinstance(value, bool) or not isinstance(value, kind):
            self.reader.expected(node, path, limit.expected)
            return None
        problem = limit.problem(value)
        if problem is not None:
            self.reader.error(node, path, problem)
            return None
        return value if limit.whole else float(value)

    def _priority(self, node: Node, path: str) -> int | float | None:
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(value, str):
            return self.reader.choice(node, path, PRIORITY_LEVELS)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.limited(node, path, limits.PRIORITY)
        what = f"high, medium, low or {limits.PRIORITY.expected} (higher runs first)"
        self.reader.expected(node, path, what)
        return None

    def _payload(self, node: Node, path: str) -> str | None:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return node.value
        self.reader.expected(node, path, "a string")
        return None

    def _attempt_numbers(self, node: Node, path: str) -> frozenset[int] | None:
        items = self.items(node, path, "a list of attempt numbers such as [1, 2]")
        if items is None:
            return None
        numbers = [
            self.limited(item, path_index(path, index), limits.ATTEMPT)
            for index, item in enumerate(items)
        ]
        return None if None in numbers else frozenset(numbers)  # type: ignore[arg-type]

    def _notify(self, node: Node, path: str) -> tuple[Subscription, ...] | None:
        subscriptions = []
        for item_path, item in self.reader.items(node, path, "a list of {on, channel, to}"):
            fields = self.reader.mapping(item, item_path, NOTIFY_KEYS, required=NOTIFY_KEYS)
            if fields is None or len(fields) < len(NOTIFY_KEYS):
                subscriptions.append(None)
                continue
            happenings = [
                self.reader.choice(on, on_path, values_of(NotifyOn))
                for on_path, on in self.reader.items(fields["on"], path_key(item_path, "on"))
            ]
            channel = self.reader.choice(
                fields["channel"], path_key(item_path, "channel"), values_of(Channel)
            )
            target = self.reader.string(fields["to"], path_key(item_path, "to"), "a target address")
            if not happenings:
                self.reader.error(
                    fields["on"], path_key(item_path, "on"), "expected at least one happening"
                )
            if not happenings or None in happenings or channel is None or target is None:
                subscriptions.append(None)
                continue
            subscriptions.append(Subscription(frozenset(happenings), channel, target))  # type: ignore[arg-type]
        return None if None in subscriptions else tuple(subscriptions)  # type: ignore[arg-type]


def _plus_one(value: int | None) -> int | None:
    return None if value is None else value + 1


def _none(node: Node) -> bool:
    """A null, or ``none`` as the command line says it (``timeout=none``)."""
    value = node.value if isinstance(node, Scalar) else False
    return is_null(node) or (isinstance(value, str) and value.lower() == "none")


def word_node(text: str, pos: Position) -> Node:
    """What ``text``, typed as a value, means in a file: ``5`` a number, ``true`` a boolean,
    ``null`` or nothing a null, ``[1, 2]`` or ``{days: [mon], at: "09:00"}`` a list or mapping.
    Text that YAML would not read as one plain value (``30 2 * * *``, ``a: b``) is that text."""
    if not text:
        return Scalar(None, pos, text)
    problems = Problems("")
    try:
        node = parse_yaml(text, problems)
    except ScenarioInvalid:
        return Scalar(text, pos, text)
    if problems:
        return Scalar(text, pos, text)
    if isinstance(node, Scalar):
        return Scalar(node.value, pos, text) if node.text == text else Scalar(text, pos, text)
    return node if text[0] in "[{" else Scalar(text, pos, text)
