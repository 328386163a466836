"""The suite's own machinery: how it runs Hypothesis and how it waits.

A loaded machine (two cores shared with other work) makes every step slower by a factor nobody
can bound, so nothing in the suite may depend on how long something takes.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import sqlite3
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tiers import TierViolation
from tests.waiting import until, wait_until


@settings(max_examples=2)
@given(st.just(None))
def test_a_slow_example_is_not_a_failure(_: None) -> None:
    """Hypothesis's default deadline (200 ms an example) fails an example for its speed alone;
    the suite's profile (tests/conftest.py) has none."""
    time.sleep(0.25)  # the scenario: an example slower than that deadline


def test_a_wait_returns_what_the_condition_saw_once_it_holds() -> None:
    looks = iter([None, [], {"status": "succeeded"}])
    assert wait_until(lambda: next(looks), "a job to succeed") == {"status": "succeeded"}


def test_a_wait_that_never_ends_says_what_it_waited_for_and_the_context() -> None:
    with pytest.raises(AssertionError) as failed:
        wait_until(lambda: False, "the standby to take over", timeout=0, context=lambda: "log")
    assert str(failed.value) == "waited 0 s for the standby to take over; it never happened\nlog"


def test_a_wait_on_an_event_loop_lets_the_loop_run() -> None:
    async def scenario() -> str:
        done = asyncio.Event()
        asyncio.get_running_loop().call_soon(done.set)
        await until(done.is_set, "the callback")
        with pytest.raises(AssertionError, match="waited 0 s for nothing; it never happened"):
            await until(lambda: False, "nothing", timeout=0)
        return "ok"

    assert asyncio.run(scenario()) == "ok"


@pytest.mark.parametrize(
    ("leave", "tier"),
    [
        (lambda: subprocess.run(["true"], check=False), "e2e"),
        (lambda: multiprocessing.get_context("spawn").Process(target=print).start(), "e2e"),
        (lambda: socket.create_connection(("127.0.0.1", 9)), "integration"),
        (lambda: socket.socket().bind(("127.0.0.1", 0)), "integration"),
        (lambda: sqlite3.connect(":memory:"), "integration"),
    ],
    ids=["subprocess", "multiprocessing", "connect", "bind", "sqlite"],
)
def test_a_unit_test_that_leaves_its_process_is_told_its_tier(leave, tier: str) -> None:
    """Unmarked, this is a unit test (tests/tiers.py): each way out of the process is refused
    with the tier the test would belong to."""
    with pytest.raises(TierViolation, match=f"mark its module pytest.mark.{tier}$"):
        leave()


def test_a_unit_test_cannot_run_the_dashboard() -> None:
    from tui.app import DashboardApp

    with pytest.raises(TierViolation, match="runs a Textual app"):
        DashboardApp().run_test()


@pytest.mark.integration
def test_the_other_tiers_may_leave_their_process() -> None:
    sqlite3.connect(":memory:").close()
    assert subprocess.run(["true"], check=False).returncode == 0
