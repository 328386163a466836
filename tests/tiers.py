"""The suite's three tiers, and the guard that keeps the unit tier honest.

A test module says its tier with ``pytestmark = pytest.mark.integration`` (or ``e2e``); a
module that says nothing is a unit test. ``pytest -m unit`` is then the minute-long loop a
change is made in, and the other tiers are what the whole suite adds. A tier that is only
declared drifts: a unit test that quietly starts a server makes the fast loop slow and
flaky. So while a unit test runs, the means to leave the process are refused, with a
message that names the tier the test belongs to instead.
"""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import sqlite3
import subprocess
from collections.abc import Callable

import pytest

TIERS = {
    "unit": "in-process: no process, no IP socket, no SQLite, no Textual app (the default)",
    "integration": "a real database, servers in the process on loopback, the dashboard under "
    "Pilot, whole-engine property walks against fresh runs, the benchmarks' programs",
    "e2e": "processes: a server or command started as users start it, tmux, wheel builds, kill -9",
}


PROCESS_STARTS = (
    (subprocess, "_fork_exec"),
    (_posixsubprocess, "fork_exec"),
    (os, "fork"),
    (os, "posix_spawn"),
    (os, "posix_spawnp"),
    (os, "system"),
)
"""Every way a process starts: ``subprocess`` through its own name for ``fork_exec`` (or
``posix_spawn``), ``multiprocessing``'s spawn and forkserver through ``fork_exec``, its fork
context through ``os.fork``."""


class TierViolation(AssertionError):
    """A unit test reached for something outside its process."""


def pytest_configure(config: pytest.Config) -> None:
    for name, what in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {what}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tiers = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
        if len(tiers) > 1:
            raise pytest.UsageError(f"{item.nodeid} is in more than one tier: {sorted(tiers)}")
        if not tiers:
            item.add_marker(pytest.mark.unit)


def _refuse(what: str, tier: str) -> Callable[..., None]:
    def refused(*args: object, **kwargs: object) -> None:
        raise TierViolation(f"a unit test {what}: mark its module pytest.mark.{tier}")

    return refused


def _refuse_on_the_network(method: Callable[..., None], what: str) -> Callable[..., None]:
    """``method`` for local (Unix) sockets, which asyncio's own plumbing uses; refused for IP."""

    def guarded(self: socket.socket, *args: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise TierViolation(f"a unit test {what}: mark its module pytest.mark.integration")
        return method(self, *args)

    return guarded


@pytest.fixture(autouse=True)
def _a_unit_test_stays_in_its_process(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if request.node.get_closest_marker("unit") is None:
        return
    for module, name in PROCESS_STARTS:
        monkeypatch.setattr(module, name, _refuse("starts a process", "e2e"))
    monkeypatch.setattr(sqlite3, "connect", _refuse("opens an SQLite database", "integration"))
    monkeypatch.setattr(
        sqlite3.dbapi2, "connect", _refuse("opens an SQLite database", "integration")
    )
    for name in ("connect", "connect_ex", "bind"):
        method = getattr(socket.socket, name)
        monkeypatch.setattr(socket.socket, name, _refuse_on_the_network(method, f"uses {name}"))
    from textual.app import App

    monkeypatch.setattr(App, "run_test", _refuse("runs a Textual app", "integration"))
