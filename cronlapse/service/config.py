"""The server's config file (YAML): executors, notification channels, worker slots, snapshots
and the catch-up grace.

Read with the scenario loader's safe YAML and typed readers, so a mistake is reported as
``file:line:column: field: what was expected`` and every mistake of the file at once::

    workers: 4                # worker slots: attempts that may run at once
    snapshot_every: 10000     # the most journal rows between snapshots
    misfire_grace: 60         # ticks of downtime after which missed runs follow catch_up
    history:
      retention: 30d          # finished runs and old journal rows kept this long (s, m, h, d)
    executors:
      backup:
        argv: [/usr/local/bin/backup, --quiet]   # run without a shell
      hook:
        url: http://127.0.0.1:9000/hook          # POST with an Idempotency-Key header
    channels:                                    # where notifications go
    (cronlapse.service.delivery)
      ops-hook:
        webhook: {url: http://127.0.0.1:9000/notify}

``noop`` is built in (it succeeds at once). Executors are the service's security boundary: the
API can only name one of these, never define a command line. Channels are the same for
notifications: a job's subscription names one, and its endpoint and credentials stay here
(:mod:`cronlapse.service.delivery.channels`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cronlapse.service.delivery.channels import ChannelConfig, read_channels, read_http_url
from engine.scenario.errors import Problems, ScenarioInvalid, path_index, path_key
from engine.scenario.schema import Reader
from engine.scenario.yaml_source import Mapping, Scalar, parse_yaml, read_text

NOOP = "noop"
CONFIG_KEYS = ("workers", "snapshot_every", "misfire_grace", "history", "executors", "channels")
EXECUTOR_KEYS = ("argv", "url")
HISTORY_KEYS = ("retention",)
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
DURATION = re.compile(r"([0-9]+)([smhd])")
MAX_RETENTION = 100 * 366 * 86_400
RETENTION_EXPECTED = "a duration such as 30d, 12h, 90m or 3600s (or seconds), up to 100 years"


@dataclass(frozen=True, slots=True)
class Executor:
    """How a job's attempt runs: an argv (no shell), an HTTP POST, or nothing (noop)."""

    name: str
    argv: tuple[str, ...] = ()
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Config:
    workers: int = 4
    snapshot_every: int = 10_000
    misfire_grace: int = 60
    executors: dict[str, Executor] = field(default_factory=lambda: {NOOP: Executor(NOOP)})
    channels: dict[str, ChannelConfig] = field(default_factory=dict)
    """Notification channels by name: a job's ``notify[].to`` names one."""
    retention: int | None = None
    """Ticks (seconds) the history is kept (``history: {retention: 30d}``): finished runs
    scheduled longer ago leave the read model, and journal rows older than that and behind the
    oldest kept snapshot are deleted (:mod:`cronlapse.service.compaction`). None: kept forever."""


class ConfigInvalid(ValueError):
    """A config file that must not be used; the message lists every problem, one a line."""


def load_config(path: str | None) -> Config:
    """The config in ``path`` (the defaults when None); :class:`ConfigInvalid` if it is wrong."""
    if path is None:
        return Config()
    try:
        problems = Problems(path)
        node = parse_yaml(read_text(path), problems)
        config = _read(Reader(problems), node)
        problems.raise_if_any()
    except ScenarioInvalid as error:
        raise ConfigInvalid(str(error)) from None
    assert config is not None
    return config


def _read(reader: Reader, node) -> Config | None:
    fields = reader.mapping(node, "", CONFIG_KEYS)
    if fields is None:
        return None
    defaults = Config()
    workers = defaults.workers
    if "workers" in fields:
        workers = reader.integer(fields["workers"], "workers", 1, 256) or workers
    snapshot_every = defaults.snapshot_every
    if "snapshot_every" in fields:
        read = reader.integer(fields["snapshot_every"], "snapshot_every", 1, 10**9)
        snapshot_every = read or snapshot_every
    grace = defaults.misfire_grace
    if "misfire_grace" in fields:
        read = reader.integer(fields["misfire_grace"], "misfire_grace", 0, 10**9)
        grace = grace if read is None else read
    executors = {NOOP: Executor(NOOP)}
    if "executors" in fields:
        executors.update(_executors(reader, fields["executors"]))
    channels = read_channels(reader, fields["channels"]) if "channels" in fields else {}
    retention = _retention(reader, fields["history"]) if "history" in fields else None
    return Config(workers, snapshot_every, grace, executors, channels, retention)


def _retention(reader: Reader, node) -> int | None:
    fields = reader.mapping(node, "history", HISTORY_KEYS)
    if fields is None or "retention" not in fields:
        return None
    value = fields["retention"]
    text = value.value if isinstance(value, Scalar) else None
    if isinstance(text, int) and not isinstance(text, bool):
        seconds: int | None = text
    else:
        found = DURATION.fullmatch(text) if isinstance(text, str) else None
        seconds = None if found is None else int(found[1]) * UNIT_SECONDS[found[2]]
    if seconds is None or not 1 <= seconds <= MAX_RETENTION:
        reader.expected(value, "history.retention", RETENTION_EXPECTED)
        return None
    return seconds


def _executors(reader: Reader, node) -> dict[str, Executor]:
    if not isinstance(node, Mapping):
        reader.expected(node, "executors", "a mapping of executor names to {argv} or {url}")
        return {}
    executors = {}
    for key, value in node.entries:
        path = path_key("executors", key.text)
        if key.text == NOOP:
            reader.error(key, path, "noop is built in: choose another name")
            continue
        fields = reader.mapping(value, path, EXECUTOR_KEYS)
        if fields is None:
            continue
        if len(fields) != 1:
            reader.error(value, path, "expected exactly one of 'argv' or 'url'")
            continue
        if "argv" in fields:
            argv = _argv(reader, fields["argv"], path_key(path, "argv"))
            if argv is not None:
                executors[key.text] = Executor(key.text, argv=argv)
            continue
        url = read_http_url(reader, fields["url"], path_key(path, "url"))
        if url is not None:
            executors[key.text] = Executor(key.text, url=url)
    return executors


def _argv(reader: Reader, node, path: str) -> tuple[str, ...] | None:
    items = reader.sequence(node, path, "a list of words such as [/usr/bin/env, backup]")
    if items is None:
        return None
    if not items:
        reader.error(node, path, "expected at least one word")
        return None
    words = [reader.string(item, path_index(path, i), "a word") for i, item in enumerate(items)]
    return None if None in words else tuple(words)  # type: ignore[arg-type]
