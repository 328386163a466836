"""Jobs: schedules and settings, as under ``jobs:``, ``defaults:``, ``schedule:`` and ``modify:``.

One reader serves every place a job's keys appear, so a key means the same everywhere and its
errors read the same. Calendar keys reuse :mod:`engine.calendar`'s builders and messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.calendar import CronSchedule, ScheduleError, daily, monthly, weekly
from engine.clock import Clock, ClockError, parse_time
from engine.model import PRIORITY_LEVELS, CatchUp, Channel, JobSpec, NotifyOn, Subscription
from engine.scenario.errors import path_index, path_key
from engine.scenario.schema import MAX_TICK, Reader, is_null
from engine.scenario.settings import read_backoff, strip_field, values_of
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence
from engine.schedules import Every, Once, Schedule

SCHEDULE_KEYS = ("at", "every", "first", "daily", "weekly", "monthly", "cron")
MODIFIABLE_KEYS = (
    "priority",
    "duration",
    "max_retries",
    "max_attempts",
    "timeout",
    "payload",
    "catch_up",
)
SETTING_KEYS = (
    *MODIFIABLE_KEYS,
    "fail",
    "hang",
    "failure_rate",
    "backoff",
    "notify",
)
"""What ``defaults:`` may set for every job."""
JOB_KEYS = ("id", *SCHEDULE_KEYS, *SETTING_KEYS, "depends_on")
MODIFY_KEYS = ("job", *SCHEDULE_KEYS, *MODIFIABLE_KEYS)
NOTIFY_KEYS = ("on", "channel", "to")

MAX_DURATION = 10**12
INVALID = object()
"""A setting whose value was wrong (already reported); distinct from a legitimate None."""
_NULL = object()
_FIELD_NAMES = {"max_retries": "max_attempts", "fail": "fail_attempts", "hang": "hang_attempts"}
_CRON_FIELD_KEYS = {"day-of-week": "days", "day-of-month": "day", "minute": "at", "hour": "at"}
"""Which key of ``weekly``/``monthly`` a cron field of the expression they build came from."""


@dataclass(frozen=True, slots=True)
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
    """The valid dependencies and the schedule (None when wrong), kept apart from ``spec`` so
    that a job with another error is still checked with what of it could be read: every error
    of a file is reported in one pass."""

    def id_node(self) -> Node:
        return _value(self.node, "id")

    def dependency_node(self, name: str) -> tuple[Node, str]:
        """The node and key path of ``name`` in this job's ``depends_on``."""
        path = path_key(self.path, "depends_on")
        dependencies = _value(self.node, "depends_on")
        if isinstance(dependencies, Sequence):
            for index, item in enumerate(dependencies.items):
                if isinstance(item, Scalar) and item.text == name:
                    return item, path_index(path, index)
        return dependencies, path


def _value(node: Node, key: str) -> Node:
    """A mapping's value for ``key``, or the node itself when there is none (for positions)."""
    value = node.get(key) if isinstance(node, Mapping) else None
    return node if value is None else value


class JobReader:
    """Reads job keys; calendar schedules and ISO times need the scenario's clock."""

    def __init__(self, reader: Reader, clock: Clock | None, clock_failed: bool = False) -> None:
        self.reader = reader
        self.clock = clock
        self.clock_failed = clock_failed
        """The file's clock is wrong (and reported): do not also say that a clock is missing."""
        integer = reader.integer
        self._settings: dict[str, Callable[[Node, str], object]] = {
            "priority": self._priority,
            "duration": lambda n, p: integer(n, p, 1, MAX_DURATION),
            "max_retries": lambda n, p: _plus_one(integer(n, p, 0, 1000)),
            "max_attempts": lambda n, p: integer(n, p, 1, 1001),
            "timeout": lambda n, p: _NULL if is_null(n) else integer(n, p, 1, MAX_DURATION),
            "payload": self._payload,
            "catch_up": lambda n, p: reader.choice(n, p, values_of(CatchUp)),
            "fail": self._attempt_numbers,
            "hang": self._attempt_numbers,
            "failure_rate": lambda n, p: reader.number(n, p, 0.0, 1.0),
            "backoff": lambda n, p: read_backoff(reader, n, p),
            "notify": self._notify,
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
        fields = self.reader.mapping(node, path, JOB_KEYS, required=("id",))
        if fields is None:
            return None
        job_id = None
        if "id" in fields:
            job_id = self.reader.identifier(fields["id"], path_key(path, "id"), "a job id")
        schedule = self.schedule(fields, path, now)
        settings = dict(defaults)
        settings.update(self.settings(fields, path))
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
        return Definition(job_id, spec, now, node, path, lenient, depends_on, schedule)

    def job_ids(self, node: Node, path: str) -> list[str | None]:
        """A list of job ids in the order given, None for each wrong one (and reported), a
        single None when the list itself is wrong."""
        items = self.reader.sequence(node, path, "a list of job ids")
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

    def _priority(self, node: Node, path: str) -> int | None:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return self.reader.choice(node, path, PRIORITY_LEVELS)
        if (
            isinstance(node, Scalar)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            return self.reader.integer(node, path, -1000, 1000)
        self.reader.expected(node, path, "high, medium, low or a whole number (higher runs first)")
        return None

    def _payload(self, node: Node, path: str) -> str | None:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return node.value
        self.reader.expected(node, path, "a string")
        return None

    def _attempt_numbers(self, node: Node, path: str) -> frozenset[int] | None:
        items = self.reader.sequence(node, path, "a list of attempt numbers such as [1, 2]")
        if items is None:
            return None
        numbers = [
            self.reader.integer(item, path_index(path, index), 1, 1001)
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

    # -------------------------------------------------------------- schedules

    def schedule(self, fields: dict[str, Node], path: str, now: int) -> Schedule | None:
        """The schedule the keys among ``fields`` give; none at all means once, at ``now``."""
        given = [key for key in SCHEDULE_KEYS if key in fields and key != "first"]
        if "first" in fields and given != ["every"]:
            self.reader.error(
                fields["first"], path_key(path, "first"), "first only goes with every"
            )
            return None
        if len(given) > 1:
            second = given[1]
            self.reader.error(
                fields[second],
                path_key(path, second),
                f"a job has one schedule: give {given[0]} or {second}, not both",
            )
            return None
        if not given:
            return Once(now)
        key = given[0]
        node, key_path = fields[key], path_key(path, key)
        if key == "at":
            return self._once(node, key_path, now)
        if key == "every":
            return self._every(node, key_path, fields.get("first"), path_key(path, "first"), now)
        return self._calendar(key, node, key_path)

    def _once(self, node: Node, path: str, now: int) -> Once | None:
        at = self.time(node, path)
        if at is None:
            return None
        if at < now:
            self.reader.error(
                node,
                path,
                f"tick {at} is before tick {now}, when this job is scheduled: it would never run",
            )
            return None
        return Once(at)

    def _every(
        self, node: Node, path: str, first_node: Node | None, first_path: str, now: int
    ) -> Every | None:
        interval = self.reader.integer(node, path, 1, MAX_TICK)
        first = now if first_node is None else self.time(first_node, first_path)
        if interval is None or first is None:
            return None
        return Every(first, interval)

    def time(self, node: Node, path: str) -> int | None:
        """A tick, or (with a clock) an ISO 8601 time in the clock's zone, rounded up to a tick."""
        if not (isinstance(node, Scalar) and isinstance(node.value, str)):
            return self.reader.tick(node, path)
        if self.clock is None:
            self._no_clock(node, path, "an ISO time")
            return None
        try:
            tick = self.clock.to_tick_ceil(parse_time(node.value, self.clock.zone, path))
        except ClockError as error:
            self.reader.error(node, path, strip_field(error))
            return None
        if not 0 <= tick <= MAX_TICK:
            self.reader.error(
                node,
                path,
                f"{node.value} is tick {tick}: expected a time from the clock's epoch on",
            )
            return None
        return tick

    def _calendar(self, key: str, node: Node, path: str) -> CronSchedule | None:
        if self.clock is None:
            self._no_clock(node, path, f"a {key} schedule")
            return None
        fields: dict[str, Node] = {}
        try:
            if key == "daily":
                expression = daily(self._text(node, path, '"HH:MM"'))
            elif key == "cron":
                expression = self._text(node, path, "a cron expression such as '30 2 * * *'")
            else:
                wanted = ("days", "at") if key == "weekly" else ("day", "at")
                fields = self.reader.mapping(node, path, wanted, required=wanted) or {}
                if len(fields) < 2:
                    return None
                at = self._text(fields["at"], path_key(path, "at"), '"HH:MM"')
                if key == "weekly":
                    expression = weekly(self._days(fields["days"], path_key(path, "days")), at)
                else:
                    expression = monthly(self._day(fields["day"], path_key(path, "day")), at)
            return CronSchedule(expression, self.clock)
        except _Reported:
            return None
        except ScheduleError as error:
            key = _CRON_FIELD_KEYS.get(error.field, error.field)
            culprit = fields.get(key, node)
            culprit_path = path_key(path, key) if key in fields else path
            self.reader.error(culprit, culprit_path, strip_field(error))
            return None

    def _no_clock(self, node: Node, path: str, what: str) -> None:
        if not self.clock_failed:  # a wrong clock is reported already, at itself
            message = f"{what} needs a clock: add clock: {{epoch: ..., timezone: ...}}"
            self.reader.error(node, path, message)

    def _days(self, node: Node, path: str) -> list[str]:
        items = self.reader.sequence(node, path, "a list of weekdays such as [mon, fri]")
        if items is None:
            raise _Reported
        for index, item in enumerate(items):
            if not isinstance(item, Scalar):
                self.reader.expected(item, path_index(path, index), "a weekday such as mon")
                raise _Reported
        return [item.text for item in items if isinstance(item, Scalar)]

    def _day(self, node: Node, path: str) -> int | str:
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, int | str) or isinstance(value, bool):
            self.reader.expected(node, path, "a day of the month, 1-31 or last")
            raise _Reported
        return value

    def _text(self, node: Node, path: str, what: str) -> str:
        value = self.reader.string(node, path, what)
        if value is None:
            raise _Reported
        return value


class _Reported(Exception):
    """A problem already recorded; unwinds out of a calendar key."""


def _plus_one(value: int | None) -> int | None:
    return None if value is None else value + 1
