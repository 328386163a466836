"""What the checks need from the event log about each job, read in one pass.

The log says when each job was scheduled, modified (and which fields), paused, resumed and when
runs were skipped or cancelled; the engine's state holds only the job's current definition. The
checks combine the two.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.core import Engine
from engine.model import events as ev
from engine.model.records import JobSpec, Occurrence


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant and the tick it concerns."""

    tick: int
    text: str

    def __str__(self) -> str:
        return f"tick {self.tick}: {self.text}"


@dataclass(slots=True)
class Definition:
    """A job's definition from ``tick`` on (until the next one, that tick included)."""

    tick: int
    fields: frozenset[str] | None
    """The fields a modification changed; None for the definition the job was scheduled with."""
    spec: JobSpec | None
    """None when nothing observed it (the engine keeps only a job's current definition)."""


@dataclass(slots=True)
class JobFacts:
    definitions: list[Definition]
    skipped: list[tuple[int, int]] = field(default_factory=list)
    """Ranges ``(after, through]`` a resume skipped."""
    skipped_runs: set[int] = field(default_factory=set)
    """Runs an overlap rule skipped (``OccurrenceSkipped``), one event each."""
    pauses: list[list[int | None]] = field(default_factory=list)
    """``[paused at, resumed at or None]``, in order."""

    def created_at(self, scheduled: int, at: int) -> int | None:
        """Under automatic dispatch: the tick by which the run at ``scheduled`` was created, as
        known at tick ``at``; None while a pause holds it back. A run due at the pause's own tick
        counts as held back (it may have been created just before the pause): the checks that
        use this stay sound, at the cost of not judging that tick. So does a pause taken again at
        the tick of a resume: the log cannot tell whether the tick's runs were created between
        the two, so the pauses count as one."""
        for paused, resumed in self._merged_pauses():
            assert paused is not None
            if paused > scheduled or paused > at:
                break
            if resumed is None or resumed > at:
                return None
            if scheduled <= resumed:
                return resumed
        return scheduled

    def _merged_pauses(self) -> list[list[int | None]]:
        merged: list[list[int | None]] = []
        for paused, resumed in self.pauses:
            if merged and merged[-1][1] == paused:
                merged[-1][1] = resumed
            else:
                merged.append([paused, resumed])
        return merged


@dataclass(slots=True)
class Facts:
    jobs: dict[str, JobFacts]
    cancelled_at: dict[tuple[str, int], int]
    """When each cancelled occurrence was cancelled."""
    backfilled_at: dict[tuple[str, int], int] = field(default_factory=dict)
    """When a backfill created each run it created (after its logical tick)."""


FACT_KINDS = (
    ev.JobScheduled,
    ev.JobModified,
    ev.OccurrencesSkipped,
    ev.OccurrenceSkipped,
    ev.JobPaused,
    ev.JobResumed,
    ev.OccurrenceCancelled,
    ev.RunBackfilled,
)
"""The events the facts come from: a few a job, where a run logs its attempts by the million."""


class FactsReader:
    """The facts, read from the log a stretch at a time (each event once, in order)."""

    def __init__(self) -> None:
        self.jobs: dict[str, JobFacts] = {}
        self.cancelled_at: dict[tuple[str, int], int] = {}
        self.backfilled_at: dict[tuple[str, int], int] = {}

    def read(self, engine: Engine, start: int, specs: dict[int, JobSpec]) -> None:
        """The log's events from index ``start`` on; ``specs`` holds the definitions observed,
        by log index."""
        jobs = self.jobs
        for index, event in engine.log.select(FACT_KINDS, start):
            match event:
                case ev.JobScheduled(job_id=job_id):
                    jobs[job_id] = JobFacts([Definition(event.tick, None, specs.get(index))])
                case ev.JobModified(job_id=job_id, fields=changed) if job_id in jobs:
                    definition = Definition(event.tick, frozenset(changed), specs.get(index))
                    jobs[job_id].definitions.append(definition)
                case ev.OccurrencesSkipped(job_id=job_id, after=after, through=through) if (
                    job_id in jobs
                ):
                    jobs[job_id].skipped.append((after, through))
                case ev.OccurrenceSkipped(job_id=job_id, scheduled=scheduled) if job_id in jobs:
                    jobs[job_id].skipped_runs.add(scheduled)
                case ev.JobPaused(job_id=job_id) if job_id in jobs:
                    jobs[job_id].pauses.append([event.tick, None])
                case ev.JobResumed(job_id=job_id) if job_id in jobs and jobs[job_id].pauses:
                    jobs[job_id].pauses[-1][1] = event.tick
                case ev.OccurrenceCancelled(job_id=job_id, scheduled=scheduled):
                    self.cancelled_at[(job_id, scheduled)] = event.tick
                case ev.RunBackfilled(job_id=job_id, scheduled=scheduled):
                    self.backfilled_at[(job_id, scheduled)] = event.tick

    def facts(self) -> Facts:
        """The facts so far (see :meth:`held_to_now` for each job's last definition)."""
        return Facts(self.jobs, self.cancelled_at, self.backfilled_at)

    def held_to_now(self, engine: Engine, job_ids: Iterable[str]) -> None:
        """The last definition of each of ``job_ids`` is the one the engine holds now."""
        for job_id in job_ids:
            known, job = self.jobs.get(job_id), engine.query.job(job_id)
            if known is not None and job is not None:
                known.definitions[-1].spec = job.spec

    def forget_runs(self, runs: Iterable[Occurrence]) -> None:
        """Runs checked for good (archived): their cancel and backfill ticks are not asked
        again."""
        cancelled, backfilled = self.cancelled_at, self.backfilled_at
        if cancelled or backfilled:
            for run in runs:
                cancelled.pop(run.key, None)
                backfilled.pop(run.key, None)
