"""The scenario-wide settings: ``clock``, ``policy`` (with its backoff and notifications)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.policies import (
    ChannelOutage,
    CompletionMode,
    DeliveryMode,
    DispatchMode,
    DispatchOrder,
    NotificationPolicy,
    OnTimeout,
    Policy,
    RunningJobChanges,
)
from engine.model.presets import PRESETS
from engine.model.records import Channel
from engine.model.values import value
from engine.scenario.errors import path_key
from engine.scenario.schema import Reader, is_null
from engine.scenario.yaml_source import Mapping, Node, Scalar
from engine.schedules.clock import Clock, ClockError

CLOCK_KEYS = ("epoch", "timezone", "tick", "until")
POLICY_KEYS = (
    "preset",
    "order",
    "aging_step",
    "dispatch",
    "completion",
    "backoff",
    "notifications",
    "on_timeout",
    "running_job_changes",
    "execution_limit",
    "scheduling_window",
)
BACKOFF_KEYS = ("kind", "base", "cap", "jitter")
NOTIFICATION_KEYS = ("max_tries", "backoff", "outages", "delivery")
OUTAGE_KEYS = ("channel", "start", "end")


def values_of(enum: type) -> dict[str, object]:
    """An enum's members by their value: how the file spells them (``fifo``, ``slack``...)."""
    return {member.value: member for member in enum}


@value
class ClockSettings:
    clock: Clock | None
    until: int | None
    failed: bool = False
    """The clock section was wrong (and reported)."""


def read_clock(reader: Reader, node: Node | None) -> ClockSettings:
    """``clock: {epoch, timezone, tick, until}``; no clock unless epoch, timezone or tick is set."""
    if node is None:
        return ClockSettings(None, None)
    fields = reader.mapping(node, "clock", CLOCK_KEYS)
    if fields is None:
        return ClockSettings(None, None, failed=True)
    until = None
    if "until" in fields:
        until = reader.tick(fields["until"], "clock.until")
    if not {"epoch", "timezone", "tick"} & fields.keys():
        return ClockSettings(None, until)
    epoch = _optional(reader, fields, "epoch", lambda n, p: reader.string(n, p, "an ISO 8601 time"))
    zone = _optional(reader, fields, "timezone", lambda n, p: reader.string(n, p, "an IANA zone"))
    tick = _optional(reader, fields, "tick", lambda n, p: reader.integer(n, p, 1, 86_400 * 366))
    if any(
        key in fields and value is None
        for key, value in (("epoch", epoch), ("timezone", zone), ("tick", tick))
    ):
        return ClockSettings(None, until, failed=True)
    try:
        clock = Clock.parse(epoch, zone or "UTC", tick or 1)
    except ClockError as error:
        culprit = fields.get(error.field, node)
        reader.error(culprit, path_key("clock", error.field), strip_field(error))
        return ClockSettings(None, until, failed=True)
    if until is not None and not clock.names(until):
        reader.error(fields["until"], "clock.until", past_year_9999(clock, until))
    return ClockSettings(clock, until)


def past_year_9999(clock: Clock, tick: int) -> str:
    return (
        f"tick {tick} with {clock.tick_seconds}-second ticks is past the year 9999: "
        "expected a tick the clock can name"
    )


def strip_field(error: ValueError) -> str:
    """The engine's message without its leading ``field: ``, which the key path already says."""
    message = str(error)
    field = getattr(error, "field", "")
    prefix = f"{field}: "
    return message[len(prefix) :] if field and message.startswith(prefix) else message


def _optional(
    reader: Reader, fields: dict[str, Node], key: str, read: Callable[[Node, str], object]
) -> object:
    if key not in fields:
        return None
    return read(fields[key], path_key("clock", key))


def read_policy(reader: Reader, node: Node | None, tick_seconds: int = 1) -> Policy | None:
    """``policy: NAME`` (a preset, see :mod:`engine.model.presets`) or ``policy: {preset, order,
    aging_step, dispatch, completion, backoff, notifications, on_timeout, running_job_changes,
    execution_limit, scheduling_window}``: the preset's choices (or the defaults), then the keys
    given. A preset's durations become ticks of ``tick_seconds``."""
    if node is None:
        return Policy()
    if isinstance(node, Scalar):
        preset = reader.choice(node, "policy", PRESETS)
        return None if preset is None else preset(tick_seconds)
    fields = reader.mapping(node, "policy", POLICY_KEYS)
    if fields is None:
        return None
    base = Policy()
    if "preset" in fields:
        preset = reader.choice(fields["preset"], "policy.preset", PRESETS)
        if preset is None:
            return None
        base = preset(tick_seconds)
    settings: dict[str, object] = {}
    readers = {
        "order": lambda n, p: reader.choice(n, p, values_of(DispatchOrder)),
        "aging_step": lambda n, p: reader.integer(n, p, 1),
        "dispatch": lambda n, p: reader.choice(n, p, values_of(DispatchMode)),
        "completion": lambda n, p: reader.choice(n, p, values_of(CompletionMode)),
        "backoff": lambda n, p: read_backoff(reader, n, p),
        "notifications": lambda n, p: _read_notifications(reader, n, p),
        "on_timeout": lambda n, p: reader.choice(n, p, values_of(OnTimeout)),
        "running_job_changes": lambda n, p: reader.choice(n, p, values_of(RunningJobChanges)),
        "execution_limit": lambda n, p: reader.integer(n, p, 1, 10**12),
        "scheduling_window": lambda n, p: reader.integer(n, p, 0, 10**12),
    }
    ok = True
    for key, value_node in fields.items():
        if key == "preset":
            continue
        value = readers[key](value_node, path_key("policy", key))
        ok = ok and value is not None
        settings[key] = value
    order = settings.get("order", base.order)
    if order is DispatchOrder.AGING and "aging_step" not in settings:
        reader.error(fields["order"], "policy.order", "the aging order needs policy.aging_step")
        return None
    return dataclasses.replace(base, **settings) if ok else None


def read_backoff(reader: Reader, node: Node, path: str) -> Backoff | None:
    """``{kind: none|fixed|exponential, base, cap, jitter: none|full|equal}``."""
    fields = reader.mapping(node, path, BACKOFF_KEYS, required=("kind",))
    if fields is None or "kind" not in fields:
        return None
    kind = reader.choice(fields["kind"], path_key(path, "kind"), values_of(BackoffKind))
    base = cap = 0
    jitter: object = Jitter.NONE
    if "base" in fields:
        base = reader.integer(fields["base"], path_key(path, "base"), 0, 10**9)
    if "cap" in fields and not is_null(fields["cap"]):
        cap = reader.integer(fields["cap"], path_key(path, "cap"), 0, 10**12)
    if "jitter" in fields:
        jitter = reader.choice(fields["jitter"], path_key(path, "jitter"), values_of(Jitter))
    if kind is None or base is None or cap is None or jitter is None:
        return None
    has_cap = "cap" in fields and not is_null(fields["cap"])
    return Backoff(kind, base, cap if has_cap else None, jitter)  # type: ignore[arg-type]


def _read_notifications(reader: Reader, node: Node, path: str) -> NotificationPolicy | None:
    fields = reader.mapping(node, path, NOTIFICATION_KEYS)
    if fields is None:
        return None
    settings: dict[str, object] = {}
    if "max_tries" in fields:
        settings["max_tries"] = reader.integer(
            fields["max_tries"], path_key(path, "max_tries"), 1, 1000
        )
    if "backoff" in fields:
        settings["backoff"] = read_backoff(reader, fields["backoff"], path_key(path, "backoff"))
    if "outages" in fields:
        outages = [
            _read_outage(reader, item, item_path)
            for item_path, item in reader.items(fields["outages"], path_key(path, "outages"))
        ]
        settings["outages"] = None if None in outages else tuple(outages)
    if "delivery" in fields:
        settings["delivery"] = reader.choice(
            fields["delivery"], path_key(path, "delivery"), values_of(DeliveryMode)
        )
    if None in settings.values():
        return None
    return NotificationPolicy(**settings)  # type: ignore[arg-type]


def _read_outage(reader: Reader, node: Node, path: str) -> ChannelOutage | None:
    """``{channel, start, end}``: every delivery on the channel fails during ``[start, end)``."""
    fields = reader.mapping(node, path, OUTAGE_KEYS, required=OUTAGE_KEYS)
    if fields is None or len(fields) < len(OUTAGE_KEYS):
        return None
    channel = reader.choice(fields["channel"], path_key(path, "channel"), values_of(Channel))
    start = reader.tick(fields["start"], path_key(path, "start"))
    end = reader.tick(fields["end"], path_key(path, "end"))
    if start is not None and end is not None and end <= start:
        reader.error(
            fields["end"],
            path_key(path, "end"),
            f"expected a tick after start ({start}), got {end}",
        )
        return None
    if channel is None or start is None or end is None:
        return None
    return ChannelOutage(channel, start, end)  # type: ignore[arg-type]


MAX_POOL_SLOTS = 10**6


def read_pools(reader: Reader, node: Node | None) -> dict[str, int] | None:
    """``pools: {name: slots, ...}`` (Airflow pools); None after reporting a problem."""
    if node is None:
        return {}
    if not isinstance(node, Mapping):
        reader.expected(node, "pools", "a mapping of pool names to their slots")
        return None
    pools: dict[str, int | None] = {}
    for key, item in node.entries:
        name = reader.identifier(key, "pools", "a pool name")
        slots = reader.integer(item, path_key("pools", key.text), 1, MAX_POOL_SLOTS)
        if name is not None:
            pools[name] = slots
    if None in pools.values() or len(pools) < len(node.entries):
        return None
    return pools  # type: ignore[return-value]
