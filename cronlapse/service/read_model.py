"""The read model: what the API answers about jobs, runs and workers, kept in the database.

Stateless API processes (``serve --role api``) hold no engine; they answer reads from the
store's read model (:mod:`cronlapse.service.store.views`), whose changes :class:`ReadModel`
computes for the active scheduler to write in the same transaction as the journal rows that made
them (a :class:`~cronlapse.service.store.Publication`). The JSON stored is the single process's
own (:mod:`cronlapse.service.views`), so both answer the same bytes.

What is rewritten in a transaction is what the applied inputs touched: the jobs the engine's
events and the inputs name, and the runs the events name. A job's answer also changes with time
alone, without an event: its next run turns from ``created`` to ``scheduled`` two minutes before
it is due, and becomes a listed (implicit) run when it falls due. Each job written notes those
ticks in a heap, and a transaction whose tick has reached one rewrites that job too, so the
stored answer is what the single process would answer at the engine's tick.

Cost per transaction: the touched jobs, each with its waiting backlog (its implicit runs), and
the worker slots; the metrics text at most once a second (``METRICS_SECONDS``).
"""

from __future__ import annotations

import dataclasses
import heapq
import time
from collections.abc import Iterable

from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.store import JobView, RunView, ViewChanges
from cronlapse.service.views import job_json, recent_runs, run_view, stored_json, workers_json
from engine.model import events as ev
from engine.model.records import Job

METRICS_SECONDS = 1.0
IDLE_TICK_SECONDS = 1.0
"""How stale, in wall seconds, the tick an idle scheduler's read model shows may grow: its own
time follows the clock between commits (``LiveService.follow_clock``), and the API processes
read the tick of its last write."""
TICK_KEY = "tick"
WORKERS_KEY = "workers"
METRICS_KEY = "metrics"
JOB_VERBS = {
    "schedule": "id",
    "modify": "job",
    "cancel": "job",
    "delete": "job",
    "pause": "job",
    "resume": "job",
}
"""The inputs that name a job, and the argument that names it."""


class ReadModel:
    """The active scheduler's writer of the read model (an ``on_events`` observer)."""

    def __init__(self, live: LiveService, metrics: Metrics) -> None:
        self.live = live
        self.metrics = metrics
        self.jobs: set[str] = set()
        """Jobs to rewrite in the next transaction."""
        self.runs: set[tuple[str, int]] = set()
        """Runs to rewrite in the next transaction."""
        self.due: list[tuple[int, str]] = []
        """(tick, job): the job's answer changes with time at that tick."""
        self.positions: dict[str, int] = {}
        """Each job's place in submission order (its cursor position)."""
        self.metrics_written = 0.0
        self.published_tick: int | None = None
        """The engine's tick the last write showed."""
        self.published_at = 0.0
        """When (monotonic seconds) the last write was made."""

    def __call__(self, events: Iterable[ev.Event]) -> None:
        for event in events:
            job_id = getattr(event, "job_id", None)
            if job_id is None:
                continue
            self.jobs.add(job_id)
            if isinstance(event, ev.OccurrenceEvent):
                self.runs.add((job_id, event.scheduled))

    def applied(self, verb: str, args: dict) -> None:
        """An input was applied: the job it names is rewritten (a change of executor alone
        has no event)."""
        key = JOB_VERBS.get(verb)
        if key is not None and isinstance(args.get(key), str):
            self.jobs.add(args[key])

    def rebuild(self) -> ViewChanges:
        """The whole read model, replacing what is stored (a database the single process ran,
        or a lost write)."""
        self.positions = {}
        self.due = []
        self.jobs = set(self.live.state.order)
        self.runs = set(self.live.engine.query.records())
        self.metrics_written = 0.0
        return dataclasses.replace(self.changes(), reset=True)

    def stale(self) -> bool:
        """Whether time alone changed what it would say, with no input to write it: a job's
        answer changes at a tick now passed (a run turning ``scheduled`` two minutes before it
        is due), or its tick is more than :data:`IDLE_TICK_SECONDS` of wall time behind."""
        now = self.live.engine.now
        if self.due and self.due[0][0] <= now:
            return True
        behind = self.published_tick is not None and self.published_tick != now
        return behind and time.monotonic() - self.published_at >= IDLE_TICK_SECONDS

    def changes(self) -> ViewChanges:
        """What changed since the last call: the jobs and runs touched, and the meta."""
        state = self.live.state
        engine = state.engine
        self.published_tick, self.published_at = engine.now, time.monotonic()
        order = state.order
        for position in range(len(self.positions), len(order)):
            self.positions[order[position]] = position
        while self.due and self.due[0][0] <= engine.now:
            self.jobs.add(heapq.heappop(self.due)[1])
        known = engine.query.jobs()
        jobs = [known[j] for j in self.jobs if j in self.positions and j in known]
        runs = {key for key in self.runs if key[0] in self.positions}
        self.jobs, self.runs = set(), set()
        rows = [row for job in jobs if not job.deleted for row in self._implicit_rows(job)]
        for job in jobs:
            runs.update((job.job_id, tick) for tick in job.open)
        rows += [self._run_row(job_id, tick, False) for job_id, tick in runs]
        meta = {TICK_KEY: str(engine.now), WORKERS_KEY: stored_json(workers_json(engine))}
        if time.monotonic() - self.metrics_written >= METRICS_SECONDS:
            self.metrics_written = time.monotonic()
            meta[METRICS_KEY] = self.metrics.text(engine, state)
        return ViewChanges(
            jobs=[self._job_row(job) for job in jobs],
            runs=[row for row in rows if row is not None],
            meta=meta,
        )

    def _job_row(self, job: Job) -> JobView:
        state = self.live.state
        engine = state.engine
        if not job.deleted and job.next_due is not None:
            window = engine.policy.scheduling_window or 0
            for tick in (job.next_due - window + 1, job.next_due):
                if tick > engine.now:
                    heapq.heappush(self.due, (tick, job.job_id))
        summary = job_json(state, job, detail=False)
        recent = recent_runs(state, job)
        stored = None
        if recent.unanswered or recent.stored:  # forgotten by the engine: the store keeps them
            stored = recent.read(self.live.store.views, job.job_id)
        detail = summary | {"runs": recent.json(stored)}
        return JobView(
            job_id=job.job_id,
            position=self.positions[job.job_id],
            deleted=job.deleted,
            status=summary["status"],
            priority=job.spec.priority,
            run=summary["run"],
            summary=stored_json(summary),
            detail=stored_json(detail),
        )

    def _implicit_rows(self, job: Job) -> list[RunView | None]:
        """The job's runs that wait without a record; a recurring job's backlog grows at its
        next run, which is noted so the job is rewritten then."""
        query = self.live.engine.query
        waiting = query.implicit_range(job.job_id)
        if waiting is None:
            return []
        following = job.first_fire(waiting.last + 1)
        if following is not None:
            heapq.heappush(self.due, (following, job.job_id))
        ticks = query.implicit_runs(job.job_id, waiting.first, waiting.last)
        return [self._run_row(job.job_id, tick, True) for tick in ticks]

    def _run_row(self, job_id: str, tick: int, implicit: bool) -> RunView | None:
        return run_view(self.live.engine, job_id, tick, implicit)
