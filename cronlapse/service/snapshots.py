"""Snapshots written in the background, by a forked child, so the server never stops to write one.

Pickling the whole state takes seconds once a server has months of runs; done on the event loop
it would stall every request that long. ``os.fork()`` gives a child an instant copy-on-write copy
of the state as it is at the journal position being snapshotted; the child pickles it, writes it
through a database connection of its own and exits, while the parent goes on serving. One child
at a time: a snapshot due while one is being written waits for the next turn.

The fork happens between two inputs (after one is applied, with no commit in flight), so no other
thread holds a lock the child could need; the child touches nothing of the parent's but the state
it pickles, and leaves with ``os._exit`` (no cleanup of the parent's resources). The cost is memory:
the pages the parent changes while the child runs are copied.
"""

from __future__ import annotations

import os
import pickle

from cronlapse.service.live import LiveState, collector_paused
from cronlapse.service.store import open_store


class BackgroundSnapshots:
    def __init__(self, url: str) -> None:
        self.url = url
        self.child: int | None = None

    def busy(self) -> bool:
        """Whether a child is still writing (a finished one is reaped)."""
        if self.child is not None:
            pid, _status = os.waitpid(self.child, os.WNOHANG)
            if pid != 0:
                self.child = None
        return self.child is not None

    def start(self, state: LiveState) -> bool:
        """Fork a child to write ``state`` at its journal position; False if one still writes."""
        if self.busy():
            return False
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                with collector_paused():
                    data = pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
                store = open_store(self.url, migrate=False)
                store.journal.save_snapshot(state.seq, data)
                store.close()
                code = 0
            finally:
                os._exit(code)
        self.child = pid
        return True

    def wait(self) -> None:
        """Wait for the child writing, if any (a clean stop)."""
        if self.child is not None:
            os.waitpid(self.child, 0)
            self.child = None
