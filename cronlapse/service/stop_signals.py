"""SIGTERM and SIGINT while ``cronlapse serve`` starts and serves: a stop asked for is a clean
stop, never the process's death (a supervisor reads -15 as a failure)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def stops_recorded(stop: threading.Event) -> Iterator[None]:
    """Until uvicorn serves, SIGTERM and SIGINT only set ``stop``.

    A standby scheduler (:func:`~cronlapse.service.server.elected_service`) waits to be elected
    for as long as another holds the lock, and by Python's handlers a supervisor's SIGTERM
    killed it (-15) and Ctrl-C ended it as an interruption (130), though it holds nothing to
    flush. Recorded instead, the wait returns at its next check and the process exits 0; a stop
    asked after the election reaches the HTTP server, which then stops as cleanly as on a signal
    while serving. Every server records them from the moment its executors start until uvicorn
    serves (its HTTP stack is imported meanwhile): killed then, it left its executors running."""

    def record(_signal: int, _frame: FrameType | None) -> None:
        stop.set()

    with on_stop_signals(record):
        yield


@contextlib.contextmanager
def on_stop_signals(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """SIGTERM and SIGINT go to ``handler`` within the block, then to the handlers before it
    (a thread that is not the main one gets no signals: nothing to do there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)
