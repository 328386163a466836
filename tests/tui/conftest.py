"""Fixtures for the dashboard's tests; the fixed run itself is in :mod:`tui_helpers`.

Pilot tests are ``async def``: this directory runs them with ``asyncio.run`` (no plugin needed).
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
import textual._wait
import textual.app
import textual.notifications
import textual.pilot
from textual.pilot import Pilot
from tui_helpers import BROKEN_YAML, SMALL_YAML, small_session

from tests.waiting import until
from tui.app import DashboardApp
from tui.model.session import Session


@pytest.fixture(autouse=True)
def pilot_waits_for_the_dashboard(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pilot.press`` and ``pilot.pause`` (and the clicks and snapshots built on them) return
    once the dashboard has handled every key and has nothing left to do, not only once Textual
    guesses it is idle.

    Textual waits for the messages queued when it is called, then for a CPU that looks idle. The
    dashboard hands keys on one at a time, each after the one before and what it set off
    (:meth:`DashboardApp._send_keys`); a message bubbles up through more queues than that first
    wait covers; a pane takes the focus after the next refresh. And a process that other work
    keeps off the CPU looks idle at once. On a loaded machine a test then looked before its keys
    had landed (``'' == '+2h'``) or before a row it selected was shown."""
    press, pause = Pilot.press, Pilot.pause

    async def settle(pilot: Pilot) -> None:
        app = pilot.app
        if isinstance(app, DashboardApp) and not _looks_settled(app):
            await until(lambda: _looks_settled(app), "the dashboard to settle")
            await pause(pilot)  # and what it drew last, on screen

    async def press_and_settle(self: Pilot, *keys: str) -> None:
        await press(self, *keys)
        await settle(self)

    async def pause_and_settle(self: Pilot, delay: float | None = None) -> None:
        await pause(self, delay)
        await settle(self)

    monkeypatch.setattr(Pilot, "press", press_and_settle)
    monkeypatch.setattr(Pilot, "pause", pause_and_settle)


@pytest.fixture(autouse=True)
def toasts_stay_until_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toast leaves when the dashboard clears it, never by the wall clock.

    Textual drops a notification once its timeout (5 s by default) has passed in wall time,
    from the list a test reads (``app._notifications``) and from the screen. A test on a loaded
    machine can take longer than that between the key that raised a toast and its look at it:
    the toast had gone (``IndexError`` on the last toast, a notice "never" given)."""
    monkeypatch.setattr(textual.notifications.Notification, "has_expired", property(_never))


def _never(_: object) -> bool:
    return False


def _looks_settled(app: DashboardApp) -> bool:
    """Every key handled and nothing left to do (``DashboardApp.settled``); while the dashboard
    plays or jumps in the background it always has something to do, and a test means to look
    meanwhile: then every key handled. An app that quit (a key may quit it) has settled."""
    if not app.is_running:
        return True
    dashboard = getattr(app, "dashboard", None)
    if dashboard is not None and (dashboard.playing or dashboard.jump is not None):
        return not app.keys_waiting
    return app.settled


@pytest.fixture
def busy_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's wait for idle, as a machine busy with other work answers it: at its first look.

    Pilot's ``press`` and ``pause`` end by waiting until the process looks idle: it sleeps a
    fiftieth of a second at a time and compares the CPU time spent meanwhile with the wall
    clock. A process that other work keeps off the CPU spends little CPU time, so it looks idle
    however much it still has to do. This makes a test meet, every time, the moment a loaded
    machine gives it now and then."""

    async def looks_idle(*_: float) -> None:
        await asyncio.sleep(textual._wait.SLEEP_GRANULARITY)  # its first look

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
