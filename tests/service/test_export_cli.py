"""``cronlapse export --scenario --db URL`` on SQLite files: the file it writes, and what it says
when there is nothing to export (the stretch itself: test_export.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.cli.main import main
from cronlapse.service.store import Entry, open_store
from tests.service.test_export import journal

pytestmark = pytest.mark.integration


def journal_file(directory: Path, seed: int, prompt: bool, steps: int = 120) -> str:
    """The URL of an SQLite journal of ``steps`` random inputs."""
    url = f"sqlite:///{directory / 'cronlapse.db'}"
    journal(seed, prompt, steps, store=open_store(url)).close()
    return url


def test_the_cli_writes_a_file_that_check_and_run_accept(tmp_path: Path) -> None:
    url = journal_file(tmp_path, 11, prompt=True)
    target = tmp_path / "incident.yaml"
    assert main(["export", "--scenario", "--db", url, "-o", str(target)]) == 0
    assert main(["check", str(target)]) == 0
    assert main(["run", str(target)]) == 0


def test_a_dash_writes_the_scenario_to_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """As ``--trace -``, ``--csv -`` and ``import -o -``: not a file named ``-``."""
    url = journal_file(tmp_path, 11, prompt=True)
    assert main(["export", "--scenario", "--db", url, "-o", str(tmp_path / "a.yaml")]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--scenario", "--db", url, "-o", "-"]) == 0
    assert capsys.readouterr().out == (tmp_path / "a.yaml").read_text()
    assert not (tmp_path / "-").exists()


def test_cli_errors(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.db"
    assert main(["export", "--scenario", "--db", f"sqlite:///{missing}"]) == 2
    assert capsys.readouterr().err == f"cronlapse export: no database at {missing}\n"
    assert not missing.exists()
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    open_store(empty).close()
    assert main(["export", "--scenario", "--db", empty]) == 2
    assert capsys.readouterr().err == f"cronlapse export: the journal at {empty} is empty\n"
    url = journal_file(tmp_path, 1, prompt=True, steps=5)
    assert main(["export", "--scenario", "--db", url, "--from", "yesterday"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cronlapse export: --from: ") and err.count("\n") == 1
    assert main(["export", "--scenario", "--db", url, "--from", "+10", "--to", "5"]) == 2
    assert "--to: tick 5 is before the start" in capsys.readouterr().err
    assert main(["export", "--scenario", "--db", url, "--from", "+100000"]) == 2
    assert "is after the journal's last input" in capsys.readouterr().err
    assert main(["export", "--scenario", "--db", url, "--to", str(10**15)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"cronlapse export: --to: tick {10**15} is past the year 9999, where no date names it\n"
    )
    assert main(["export", "--scenario"]) == 2
    assert capsys.readouterr().err == "cronlapse export: --scenario needs --db URL\n"
    assert main(["export", "--db", url]) == 2
    assert "--db, --from, --to and -o go with --scenario" in capsys.readouterr().err


def test_an_input_this_version_cannot_apply_is_named(tmp_path: Path, capsys) -> None:
    url = journal_file(tmp_path, 2, prompt=True, steps=3)
    store = open_store(url)
    (seq,) = store.journal.append([Entry(1_000_100, 2, "clock", {})])  # a row to rename
    store.db.dispose()
    with store.db.begin() as conn:
        conn.exec_driver_sql("UPDATE journal SET verb = 'teleport' WHERE seq = ?", (seq,))
    store.close()
    assert main(["export", "--scenario", "--db", url]) == 2
    message = f"journal row {seq}: unknown input 'teleport'\n"
    assert capsys.readouterr().err == f"cronlapse export: {message}"
    assert main(["status", "--db", url]) == 2
    assert capsys.readouterr().err == f"cronlapse status: {message}"
