"""The config's notification channels: where each kind of notification goes, with its secrets.

A job's ``notify`` subscription says ``{on: [...], channel: webhook, to: ops-hook}``: ``to``
names one of these, and its kind must be the subscription's channel. Endpoints and credentials
live only here, in the server's config, never in a job document::

    channels:
      ops-hook:
        webhook: {url: http://127.0.0.1:9000/notify, headers: {Authorization: Bearer abc}}
      team-slack:
        slack: {url: https://hooks.slack.com/services/T000/B000/XXXX}
      oncall-mail:
        email: {host: 127.0.0.1, port: 2525, from: cron@example.com, to: [ops@example.com],
                username: cron, password: secret, starttls: true}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from engine.model.records import Channel
from engine.scenario.errors import path_index, path_key
from engine.scenario.schema import Reader
from engine.scenario.yaml_source import Mapping

HTTP_URL = "an http:// or https:// URL"

KINDS = tuple(channel.value for channel in Channel)
WEBHOOK_KEYS = ("url", "headers")
SLACK_KEYS = ("url",)
EMAIL_KEYS = ("host", "port", "from", "to", "username", "password", "starttls")


@dataclass(frozen=True, slots=True)
class WebhookChannel:
    """An HTTP POST of the notification as JSON; ``headers`` may carry a receiver's secret."""

    name: str
    url: str
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    kind: Channel = field(default=Channel.WEBHOOK, init=False)


@dataclass(frozen=True, slots=True)
class SlackChannel:
    """A Slack incoming webhook: its URL is the secret."""

    name: str
    url: str = field(repr=False)
    kind: Channel = field(default=Channel.SLACK, init=False)


@dataclass(frozen=True, slots=True)
class EmailChannel:
    """An SMTP server and the message's sender and recipients."""

    name: str
    host: str
    sender: str
    to: tuple[str, ...]
    port: int = 25
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    starttls: bool = False
    kind: Channel = field(default=Channel.EMAIL, init=False)


ChannelConfig = WebhookChannel | SlackChannel | EmailChannel


def read_channels(reader: Reader, node) -> dict[str, ChannelConfig]:
    """Every well-formed channel of the ``channels`` mapping; each mistake goes to ``reader``."""
    if not isinstance(node, Mapping):
        reader.expected(node, "channels", "a mapping of channel names to {webhook|slack|email}")
        return {}
    channels: dict[str, ChannelConfig] = {}
    for key, value in node.entries:
        path = path_key("channels", key.text)
        fields = reader.mapping(value, path, KINDS)
        if fields is None:
            continue
        if len(fields) != 1:
            if fields or not value.entries:  # an unknown kind alone is reported already
                reader.error(value, path, "expected exactly one of 'webhook', 'slack' or 'email'")
            continue
        ((kind, settings),) = fields.items()
        channel = _READERS[kind](reader, key.text, settings, path_key(path, kind))
        if channel is not None:
            channels[key.text] = channel
    return channels


def read_http_url(reader: Reader, node, path: str) -> str | None:
    """An http(s) URL with a host, or None once reported: another scheme, no host, or one that
    ``urlsplit`` refuses (``http://[::1``, a port out of range) would fail only at delivery."""
    url = reader.string(node, path, HTTP_URL)
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:
        valid = False
    if not valid:
        reader.expected(node, path, HTTP_URL)
        return None
    return url


def _webhook(reader: Reader, name: str, node, path: str) -> WebhookChannel | None:
    fields = reader.mapping(node, path, WEBHOOK_KEYS, required=("url",))
    if fields is None or "url" not in fields:
        return None
    url = read_http_url(reader, fields["url"], path_key(path, "url"))
    headers: list[tuple[str, str]] | None = []
    if "headers" in fields:
        headers = _headers(reader, fields["headers"], path_key(path, "headers"))
    return None if url is None or headers is None else WebhookChannel(name, url, tuple(headers))


def _headers(reader: Reader, node, path: str) -> list[tuple[str, str]] | None:
    if not isinstance(node, Mapping):
        reader.expected(node, path, "a mapping of header names to values")
        return None
    headers = []
    for key, value in node.entries:
        text = reader.string(value, path_key(path, key.text), "a header value")
        if text is None:
            return None
        headers.append((key.text, text))
    return headers


def _slack(reader: Reader, name: str, node, path: str) -> SlackChannel | None:
    fields = reader.mapping(node, path, SLACK_KEYS, required=("url",))
    if fields is None or "url" not in fields:
        return None
    url = read_http_url(reader, fields["url"], path_key(path, "url"))
    return None if url is None else SlackChannel(name, url)


def _email(reader: Reader, name: str, node, path: str) -> EmailChannel | None:
    fields = reader.mapping(node, path, EMAIL_KEYS, required=("host", "from", "to"))
    if fields is None or not {"host", "from", "to"} <= fields.keys():
        return None
    host = reader.string(fields["host"], path_key(path, "host"), "a host name or address")
    sender = _address(reader, fields["from"], path_key(path, "from"))
    to = _addresses(reader, fields["to"], path_key(path, "to"))
    port = 25
    if "port" in fields:
        port = reader.integer(fields["port"], path_key(path, "port"), 1, 65535) or 0
    starttls = False
    if "starttls" in fields:
        starttls = reader.boolean(fields["starttls"], path_key(path, "starttls")) or False
    username = password = None
    if "username" in fields:
        username = reader.string(fields["username"], path_key(path, "username"), "a user name")
    if "password" in fields:
        password = reader.string(fields["password"], path_key(path, "password"), "a password")
    if (username is None) != (password is None):
        reader.error(node, path, "expected both 'username' and 'password', or neither")
        return None
    if host is None or sender is None or to is None or not port:
        return None
    return EmailChannel(name, host, sender, to, port, username, password, starttls)


def _address(reader: Reader, node, path: str) -> str | None:
    address = reader.string(node, path, "an email address")
    if address is not None and "@" not in address.strip("@"):
        reader.expected(node, path, "an email address such as ops@example.com")
        return None
    return address


def _addresses(reader: Reader, node, path: str) -> tuple[str, ...] | None:
    items = reader.sequence(node, path, "a list of email addresses")
    if items is None:
        return None
    if not items:
        reader.error(node, path, "expected at least one address")
        return None
    found = [_address(reader, item, path_index(path, i)) for i, item in enumerate(items)]
    return None if None in found else tuple(found)  # type: ignore[arg-type]


_READERS = {"webhook": _webhook, "slack": _slack, "email": _email}


def unknown_targets(notify: object, channels: dict[str, ChannelConfig]) -> list[tuple[str, str]]:
    """``(path, message)`` for each subscription of a job document whose ``to`` names no
    configured channel of its kind (the scenario reader checks everything else)."""
    if not isinstance(notify, list):
        return []
    problems = []
    for index, item in enumerate(notify):
        if not isinstance(item, dict):
            continue
        to, kind = item.get("to"), item.get("channel")
        if not isinstance(to, str) or not isinstance(kind, str) or kind.lower() not in KINDS:
            continue
        path = f"notify[{index}].to"
        channel = channels.get(to)
        if channel is None:
            names = ", ".join(sorted(channels))
            known = f"expected one of {names}" if names else "the server's config defines none"
            problems.append((path, f"unknown channel {to!r}: {known}"))
        elif channel.kind.value != kind.lower():
            is_a = "an" if channel.kind is Channel.EMAIL else "a"
            message = f"channel {to!r} is {is_a} {channel.kind.value} channel, not {kind.lower()}"
            problems.append((path, message))
    return problems
