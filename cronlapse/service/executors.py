"""Real attempts: the engine says which attempts are running; this module runs them.

After every input the service hands :meth:`Executors.sync` the attempts the engine has RUNNING.
An attempt without a task gets one (a new assignment, or after a restart one whose result was
never recorded: it runs again, with the same idempotency key). A task whose attempt is no longer
running (the engine's timeout took it back: the reviewer) is cancelled, which kills its process.

An executor is one of the config's (:mod:`cronlapse.service.config`):

- an argv, run without a shell in a session of its own (so a kill reaches its children), the
  payload on stdin, and ``CRONLAPSE_JOB_ID``, ``CRONLAPSE_SCHEDULED`` (ISO time),
  ``CRONLAPSE_ATTEMPT`` and ``CRONLAPSE_IDEMPOTENCY_KEY`` in its environment (the server's own,
  without its API token); exit 0 is success;
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
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from cronlapse.service.auth import TOKEN_ENV
from cronlapse.service.config import Executor

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


class Executors:
    """The running attempts' tasks."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.tasks: dict[AttemptKey, asyncio.Task] = {}
        self.reported: set[AttemptKey] = set()
        """Attempts whose executor has finished but whose report the engine has not applied
        yet: still RUNNING there, and not to be started again."""
        self.http = httpx.AsyncClient(timeout=None, follow_redirects=False)

    def sync(self, running: dict[AttemptKey, Launch]) -> None:
        """Start a task for each running attempt without one; cancel the others."""
        for key in [key for key in self.tasks if key not in running]:
            self.tasks.pop(key).cancel()
        self.reported.intersection_update(running)
        for key, launch in running.items():
            if key not in self.tasks and key not in self.reported:
                self.tasks[key] = asyncio.get_running_loop().create_task(self._run(launch))

    async def close(self) -> None:
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
                ok = await run_argv(executor.argv, launch)
            elif executor.url is not None:
                ok = await self._post(executor.url, launch)
            else:
                ok = True
        except Exception as error:  # whatever went wrong, the engine hears of a failed attempt
            log.warning("%s: cannot run: %s", launch.key, error)
            ok = False
        if self.tasks.get(launch.key) is asyncio.current_task():
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
        try:
            answer = await self.http.post(url, content=launch.payload or "", headers=headers)
        except httpx.HTTPError as error:
            log.warning("%s: POST %s failed: %s", key, url, error)
            return False
        return answer.is_success


async def run_argv(argv: tuple[str, ...], launch: Launch) -> bool:
    """Run ``argv`` (no shell) with the payload on stdin; killed, with its session, if the task
    is cancelled."""
    key = launch.key
    env = {name: value for name, value in os.environ.items() if name != TOKEN_ENV}
    env.update(
        CRONLAPSE_JOB_ID=key.job_id,
        CRONLAPSE_SCHEDULED=launch.scheduled_at,
        CRONLAPSE_ATTEMPT=str(key.attempt),
        CRONLAPSE_IDEMPOTENCY_KEY=idempotency_key(key.job_id, key.scheduled),
    )
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        await _feed(process, (launch.payload or "").encode())
        await process.wait()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        raise
    return process.returncode == 0


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    """Write ``data`` to the process's stdin and close it; a process that exits without reading
    it all is not an error (the pipe breaks: asyncio says BrokenPipeError, uvloop RuntimeError)."""
    stdin = process.stdin
    assert stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
        if data:
            stdin.write(data)
            await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
        stdin.close()
