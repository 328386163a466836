"""Real attempts: the engine says which attempts are running; this module runs them.

After every input the service hands :meth:`Executors.sync` the attempts the engine has RUNNING.
An attempt without a task gets one (a new assignment; an attempt a previous server left running
is recorded lost at the restart, and its retry is a new one, under the same idempotency key). A
task whose attempt is no longer running (the engine's timeout took it back: the reviewer) is
cancelled, which kills its process.

An executor is one of the config's (:mod:`cronlapse.service.config`):

- an argv, run without a shell in a session of its own (so a kill reaches its children), with
  no descriptor of the server's but its stdin pipe and ``/dev/null`` as stdout and stderr, the
  payload on stdin, and ``CRONLAPSE_JOB_ID``, ``CRONLAPSE_SCHEDULED`` (ISO time),
  ``CRONLAPSE_ATTEMPT`` and ``CRONLAPSE_IDEMPOTENCY_KEY`` in its environment (the server's own,
  without its API token), and :data:`SERVICE_ENV`, the mark by which a restart finds the
  executors a killed server left running (:mod:`cronlapse.service.orphans`); exit 0 is success;
- an HTTP POST of the payload to a URL with an ``Idempotency-Key`` header; 2xx is success;
- ``noop``, which succeeds at once.

The idempotency key is a hash of ``(job id, scheduled tick)``: the same for every attempt of one
run and across restarts, so the receiving side can drop a repeat; the attempt number is separate.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

from cronlapse.service.auth import TOKEN_ENV
from cronlapse.service.config import Executor
from cronlapse.service.http_client import LazyClient

log = logging.getLogger("cronlapse.serve")


def idempotency_key(job_id: str, scheduled: int) -> str:
    """The key of one run: stable across its retries and across restarts."""
    return hashlib.sha256(f"{job_id}\x00{scheduled}".encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class AttemptKey:
    job_id: str
    scheduled: int
    attempt: int


@dataclass(frozen=True, slots=True)
class Launch:
    """What running one attempt needs; ``executor`` is None when the job names an executor the
    config no longer defines (the attempt fails)."""

    key: AttemptKey
    executor: Executor | None
    payload: str | None
    scheduled_at: str


Report = Callable[[AttemptKey, bool], None]
"""Called when an attempt's executor has finished: did it succeed."""


SERVICE_ENV = "CRONLAPSE_SERVICE"
"""The environment variable that marks an executor with its database's service id."""
STOP_GRACE = 5.0
"""Seconds a stop gives the argv executors it terminated before it kills their groups."""


class Executors:
    """The running attempts' tasks."""

    def __init__(self, report: Report, service: str = "") -> None:
        self.report = report
        self.service = service
        """The service id the argv executors carry in :data:`SERVICE_ENV` (empty: none)."""
        self.tasks: dict[AttemptKey, asyncio.Task] = {}
        self.reported: set[AttemptKey] = set()
        """Attempts whose executor has finished but whose report the engine has not applied
        yet: still RUNNING there, and not to be started again."""
        self.groups: dict[AttemptKey, int] = {}
        """The process group of each argv executor that runs."""
        self.stopping = False
        """Closing: an attempt that ends now is not reported (see :meth:`close`)."""
        self.http = LazyClient(timeout=None, follow_redirects=False)

    def sync(self, running: dict[AttemptKey, Launch]) -> None:
        """Start a task for each running attempt without one; cancel the others."""
        for key in [key for key in self.tasks if key not in running]:
            self.tasks.pop(key).cancel()
        self.reported.intersection_update(running)
        for key, launch in running.items():
            if key not in self.tasks and key not in self.reported:
                self.tasks[key] = asyncio.get_running_loop().create_task(self._run(launch))

    def update(self, changed: dict[AttemptKey, Launch | None]) -> None:
        """Attempts an input may have changed (:class:`~cronlapse.service.running.RunningChanges`):
        start each that runs (its launch) without a task; cancel each that no longer runs
        (None). The others are left as they are, so an input costs what it changed."""
        for key, launch in changed.items():
            if launch is None:
                task = self.tasks.pop(key, None)
                if task is not None:
                    task.cancel()
                self.reported.discard(key)
            elif key not in self.tasks and key not in self.reported:
                self.tasks[key] = asyncio.get_running_loop().create_task(self._run(launch))

    async def close(self) -> None:
        """Stop every attempt: SIGTERM to each argv executor's process group, SIGKILL to what
        remains of the groups once their leaders have exited or :data:`STOP_GRACE` seconds
        have passed, HTTP requests abandoned. No attempt stopped so is reported: it stays
        RUNNING in the journal, and the next start records it lost and retries it under the
        same idempotency key."""
        self.stopping = True
        terminated = dict(self.groups)
        for group in terminated.values():
            signal_group(group, signal.SIGTERM)
        leaders = [self.tasks[key] for key in terminated if key in self.tasks]
        if leaders:
            await asyncio.wait(leaders, timeout=STOP_GRACE)
        for group in terminated.values():
            signal_group(group, signal.SIGKILL)
        for task in self.tasks.values():
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.tasks.clear()
        await self.http.aclose()

    async def _run(self, launch: Launch) -> None:
        executor = launch.executor
        try:
            if executor is None:
                log.warning("%s: the job's executor is not configured", launch.key)
                ok = False
            elif executor.argv:
                ok = await run_argv(executor.argv, launch, self.groups, self.service)
            elif executor.url is not None:
                ok = await self._post(executor.url, launch)
            else:
                ok = True
        except Exception as error:  # whatever went wrong, the engine hears of a failed attempt
            log.warning("%s: cannot run: %s", launch.key, error)
            ok = False
        if self.tasks.get(launch.key) is asyncio.current_task() and not self.stopping:
            del self.tasks[launch.key]
            self.reported.add(launch.key)
            self.report(launch.key, ok)

    async def _post(self, url: str, launch: Launch) -> bool:
        key = launch.key
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key(key.job_id, key.scheduled),
            "X-Cronlapse-Attempt": str(key.attempt),
        }
        import httpx  # loaded by the first URL executor's attempt (see http_client)

        try:
            answer = await self.http.client.post(url, content=launch.payload or "", headers=headers)
        except httpx.HTTPError as error:
            log.warning("%s: POST %s failed: %s", key, url, error)
            return False
        return answer.is_success


async def run_argv(
    argv: tuple[str, ...], launch: Launch, groups: dict[AttemptKey, int], service: str = ""
) -> bool:
    """Run ``argv`` (no shell) with the payload on stdin, marked with ``service`` unless it is
    empty; killed, with its process group, if the task is cancelled. While it runs, ``groups``
    holds its process group under its key.

    The process is started by the standard library, not the event loop: uvloop's
    ``subprocess_exec`` ignores ``close_fds`` and passed on descriptors of the server's (its own
    pipes, anything the server inherited). ``close_fds`` leaves the child its three standard
    descriptors alone, and ``start_new_session`` puts it at the head of a process group, which
    a kill or a stop then reaches whole."""
    key = launch.key
    env = {name: value for name, value in os.environ.items() if name != TOKEN_ENV}
    env.update(
        CRONLAPSE_JOB_ID=key.job_id,
        CRONLAPSE_SCHEDULED=launch.scheduled_at,
        CRONLAPSE_ATTEMPT=str(key.attempt),
        CRONLAPSE_IDEMPOTENCY_KEY=idempotency_key(key.job_id, key.scheduled),
    )
    if service:
        env[SERVICE_ENV] = service
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
    groups[key] = process.pid
    exited = _exit_status(process, (launch.payload or "").encode())
    try:
        return await asyncio.shield(exited) == 0
    except asyncio.CancelledError:
        signal_group(process.pid, signal.SIGKILL)
        await exited
        raise
    finally:
        del groups[key]


def signal_group(group: int, sig: signal.Signals) -> None:
    """Send ``sig`` to a process group, which may have ended already."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, sig)


def _exit_status(process: subprocess.Popen, payload: bytes) -> asyncio.Future[int]:
    """The process's exit status, once it has exited, after writing ``payload`` to its stdin.

    A thread of its own writes and waits (a process may read its stdin late, or never: the
    pipe then breaks, which is not an error), as asyncio's own child watcher does; the event
    loop only hears of the end."""
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[int] = loop.create_future()

    def settle(status: int) -> None:
        if not exited.done():
            exited.set_result(status)

    def wait() -> None:
        process.communicate(payload)
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(settle, process.returncode)

    threading.Thread(target=wait, name=f"executor {process.pid}", daemon=True).start()
    return exited
