"""Executors a previous server left running: found by a mark in their environment, and stopped.

A server killed with SIGKILL cannot stop its argv executors: each runs on in a process group of
its own (:mod:`cronlapse.service.executors`), its exit status lost with the server. The journal
still has its attempt RUNNING, and the restart records it LOST and runs it again under the same
idempotency key (:meth:`cronlapse.service.live.LiveService.take_over`). Before it does, the old
process must be gone, or two copies of one run would overlap.

So every executor carries :data:`SERVICE_ENV`, the database's own service id (a random id kept in
its meta, the same for every server that ever ran on it), in its environment, which its children
inherit. A restart looks for processes that carry it (``/proc``, on Linux; elsewhere it finds
none) and stops their process groups the way a server's stop does: SIGTERM, then SIGKILL to what
remains after :data:`~cronlapse.service.executors.STOP_GRACE` seconds. The mark, not a pid kept
in the database, identifies them: a pid recorded before a reboot may name anybody's process now,
and the mark costs no write per executor.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
import uuid
from pathlib import Path

from cronlapse.service.executors import SERVICE_ENV, STOP_GRACE, signal_group
from cronlapse.service.store import Journal

log = logging.getLogger("cronlapse.serve")

SERVICE_KEY = "service_id"
"""The meta key of the database's service id."""
PROC = Path("/proc")
LOOK_EVERY = 0.05
"""Seconds between two looks at whether the stopped executors have exited."""


def service_id(journal: Journal) -> str:
    """The database's service id, made on its first start."""
    found = journal.get_meta(SERVICE_KEY)
    if found is None:
        found = uuid.uuid4().hex
        journal.set_meta(SERVICE_KEY, found)
    return found


def stop_orphans(service: str, grace: float = STOP_GRACE) -> int:
    """Stop the process groups of every process marked with ``service``; the number stopped.
    Returns once they have exited (SIGTERM), or after ``grace`` seconds have been killed."""
    marked = _marked(f"{SERVICE_ENV}={service}".encode())
    groups = set()
    for pid in marked:
        with contextlib.suppress(ProcessLookupError):
            groups.add(os.getpgid(pid))
    groups.discard(os.getpgid(0))
    for group in groups:
        signal_group(group, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(map(_running, marked)) and time.monotonic() < deadline:
        time.sleep(LOOK_EVERY)
    for group in groups:
        signal_group(group, signal.SIGKILL)
    if groups:
        log.warning("stopped %d executor(s) a previous server left running", len(groups))
    return len(groups)


def _marked(mark: bytes) -> list[int]:
    """The pids (not this process's) whose environment holds ``mark`` (``NAME=value``)."""
    found = []
    for entry in PROC.glob("[0-9]*"):
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if mark in environment.split(b"\0"):
            found.append(pid)
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie does not (its parent may never reap it)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")
