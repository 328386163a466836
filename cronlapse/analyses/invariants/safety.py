"""Safety: nothing runs twice or on two workers, and the state agrees with itself and the log.

Violations found in the state concern ``engine.now``; those found replaying the log, the tick of
the event that broke the rule. The log is replayed as it grows (:class:`LogSafety`), keeping what
is live (the attempts running, the busy workers) and, compactly, the runs it finished; each run's
record is checked once (:func:`run_violations`): an archived run when it was archived, a live one
at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from cronlapse.analyses.invariants.facts import Violation
from cronlapse.analyses.invariants.finished import FinishedRuns
from engine.core import Engine
from engine.model import events as ev
from engine.model.job_rules import OverlapRule
from engine.model.records import AttemptOutcome, Occurrence, OccurrenceState

S = OccurrenceState
Key = tuple[str, int]


def state_violations(engine: Engine) -> list[str]:
    """The live state's violations (each archived run was checked when it was archived)."""
    found = []
    for key, occurrence in engine.query.live_records().items():
        found += run_violations(engine, key, occurrence)
    found += _worker_violations(engine)
    found += _index_violations(engine)
    return found


def run_violations(engine: Engine, key: Key, occurrence: Occurrence) -> list[str]:
    """One run's record: its attempts numbered 1..n, no more counted than allowed, at most one
    running, on a worker that knows it, and its state saying so."""
    found = []
    attempts = occurrence.attempts
    numbers = [attempt.number for attempt in attempts]
    running = [attempt for attempt in attempts if attempt.outcome is _RUNNING]
    if numbers != list(range(1, len(numbers) + 1)):
        found.append(f"{_name(key)}: attempts numbered {numbers}, not 1..n")
    if len(attempts) > occurrence.max_attempts:  # lost attempts do not count: a closer look
        counted = [a for a in attempts if a.outcome is not AttemptOutcome.LOST]
        if len(counted) > occurrence.max_attempts:
            found.append(
                f"{_name(key)}: {len(counted)} counted attempts exceed {occurrence.max_attempts}"
            )
    if len(running) > 1:
        found.append(f"{_name(key)}: {len(running)} attempts running at once")
    if (occurrence.state is _RUNNING_STATE) != bool(running):
        found.append(f"{_name(key)}: state {occurrence.state.value} with {len(running)} running")
    for attempt in running:
        worker = engine.query.worker(attempt.worker_id)
        if worker is None or worker.running != key:
            found.append(
                f"{_name(key)}: attempt {attempt.number} runs on {attempt.worker_id}, "
                "which does not know it"
            )
    return found


def archived_run_violations(engine: Engine, runs: Iterable[Occurrence]) -> list[str]:
    """:func:`run_violations` for each of ``runs`` (final), with the common case taken first:
    no attempt, or one numbered 1 that ended, within the attempts allowed."""
    found: list[str] = []
    for run in runs:
        attempts = run.attempts
        if (
            run.state is not _RUNNING_STATE
            and len(attempts) <= run.max_attempts
            and (
                not attempts
                or (
                    len(attempts) == 1
                    and attempts[0].number == 1
                    and attempts[0].outcome is not _RUNNING
                )
            )
        ):
            continue
        found += run_violations(engine, run.key, run)
    return found


def _name(key: Key) -> str:
    """A run as violations name it; made only for a run that has one (every run is checked)."""
    return f"{key[0]}@{key[1]}"


_RUNNING, _RUNNING_STATE = AttemptOutcome.RUNNING, S.RUNNING
"""Read once: an enum member read through its class costs a tenth of a microsecond, and the
check reads them for every run."""


def _worker_violations(engine: Engine) -> list[str]:
    found = []
    seen: dict[Key, str] = {}
    for worker_id, worker in engine.query.workers().items():
        if worker.running is None:
            continue
        if worker.running in seen:
            found.append(f"{worker.running} runs on both {seen[worker.running]} and {worker_id}")
        seen[worker.running] = worker_id
        if worker.down:
            found.append(f"worker {worker_id} is down but runs {worker.running}")
    return found


def _index_violations(engine: Engine) -> list[str]:
    found = []
    query = engine.query
    records = query.live_records()
    for state in S:
        for key in query.live_record_keys(state):
            if records[key].state is not state:
                found.append(f"{key} indexed as {state.value}")
    if sum(len(query.live_record_keys(state)) for state in S) != len(records):
        found.append("the by-state index and the occurrences disagree in size")
    return found


class LogSafety:
    """Replays the log as it grows: no dispatch of a final occurrence, no double start, one
    delivery a key; no job over its overlap limit nor pool over its slots at any point.

    The attempts started and ended are read by :func:`.replay.replay`, which keeps
    :attr:`running`, :attr:`busy` and :attr:`finished` and reports to :attr:`found`; the few
    other events come to :meth:`read_other`."""

    def __init__(
        self, rules: Mapping[str, OverlapRule], pool_of: Mapping[str, str], slots: dict[str, int]
    ) -> None:
        self.found: list[Violation] = []
        self.overlaps: list[Violation] = []
        self.pools: list[Violation] = []
        self.finished = FinishedRuns()
        self.running: dict[Key, int] = {}
        """The attempts running, by run: the number of each."""
        self.busy: dict[str, Key] = {}
        """The workers running an attempt: the run of each."""
        self._delivered: Counter = Counter()
        self._rules = rules
        """The overlap rules of the jobs that have one, kept up to date by the caller."""
        self._overlapping: dict[str, set[int]] = {}
        self._pool_of = pool_of
        self._slots = slots
        self._pool_running = dict.fromkeys(slots, 0)

    def read_other(self, event: ev.Event) -> None:
        """An event that neither starts nor ends an attempt: a run's end, a delivery."""
        match event:
            case ev.OccurrenceFailed() | ev.OccurrenceCancelled():
                self.finished.add(event.job_id, event.scheduled)
            case ev.NotificationDelivered(key=key):
                self._delivered[key] += 1
                if self._delivered[key] > 1:
                    self.found.append(Violation(event.tick, f"notification {key} delivered twice"))

    def checks_limits(self) -> bool:
        """Whether an attempt started or ended must be held to :meth:`limits` (a job with an
        overlap rule, or a pool)."""
        return bool(self._rules) or bool(self._slots)

    def limits(self, kind: type, fields: tuple) -> None:
        """An attempt started or ended, against its job's overlap rule and its pool's slots."""
        tick, job_id, scheduled = fields[0], fields[1], fields[2]
        started = kind is ev.AttemptStarted
        rule = self._rules.get(job_id)
        if rule is not None:
            runs = self._overlapping.setdefault(job_id, set())
            if started:
                runs.add(scheduled)
                if len(runs) > rule.limit:
                    text = f"{job_id} runs {len(runs)} at once, over its limit {rule.limit}"
                    self.overlaps.append(Violation(tick, text))
            else:
                runs.discard(scheduled)
        pool = self._pool_of.get(job_id)
        if pool is not None:
            if started:
                self._pool_running[pool] += 1
                if self._pool_running[pool] > self._slots[pool]:
                    text = (
                        f"pool {pool} runs {self._pool_running[pool]} attempts, over its "
                        f"{self._slots[pool]} slots"
                    )
                    self.pools.append(Violation(tick, text))
            else:
                self._pool_running[pool] -= 1


def active_overlap_violations(engine: Engine) -> list[Violation]:
    """A job with an overlap rule never has more than its limit of runs active now."""
    found = []
    for job_id, job in engine.query.jobs().items():
        rule = job.spec.overlap
        if rule is None:
            continue
        active = engine.query.active_runs(job_id)
        if active > rule.limit:
            text = f"{job_id} has {active} active runs, over {rule.limit}"
            found.append(Violation(engine.now, text))
    return found
