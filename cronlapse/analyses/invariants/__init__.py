"""Exactly-once, checked: the invariants every engine state and event log must satisfy.

``violations(engine)`` returns every broken invariant as a :class:`Violation` with the tick it
concerns (an empty list when all hold), in three parts:

- safety (:mod:`.safety`): nothing runs twice or on two workers, the state and the log agree;
- creation (:mod:`.definitions`): every due run is created once, in the schedule and with the
  values of the definition its job had when it was created, modified jobs included;
- liveness (:mod:`.liveness`): under automatic dispatch no run waits at the end of a tick while a
  worker that could take it is idle, and a run still waiting at the end is reported.

A :class:`Checker` follows a run: each ``observe()`` reads the events since the last one and
the runs archived since (O(new events)), and keeps what is live (runs waiting or running, busy
workers) or compact (per job, a column of the runs the log finished); ``violations()`` adds what
the state at the end says. So a long run can release the log as it goes, and an engine that
archives its finished runs has each one checked once, as it was archived: the engine hands the
checker the records it archives (``Query.follow_archive``), so none is read back from the
archive's columns (that read cost more than the checks). Before such an engine forgets its
finished runs, :meth:`Checker.walk_before` walks what it is to forget behind each job's cursor,
so the end's walk does not look for runs the engine no longer holds. ``violations(engine)``
reads the whole log at once.

The engine forgets a job's earlier definitions once no waiting run needs them. A checker that
observes after each tick keeps them, so the runs created under them are checked against them
too; ``violations(engine)`` alone knows each job's current definition and accepts, for runs that
may have been created under an earlier one, any values.
"""

from __future__ import annotations

from cronlapse.analyses.invariants.definitions import (
    CreationCheck,
    WalkedBehind,
    creation_violations,
)
from cronlapse.analyses.invariants.facts import FACT_KINDS, FactsReader, Violation
from cronlapse.analyses.invariants.liveness import LivenessReplay
from cronlapse.analyses.invariants.pools import PoolTicks
from cronlapse.analyses.invariants.replay import replay
from cronlapse.analyses.invariants.safety import (
    LogSafety,
    active_overlap_violations,
    archived_run_violations,
    state_violations,
)
from engine.core import Engine
from engine.model import events as ev
from engine.model.job_rules import OverlapRule
from engine.model.policies import DispatchMode
from engine.model.records import Job, JobSpec

__all__ = ["Checker", "Violation", "violations"]


class Checker:
    """The invariants of one engine, read as it runs, with the job definitions seen meanwhile."""

    observe_at_once: tuple[type, ...] = FACT_KINDS
    """The events after whose step :meth:`observe` must be called, where a caller may otherwise
    observe after many steps at once: a job's definition is read from the engine as it stands
    (a later step may change it), and the facts about jobs (pauses, skips, cancels) are those
    the other checks of the same observation judge by. The others (attempts, retries, workers,
    notifications) are replayed from the log alone, each once and in order, so the checks find
    the same however many steps one observation reads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._specs: dict[int, JobSpec] = {}
        """Log index of a JobScheduled or JobModified event -> the definition it left."""
        self._handed = engine.query.follow_archive()
        """The runs the engine archived since the last observation, as it archived them."""
        self._start(0)

    def _start(self, read: int) -> None:
        """Read from the start of the log (again, after a rewind: the specs kept are those of
        the events the log still holds)."""
        engine = self.engine
        self._specs = {i: spec for i, spec in self._specs.items() if i < read}
        self._read = 0
        self._archived = 0
        self._rules: dict[str, OverlapRule] = {}
        self._pool_of: dict[str, str] = {}
        slots = dict(engine.policy.pools)
        self._facts = FactsReader()
        self._safety = LogSafety(self._rules, self._pool_of, slots)
        self._liveness = (
            LivenessReplay(self._facts.jobs, PoolTicks(slots, self._pool_of), self._safety.busy)
            if engine.policy.dispatch is DispatchMode.AUTO
            else None
        )
        self._archived_found: list[str] = []
        self._archived_created: list[Violation] = []
        self._creation = CreationCheck(engine, self._facts.facts())
        self._walked = WalkedBehind()

    def observe(self) -> None:
        """Read the events since the last call and check the runs archived since. Each job's
        definition now is the one its last new JobScheduled or JobModified event left (earlier
        ones of the same call stay unknown)."""
        log = self.engine.log
        if len(log) < self._read:  # rolled back: read what the log holds again
            self._start(len(log))
        start = self._read
        # Few stretches of a long run log a fact (the demo's week: its first): a look for their
        # codes in C spares the others the two selections, which cost 190 M instructions of the
        # demo's run (a call a stored event), where the replay below costs 1,131 M.
        if log.holds_any(FACT_KINDS, start):
            self._read_facts(start)
        replay(log.stored_since(start), self._safety, self._liveness)
        self._read = len(log)
        self._check_archived()

    def _read_facts(self, start: int) -> None:
        """The definitions and facts logged from index ``start`` on (see :meth:`observe`)."""
        query = self.engine.query
        latest: dict[str, int] = {}
        for index, event in self.engine.log.select((ev.JobScheduled, ev.JobModified), start):
            latest[event.job_id] = index
        for job_id, index in latest.items():
            job = query.job(job_id)
            if job is not None:
                self._specs[index] = job.spec
                self._follow_rules(job_id, job.spec)
        self._facts.read(self.engine, start, self._specs)
        if latest:
            self._creation.definitions_changed()

    def facts_wait_for_commands(self) -> bool:
        """Whether the engine logs no event of :attr:`observe_at_once` before its next command:
        those facts come from commands (schedule, modify, pause, resume, cancel, backfill) and
        from the rules of jobs that have one acting on its own (an overlap rule, dependencies, a
        start deadline, a backfill under way). A caller may then play the ticks up to the next
        command in one stretch and observe after it, as after each step."""
        return not any(_acts_alone(job) for job in self.engine.query.jobs().values())

    def walk_before(self, horizon: int) -> None:
        """Check now that every run behind each job's cursor and before ``horizon`` was created,
        while the engine still holds them: for an engine about to forget its finished runs
        there (:meth:`engine.core.Engine.forget_archived`). Call :meth:`observe` first."""
        self._walked.walk_before(self.engine, self._creation, horizon)

    def _follow_rules(self, job_id: str, spec: JobSpec) -> None:
        """The limits the log replay holds the job's attempts to: its overlap rule and pool."""
        if spec.overlap is not None:
            self._rules[job_id] = spec.overlap
        else:
            self._rules.pop(job_id, None)
        if spec.pool:
            self._pool_of[job_id] = spec.pool
        else:
            self._pool_of.pop(job_id, None)

    def _check_archived(self) -> None:
        """Each run archived since the last call, once: its record and how it was created."""
        query, handed = self.engine.query, self._handed
        count = query.archived_count()
        if count == self._archived:
            return
        if len(handed) == count - self._archived:
            archived = handed[:]
        else:  # archived before this checker followed (or after a rewind): read them back
            archived = list(query.archived_records(self._archived))
        handed.clear()
        self._archived = count
        # No job's last definition is brought up to date here (as violations() does): this
        # follows observe(), which read each definition it met as the engine held it after the
        # step that left it, and a definition changes only by a JobModified event.
        self._archived_found += archived_run_violations(self.engine, archived)
        self._archived_created += self._creation.archived(archived)
        self._facts.forget_runs(archived)

    def violations(self, through: int | None = None) -> list[Violation]:
        """Every broken invariant, by tick. ``through`` is the last tick whose end liveness may
        judge: by default the one before ``engine.now`` (whose processing may still be open);
        pass ``now`` once the current tick has settled."""
        self.observe()
        engine = self.engine
        now = engine.now
        last = now - 1 if through is None else through
        self._facts.held_to_now(engine, self._facts.jobs)
        self._creation.definitions_changed()
        facts = self._facts.facts()
        found = [Violation(now, text) for text in self._archived_found]
        found += [Violation(now, text) for text in state_violations(engine)]
        found += self._safety.found
        found += active_overlap_violations(engine)
        found += self._safety.overlaps
        found += self._safety.pools
        found += self._archived_created
        found += creation_violations(engine, facts, self._walked, self._creation)
        if self._liveness is not None:
            found += self._liveness.violations(engine, last)
        return sorted(found, key=lambda violation: violation.tick)


def _acts_alone(job: Job) -> bool:
    """Whether a rule of the job may skip, cancel or backfill its runs between two commands."""
    spec = job.spec
    return not job.deleted and (
        spec.overlap is not None
        or bool(spec.depends_on)
        or spec.start_deadline is not None
        or job.backfill is not None
    )


def violations(engine: Engine, through: int | None = None) -> list[Violation]:
    """Every broken invariant of ``engine`` (see :meth:`Checker.violations`)."""
    return Checker(engine).violations(through)
