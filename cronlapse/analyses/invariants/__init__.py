"""Exactly-once, checked: the invariants every engine state and event log must satisfy.

``violations(engine)`` returns every broken invariant as a :class:`Violation` with the tick it
concerns (an empty list when all hold), in three parts:

- safety (:mod:`.safety`): nothing runs twice or on two workers, the state and the log agree;
- creation (:mod:`.definitions`): every due run is created once, in the schedule and with the
  values of the definition its job had when it was created, modified jobs included;
- liveness (:mod:`.liveness`): under automatic dispatch no run waits at the end of a tick while a
  worker that could take it is idle, and a run still waiting at the end is reported.

Each part reads the state and the log once, so a call costs O(state + log): run it at the end of
a run (``cronlapse check`` and ``cronlapse run`` do) or after steps in tests, never in the
engine's hot path.

The engine forgets a job's earlier definitions once no waiting run needs them. A :class:`Checker`
that ``observe()``s the engine after each tick (O(new events)) keeps them, so the runs created
under them are checked against them too; ``violations(engine)`` alone knows each job's current
definition and accepts, for runs that may have been created under an earlier one, any values.
"""

from __future__ import annotations

from cronlapse.analyses.invariants.definitions import creation_violations
from cronlapse.analyses.invariants.facts import Violation, collect_facts
from cronlapse.analyses.invariants.liveness import liveness_violations
from cronlapse.analyses.invariants.safety import safety_violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.records import JobSpec

__all__ = ["Checker", "Violation", "violations"]


class Checker:
    """The invariants of one engine, with the job definitions seen while it ran."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._read = 0
        self._specs: dict[int, JobSpec] = {}
        """Log index of a JobScheduled or JobModified event -> the definition it left."""

    def observe(self) -> None:
        """Remember the definitions set since the last call: each job's definition now is the one
        its last new JobScheduled or JobModified event left (earlier ones of the same call stay
        unknown). Costs the events since the last call."""
        log = self.engine.log
        if len(log) < self._read:  # rolled back: forget what the log no longer holds
            self._specs = {i: spec for i, spec in self._specs.items() if i < len(log)}
            self._read = len(log)
        latest: dict[str, int] = {}
        for index, event in log.select((ev.JobScheduled, ev.JobModified), self._read):
            latest[event.job_id] = index
        for job_id, index in latest.items():
            job = self.engine.query.job(job_id)
            if job is not None:
                self._specs[index] = job.spec
        self._read = len(log)

    def violations(self, through: int | None = None) -> list[Violation]:
        """Every broken invariant, by tick. ``through`` is the last tick whose end liveness may
        judge: by default the one before ``engine.now`` (whose processing may still be open);
        pass ``now`` once the current tick has settled."""
        engine = self.engine
        last = engine.now - 1 if through is None else through
        facts = collect_facts(engine, self._specs)
        found = safety_violations(engine)
        found += creation_violations(engine, facts)
        found += liveness_violations(engine, facts, last)
        return sorted(found, key=lambda violation: violation.tick)


def violations(engine: Engine, through: int | None = None) -> list[Violation]:
    """Every broken invariant of ``engine`` (see :meth:`Checker.violations`)."""
    return Checker(engine).violations(through)
