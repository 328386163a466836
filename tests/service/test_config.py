"""The config file and the command line: each mistake named by file:line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.cli.main import main
from cronlapse.service.config import NOOP, ConfigInvalid, Executor, load_config


def test_a_config_defines_executors_and_slots(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "workers: 3\nsnapshot_every: 50\nmisfire_grace: 0\nexecutors:\n"
        "  backup:\n    argv: [/usr/bin/env, backup]\n  hook:\n    url: http://127.0.0.1:9/x\n"
    )
    config = load_config(str(path))
    assert (config.workers, config.snapshot_every, config.misfire_grace) == (3, 50, 0)
    assert config.executors == {
        NOOP: Executor(NOOP),
        "backup": Executor("backup", argv=("/usr/bin/env", "backup")),
        "hook": Executor("hook", url="http://127.0.0.1:9/x"),
    }


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("30d", 30 * 86_400), ("12h", 43_200), ("90m", 5_400), ("3600s", 3_600), ("600", 600)],
)
def test_the_history_retention_is_a_duration(tmp_path: Path, written: str, seconds: int) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"history:\n  retention: {written}\n")
    assert load_config(str(path)).retention == seconds
    assert load_config(None).retention is None, "kept forever unless the config says"


def test_a_wrong_retention_is_named_by_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("history:\n  retention: 30 days\n  keep: all\n")
    with pytest.raises(ConfigInvalid) as raised:
        load_config(str(path))
    assert str(raised.value).splitlines() == [
        f"{path}:2:14: history.retention: expected a duration such as 30d, 12h, 90m or 3600s "
        "(or seconds), up to 100 years, got the string '30 days'",
        f"{path}:3:3: history.keep: unknown key 'keep': expected 'retention'",
    ]


def test_every_mistake_is_named_by_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "workers: many\n"
        "executors:\n"
        "  noop: {argv: [x]}\n"
        "  empty: {argv: []}\n"
        "  ftp: {url: 'ftp://host/x'}\n"
        "  both: {argv: [x], url: 'http://h'}\n"
        "  shell: {argv: 'rm -rf /'}\n"
        "  v6: {url: 'http://[::1'}\n"
        "  nohost: {url: 'https:///x'}\n"
        "wrokers: 2\n"
    )
    with pytest.raises(ConfigInvalid) as raised:
        load_config(str(path))
    lines = str(raised.value).splitlines()
    assert lines == [
        f"{path}:1:10: workers: expected a whole number from 1 to 256, got the string 'many'",
        f"{path}:3:3: executors.noop: noop is built in: choose another name",
        f"{path}:4:17: executors.empty.argv: expected at least one word",
        f"{path}:5:14: executors.ftp.url: expected an http:// or https:// URL, "
        "got the string 'ftp://host/x'",
        f"{path}:6:9: executors.both: expected exactly one of 'argv' or 'url'",
        f"{path}:7:17: executors.shell.argv: expected a list of words such as "
        "[/usr/bin/env, backup], got the string 'rm -rf /'",
        f"{path}:8:13: executors.v6.url: expected an http:// or https:// URL, "
        "got the string 'http://[::1'",
        f"{path}:9:17: executors.nohost.url: expected an http:// or https:// URL, "
        "got the string 'https:///x'",
        f"{path}:10:1: wrokers: unknown key 'wrokers' (did you mean 'workers'?)",
    ]


def test_serve_refuses_a_bad_config_without_a_traceback(tmp_path: Path, capsys) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("workers: 0\n")
    args = ["serve", "--db", f"sqlite:///{tmp_path}/x.db", "--config", str(path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("cronlapse serve: invalid config:\n")
    assert "workers: expected a whole number from 1 to 256" in err
    assert not (tmp_path / "x.db").exists(), "nothing is created for a config that is refused"


def test_serve_refuses_a_database_it_cannot_open(capsys) -> None:
    assert main(["serve", "--db", "nosuchdb://x"]) == 2
    assert capsys.readouterr().err.startswith(
        "cronlapse serve: cannot open the database nosuchdb://x"
    )


@pytest.mark.parametrize("port", ["99999", "-1", "0", "http"])
def test_serve_refuses_a_port_that_is_not_one(port: str, capsys) -> None:
    """99999 was taken as 34463 (99999 - 65536) and announced as 99999."""
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--port", port])
    assert exit_.value.code == 2
    assert f"expected a port from 1 to 65535, got {port!r}" in capsys.readouterr().err


def test_serve_refuses_a_nonsense_speed(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--speed", "fast"])
    assert "expected a number of ticks per second" in capsys.readouterr().err
