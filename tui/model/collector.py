"""The dashboard's policy for Python's cyclic garbage collector while it moves through time.

A recorded run holds hundreds of thousands of small, long-lived objects (the records and the
keyframes' saved values); a restore allocates enough to trigger the collector's full passes over
all of them, which measured ten times the cost of the restore itself, and a pass deferred to just
after a move
lands on the next one. So the collector pauses during a move, and afterwards what survived is
frozen (``gc.freeze``: never scanned again). Moving through time creates no reference cycles, so
nothing is left uncollected: reference counting frees everything as usual.

This is a process-wide choice, so it belongs to the application (the dashboard and the
benchmarks), never to the engine a library user embeds.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a move with the cyclic collector off, then freeze what survived it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
