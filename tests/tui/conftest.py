"""Fixtures for the dashboard's tests; the fixed run itself is in :mod:`tui_helpers`.

Pilot tests are ``async def``: this directory runs them with ``asyncio.run`` (no plugin needed).
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
import textual.app
import textual.pilot
from textual.pilot import Pilot
from tui_helpers import BROKEN_YAML, SMALL_YAML, small_session

from tests.waiting import until
from tui.app import DashboardApp
from tui.model.session import Session


@pytest.fixture(autouse=True)
def pilot_waits_for_the_dashboard(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pilot.press`` and ``pilot.pause`` (and the clicks and snapshots built on them) return
    once the dashboard has handled every key, not only once Textual guesses it is idle.

    Textual waits for the messages queued when it is called, then for a CPU that looks idle. The
    dashboard hands keys on one at a time, each after the one before and what it set off
    (:meth:`DashboardApp._send_keys`), through more queues than that first wait covers; and a
    process that gets little CPU because other work has it looks idle. On a loaded machine a
    test then looked before its keys had landed (``'' == '+2h'``)."""
    press, pause = Pilot.press, Pilot.pause

    async def settle(pilot: Pilot) -> None:
        app = pilot.app
        if not isinstance(app, DashboardApp):
            return

        def handled() -> bool:
            return not app.keys_waiting or not app.is_running  # a key may have quit it

        if not handled():
            await until(handled, "the dashboard to handle every key")
            await pause(pilot)  # and what the last one set off, drawn

    async def press_and_settle(self: Pilot, *keys: str) -> None:
        await press(self, *keys)
        await settle(self)

    async def pause_and_settle(self: Pilot, delay: float | None = None) -> None:
        await pause(self, delay)
        await settle(self)

    monkeypatch.setattr(Pilot, "press", press_and_settle)
    monkeypatch.setattr(Pilot, "pause", pause_and_settle)


@pytest.fixture
def busy_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's wait for idle, as a machine busy with other work answers it: at once.

    Pilot's ``press`` and ``pause`` end by waiting until the process looks idle, judged by its
    CPU time against the wall clock; a process that other work keeps off the CPU spends little
    CPU time, so it looks idle however much it still has to do. This makes a test meet, every
    time, the moment a loaded machine gives it now and then."""

    async def looks_idle(*_: float) -> None:
        await asyncio.sleep(0)

    monkeypatch.setattr(textual.pilot, "wait_for_idle", looks_idle)  # pilot.pause
    monkeypatch.setattr(textual.app, "wait_for_idle", looks_idle)  # pilot.press


@pytest.fixture
def session() -> Session:
    return small_session()


@pytest.fixture
def app(session: Session) -> DashboardApp:
    return DashboardApp(session=session, watch=False, blink=False)


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL_YAML, encoding="utf-8")
    return path


@pytest.fixture
def broken_file(tmp_path: Path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN_YAML, encoding="utf-8")
    return path


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**arguments))
    return True
