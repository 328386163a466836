"""Every front end that reads a source opens it through ``open_source``: none reads a file, tells
a script from a scenario or recognises a crontab by itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import cronlapse.cli.playing
import tui.model.session
import tui.model.sweep_run
from cronlapse.sources import Source, open_source
from tests.conftest import Cli
from tui.app import DashboardApp
from tui.model.session import load_session
from tui.model.sweep_run import SweepRun

ROOT = Path(__file__).resolve().parents[2]
DST = str(ROOT / "scenarios" / "nightly-etl-dst.yaml")
OUTAGE = str(ROOT / "scenarios" / "semantics" / "scheduler-outage.yaml")

Opened = list[str]


def spy_on(monkeypatch: pytest.MonkeyPatch, module: object) -> Opened:
    """The paths ``module`` opens through ``open_source`` (which still opens them)."""
    opened: Opened = []

    def spy(path: str | Path, **options: bool) -> Source:
        opened.append(str(path))
        return open_source(path, **options)

    monkeypatch.setattr(module, "open_source", spy)
    return opened


COMMANDS = [
    (("run", DST), [DST]),
    (("check", OUTAGE, DST), [OUTAGE, DST]),
    (("export", OUTAGE, "--csv", "-"), [OUTAGE]),
    (("explain", "run", "extract@1560", DST), [DST]),
    (("explain", "missed", "--job", "sync", "--outage", "5..95", OUTAGE), [OUTAGE]),
    (("backfill", "--dry-run", "--job", "extract", "--from", "0", "--to", "2880", DST), [DST]),
    (("compare", DST, DST, "--until", "100"), [DST, DST]),
    (("sweep", OUTAGE, "--vary", "workers=1..2", "--processes", "1", "--no-plot"), [OUTAGE]),
]


@pytest.mark.parametrize(("argv", "paths"), COMMANDS, ids=lambda value: " ".join(value[:2]))
def test_every_command_that_reads_a_file_opens_it_through_the_opener(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], paths: list[str]
) -> None:
    opened = spy_on(monkeypatch, cronlapse.cli.playing)
    status, _, err = cli(*argv)
    assert status == 0, err
    assert opened == paths


def test_the_dashboard_opens_its_file_through_the_opener(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = spy_on(monkeypatch, tui.model.session)
    session = load_session(DST)
    assert opened == [DST] and session.kind == "scenario"


@pytest.mark.integration
def test_the_dashboards_app_opens_and_reloads_through_the_opener(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened = spy_on(monkeypatch, tui.model.session)

    async def open_then_reload() -> None:
        app = DashboardApp(Path(DST), watch=False, blink=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("r")
            await pilot.pause()

    asyncio.run(open_then_reload())
    assert opened == [DST, DST]


def test_the_dashboards_sweep_opens_the_file_through_the_opener(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened = spy_on(monkeypatch, tui.model.sweep_run)
    SweepRun(Path(OUTAGE), ["workers=1..2"], processes=1)
    assert opened == [OUTAGE]
