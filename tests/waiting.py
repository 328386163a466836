"""How the suite waits for something to happen: by looking at it, until it has happened.

A loaded machine (two cores shared with other work) makes every step slower by a factor nobody
can bound. So no test sleeps a fixed time and hopes, and none asserts how long something took
(speed is measured in ``benchmarks/``): a test names the condition it waits for, and the wait
gives up only after :data:`PATIENCE`, which means "it never happened", not "it was slow".

``wait_until`` blocks (a server in another process, a thread); ``until`` is the same wait for a
test that runs on an event loop (a Textual Pilot, an asyncio service), which it lets run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

PATIENCE = 60.0
"""Seconds before a wait gives up: far longer than anything the suite waits for takes on a
loaded machine, short enough that a hang fails the run rather than stopping it."""
LOOK_EVERY = 0.02
"""Seconds between two looks: often enough to notice at once, rarely enough to cost nothing."""


def wait_until(
    condition: Callable[[], T],
    what: str,
    *,
    timeout: float = PATIENCE,
    context: Callable[[], object] | None = None,
) -> T:
    """Look at ``condition()`` until it is true, and return what it returned; after
    ``timeout`` seconds fail, saying ``what`` never happened and, if given, ``context()`` (a
    server's output, the last answer): what one needs to see why."""
    deadline = time.monotonic() + timeout
    while not (seen := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(_never(what, timeout, context))
        time.sleep(LOOK_EVERY)
    return seen


async def until(
    condition: Callable[[], T],
    what: str,
    *,
    timeout: float = PATIENCE,
    context: Callable[[], object] | None = None,
) -> T:
    """``wait_until`` on an event loop: between two looks the loop runs (the app under test,
    the server in the same process)."""
    deadline = time.monotonic() + timeout
    while not (seen := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(_never(what, timeout, context))
        await asyncio.sleep(LOOK_EVERY)
    return seen


def _never(what: str, timeout: float, context: Callable[[], object] | None) -> str:
    said = f"waited {timeout:g} s for {what}; it never happened"
    return said if context is None else f"{said}\n{context()}"


def line_written(path: Path) -> str | None:
    """The first line of ``path`` once a whole one is there (its newline written), else None:
    a file a shell redirects a command's output into exists before the command writes, so
    waiting for it to exist and then reading it may read nothing."""
    if not path.exists():
        return None
    text = path.read_text()
    return text.partition("\n")[0] if "\n" in text else None
