"""The live service's work on the event loop besides HTTP: the clock's readings, an executor for
each running attempt and its report, the changes kept for a run's end.

A server starts it as soon as it has taken the journal over, before it imports and starts its
HTTP stack (:mod:`cronlapse.service.server`): the runs due at a restart start without waiting for
uvicorn and Starlette to load, a fifth of what a restart imported. The API's lifespan
(:class:`~cronlapse.service.api.Api`) starts it if nothing has, and stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from cronlapse.service.codec import Decoded, InputInvalid
from cronlapse.service.executors import AttemptKey, Executors
from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.running import RunningChanges, running_launches
from engine.model.commands import Complete

log = logging.getLogger("cronlapse.serve")

CLOCK_INTERVAL = 0.02
"""Seconds between readings of the live clock."""


class EngineLoop:
    """Executors, clock and kept changes of one live service, on the running event loop."""

    def __init__(self, live: LiveService, inputs: Inputs, metrics: Metrics) -> None:
        self.live = live
        self.inputs = inputs
        self.metrics = metrics
        self.executors: Executors | None = None
        """The running attempts' tasks, once started."""
        self.changes = RunningChanges(live)
        self.applying: set[str] = set()
        """Jobs whose first kept change is on its way to the journal."""
        self.reports: set[asyncio.Task] = set()
        """Executor reports on their way to the journal (kept so they are not collected)."""
        self._ticking: asyncio.Task | None = None

    @property
    def started(self) -> bool:
        return self.executors is not None

    def start(self) -> None:
        """Start an executor for each attempt running now (the one full scan), then follow the
        inputs and the clock; on the running event loop."""
        live = self.live
        self.executors = executors = Executors(self._report, live.service)
        live.on_change = self._sync
        live.on_events.append(self.metrics)
        live.on_events.append(self.changes)
        executors.sync(running_launches(live))
        self._apply_kept()  # a run that ended just before a stop
        self._ticking = asyncio.get_running_loop().create_task(self._tick())

    async def start_now(self) -> None:
        """:meth:`start`, then one turn of the loop: each executor's process is started before
        this returns (an argv executor's is spawned in its task's first step)."""
        self.start()
        await asyncio.sleep(0)

    async def stop(self) -> None:
        """Stop the clock and every executor (see :meth:`Executors.close`)."""
        live = self.live
        if self._ticking is not None:
            self._ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticking
        live.on_change = lambda: None
        if self.executors is not None:
            live.on_events.remove(self.metrics)
            live.on_events.remove(self.changes)
            await self.executors.close()

    async def _tick(self) -> None:
        while True:
            try:
                await self.inputs.clock()
            except Exception:  # keep the clock going; the next reading retries
                log.exception("clock reading failed")
            await asyncio.sleep(CLOCK_INTERVAL)

    def _sync(self) -> None:
        """After each input: start and stop the attempts it changed, and only those; apply the
        changes kept for a run's end whose run has ended."""
        if self.executors is not None:
            self.executors.update(self.changes.take())
            self._apply_kept()

    def _apply_kept(self) -> None:
        """Submit each job's first kept change once no run of the job runs, one at a time per
        job: its row takes it off the list (journaled, so a restart does the same)."""
        if not self.live.state.kept:
            return
        for verb, args in self.live.kept_due():
            job_id = str(args["job"])
            if job_id not in self.applying:
                self.applying.add(job_id)
                task = asyncio.get_running_loop().create_task(self._submit_kept(verb, args))
                self.reports.add(task)
                task.add_done_callback(self.reports.discard)

    async def _submit_kept(self, verb: str, args: dict) -> None:
        job_id = str(args["job"])
        try:
            await self.inputs.submit(verb, args)
        except InputInvalid as invalid:
            # Read when it was asked, it no longer reads now (a time since passed): it is
            # dropped, and said so; nothing journaled it, so a restart tries it once more.
            log.warning("the change kept for %s no longer applies: %s", job_id, invalid)
            self.live.drop_first_kept(job_id)
        except Exception:  # a failed journal write: the next input tries it again
            log.exception("applying the change kept for %s failed", job_id)
            self.applying.discard(job_id)
            return
        self.applying.discard(job_id)
        self._apply_kept()  # the job's next kept change, if any (this one's row ran _sync early)

    def _report(self, key: AttemptKey, ok: bool) -> None:
        """An executor's end, journaled as ``complete``; its command is built here, from the
        engine's own attempt, rather than read again from its arguments."""
        args = {"job": key.job_id, "scheduled": key.scheduled, "attempt": key.attempt, "ok": ok}
        decoded = Decoded(Complete(key.job_id, key.scheduled, key.attempt, ok), None)
        submitted = self.inputs.submit("complete", args, decoded=decoded)
        task = asyncio.get_running_loop().create_task(submitted)
        self.reports.add(task)
        task.add_done_callback(self.reports.discard)
