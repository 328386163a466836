"""The config's notification channels: what they read as, each mistake by line and field, and
the 422 a job gets for a subscription that names no configured channel of its kind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cronlapse.service.config import ConfigInvalid, load_config
from cronlapse.service.delivery.channels import (
    EmailChannel,
    SlackChannel,
    WebhookChannel,
    unknown_targets,
)
from tests.service.conftest import ROOT

CHANNELS = """\
channels:
  ops-hook:
    webhook: {url: 'http://127.0.0.1:9000/notify', headers: {Authorization: Bearer s3cret}}
  team-slack:
    slack: {url: 'https://hooks.slack.com/services/T0/B0/XX'}
  oncall-mail:
    email:
      host: 127.0.0.1
      port: 2525
      from: cron@example.com
      to: [ops@example.com, dev@example.com]
      username: cron
      password: hunter2
      starttls: true
  plain-mail:
    email: {host: mail.example.com, from: cron@example.com, to: [ops@example.com]}
"""


def load(tmp_path: Path, text: str):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return load_config(str(path))


def test_channels_read_with_their_settings(tmp_path: Path) -> None:
    channels = load(tmp_path, CHANNELS).channels
    assert channels == {
        "ops-hook": WebhookChannel(
            "ops-hook", "http://127.0.0.1:9000/notify", (("Authorization", "Bearer s3cret"),)
        ),
        "team-slack": SlackChannel("team-slack", "https://hooks.slack.com/services/T0/B0/XX"),
        "oncall-mail": EmailChannel(
            "oncall-mail",
            "127.0.0.1",
            "cron@example.com",
            ("ops@example.com", "dev@example.com"),
            2525,
            "cron",
            "hunter2",
            True,
        ),
        "plain-mail": EmailChannel(
            "plain-mail", "mail.example.com", "cron@example.com", ("ops@example.com",)
        ),
    }


def test_secrets_stay_out_of_reprs(tmp_path: Path) -> None:
    shown = repr(load(tmp_path, CHANNELS))
    for secret in ("s3cret", "hunter2", "T0/B0/XX"):
        assert secret not in shown


def test_every_channel_mistake_is_named_by_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "channels:\n"
        "  pager: {sms: {to: '123'}}\n"
        "  both: {webhook: {url: 'http://h'}, slack: {url: 'http://h'}}\n"
        "  ftp: {webhook: {url: 'ftp://h/x'}}\n"
        "  nourl: {slack: {}}\n"
        "  mail: {email: {host: h, from: nobody, to: [], port: 0}}\n"
        "  half: {email: {host: h, from: a@b.c, to: [x@y.z], username: u}}\n"
        "  heads: {webhook: {url: 'http://h', headers: [x]}}\n"
    )
    with pytest.raises(ConfigInvalid) as raised:
        load_config(str(path))
    assert str(raised.value).splitlines() == [
        f"{path}:2:11: channels.pager.sms: unknown key 'sms': expected 'email', 'slack' or "
        "'webhook'",
        f"{path}:3:9: channels.both: expected exactly one of 'webhook', 'slack' or 'email'",
        f"{path}:4:24: channels.ftp.webhook.url: expected an http:// or https:// URL, got the "
        "string 'ftp://h/x'",
        f"{path}:5:18: channels.nourl.slack: missing required key 'url'",
        f"{path}:6:33: channels.mail.email.from: expected an email address such as "
        "ops@example.com, got the string 'nobody'",
        f"{path}:6:45: channels.mail.email.to: expected at least one address",
        f"{path}:6:55: channels.mail.email.port: expected a whole number from 1 to 65535, "
        "got the number 0",
        f"{path}:7:17: channels.half.email: expected both 'username' and 'password', or neither",
        f"{path}:8:47: channels.heads.webhook.headers: expected a mapping of header names to "
        "values, got a list",
    ]


def test_channels_must_be_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(ConfigInvalid, match=r"config.yaml:1:11: channels: expected a mapping"):
        load(tmp_path, "channels: [ops-hook]\n")


def test_a_subscription_names_a_configured_channel_of_its_kind(tmp_path: Path) -> None:
    channels = load(tmp_path, CHANNELS).channels
    notify = [
        {"on": ["failed"], "channel": "webhook", "to": "ops-hook"},
        {"on": ["failed"], "channel": "email", "to": "ops@example.com"},
        {"on": ["failed"], "channel": "slack", "to": "ops-hook"},
        {"on": ["failed"], "channel": "pager", "to": "nobody"},
    ]
    assert unknown_targets(notify, channels) == [
        (
            "notify[1].to",
            "unknown channel 'ops@example.com': expected one of oncall-mail, ops-hook, "
            "plain-mail, team-slack",
        ),
        ("notify[2].to", "channel 'ops-hook' is a webhook channel, not slack"),
    ]
    assert unknown_targets("not a list", channels) == []
    assert unknown_targets(notify[:1], {}) == [
        ("notify[0].to", "unknown channel 'ops-hook': the server's config defines none")
    ]


def test_the_docs_example_config_loads(tmp_path: Path) -> None:
    section = re.search(
        r"^## Notifications\n(.*?)^## ", (ROOT / "docs/service.md").read_text(), re.S | re.M
    )
    assert section is not None
    block = re.search(r"```yaml\n(.*?)```", section.group(1), re.S)
    assert block is not None
    channels = load(tmp_path, block.group(1)).channels
    assert {name: channel.kind.value for name, channel in channels.items()} == {
        "ops-hook": "webhook",
        "team-slack": "slack",
        "oncall-mail": "email",
    }
