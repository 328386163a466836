"""One server per SQLite database: a lock file beside it, held for as long as the server runs.

A ``cronlapse serve`` without a role applies inputs to an engine of its own, so two on one
database both journaled, both answered 201 to the same id and both ran the job. The first to
start takes an exclusive ``flock`` on ``<database>.lock`` and writes there who it is (its process
and address); the kernel releases the lock when the process ends, however it ends (SIGKILL
included), so a lock never outlives its holder and no stale lock needs clearing by hand. A
second server finds it held and is told who holds it. ``flock`` locks are separate from the
POSIX record locks SQLite takes on the database itself, which they leave alone. A snapshot's
forked child shares its parent's lock, and so holds it while it writes.

PostgreSQL has no file: there the roles share the database, and the scheduler election
(:mod:`cronlapse.service.store.sql.coordination`) says which one writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

from cronlapse.service.store.errors import Held, StoreFailure

READ_AT_MOST = 4096
"""More than a holder's description ever takes."""


class WriterLock:
    """The lock file of one SQLite database."""

    def __init__(self, database: str) -> None:
        self.path = database + ".lock"
        self.fd: int | None = None

    def hold(self, holder: str) -> None:
        """Hold the lock and say there that ``holder`` does; :class:`Held` if another process
        (or another store of this one) holds it."""
        if self.fd is not None:
            raise Held(self._holder(self.fd))
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StoreFailure(f"cannot open {self.path}: {error.strerror}", "OSError") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            found = self._holder(fd)
            os.close(fd)
            raise Held(found) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode("utf-8"), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, 0)  # the next holder's description, not a dead one's
            os.close(self.fd)
            self.fd = None

    @staticmethod
    def _holder(fd: int) -> str:
        """Who holds the lock, as it wrote (nothing yet if it has only just taken it)."""
        said = os.pread(fd, READ_AT_MOST, 0).decode("utf-8", "replace").strip()
        return said or "another process (starting)"
