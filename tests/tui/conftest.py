"""Fixtures for the dashboard's tests; the fixed run itself is in :mod:`tui_helpers`.

Pilot tests are ``async def``: this directory runs them with ``asyncio.run`` (no plugin needed).
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
from tui_helpers import BROKEN_YAML, SMALL_YAML, small_session

from tui.app import DashboardApp
from tui.model.session import Session


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
