"""Safety: nothing runs twice or on two workers, and the state agrees with itself and the log.

Violations found in the state concern ``engine.now``; those found replaying the log, the tick of
the event that broke the rule.
"""

from __future__ import annotations

from collections import Counter

from cronlapse.analyses.invariants.facts import Violation
from cronlapse.analyses.invariants.pools import pool_violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.records import AttemptOutcome, OccurrenceState

S = OccurrenceState


def safety_violations(engine: Engine) -> list[Violation]:
    now = engine.now
    found = [Violation(now, text) for text in _occurrence_violations(engine)]
    found += [Violation(now, text) for text in _worker_violations(engine)]
    found += [Violation(now, text) for text in _index_violations(engine)]
    found += _log_violations(engine)
    found += _overlap_violations(engine)
    found += pool_violations(engine)
    return found


def _occurrence_violations(engine: Engine) -> list[str]:
    found = []
    for key, occurrence in engine.query.records().items():
        attempts = occurrence.attempts
        numbers = [attempt.number for attempt in attempts]
        running = [attempt for attempt in attempts if attempt.outcome is _RUNNING]
        if numbers != list(range(1, len(numbers) + 1)):
            found.append(f"{_name(key)}: attempts numbered {numbers}, not 1..n")
        if len(attempts) > occurrence.max_attempts:  # lost attempts do not count: a closer look
            counted = [a for a in attempts if a.outcome is not AttemptOutcome.LOST]
            if len(counted) > occurrence.max_attempts:
                found.append(
                    f"{_name(key)}: {len(counted)} counted attempts exceed "
                    f"{occurrence.max_attempts}"
                )
        if len(running) > 1:
            found.append(f"{_name(key)}: {len(running)} attempts running at once")
        if (occurrence.state is _RUNNING_STATE) != bool(running):
            found.append(
                f"{_name(key)}: state {occurrence.state.value} with {len(running)} running"
            )
        for attempt in running:
            worker = engine.query.worker(attempt.worker_id)
            if worker is None or worker.running != key:
                found.append(
                    f"{_name(key)}: attempt {attempt.number} runs on {attempt.worker_id}, "
                    "which does not know it"
                )
    return found


def _name(key: tuple[str, int]) -> str:
    """A run as violations name it; made only for a run that has one (every run is checked)."""
    return f"{key[0]}@{key[1]}"


_RUNNING, _RUNNING_STATE = AttemptOutcome.RUNNING, S.RUNNING
"""Read once: an enum member read through its class costs a tenth of a microsecond, and the
check reads them for every run."""


def _worker_violations(engine: Engine) -> list[str]:
    found = []
    seen: dict[tuple[str, int], str] = {}
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
    records = query.records()
    for state in S:
        for key in query.record_keys(state):
            if records[key].state is not state:
                found.append(f"{key} indexed as {state.value}")
    if sum(len(query.record_keys(state)) for state in S) != len(records):
        found.append("the by-state index and the occurrences disagree in size")
    return found


def _log_violations(engine: Engine) -> list[Violation]:
    """Replays the log: no dispatch of a final occurrence, no double start, one delivery a key.

    Nearly every event of a long run starts or ends an attempt: those are read from their stored
    fields (see :data:`engine.model.events.ATTEMPT_ENDS`), and only the few others are built."""
    found = []
    final: set[tuple[str, int]] = set()
    running: dict[tuple[str, int], int] = {}
    busy: dict[str, tuple[str, int]] = {}
    delivered: Counter = Counter()
    for kind, fields in engine.log.stored_since(0):
        if kind is ev.AttemptStarted:
            tick, job_id, scheduled, attempt, worker_id = fields
            key = (job_id, scheduled)
            if key in final:
                found.append(Violation(tick, f"{_name(key)} started after it ended"))
            if key in running:
                found.append(Violation(tick, f"{_name(key)} started twice at once"))
            if worker_id in busy:
                found.append(Violation(tick, f"{worker_id} given a second attempt"))
            running[key] = attempt
            busy[worker_id] = key
        elif kind in ev.ATTEMPT_ENDS:
            _, job_id, scheduled, _, worker_id = fields
            running.pop((job_id, scheduled), None)
            busy.pop(worker_id, None)
            if kind is ev.AttemptSucceeded:
                final.add((job_id, scheduled))
        else:
            match kind(*fields):
                case ev.OccurrenceFailed() | ev.OccurrenceCancelled() as event:
                    final.add((event.job_id, event.scheduled))
                case ev.NotificationDelivered(key=key) as event:
                    delivered[key] += 1
                    if delivered[key] > 1:
                        found.append(Violation(event.tick, f"notification {key} delivered twice"))
    return found


def _overlap_violations(engine: Engine) -> list[Violation]:
    """A job with an overlap rule never has more than its limit of runs active now, nor, at
    any tick of the log, more than its limit of runs running at once."""
    found = []
    rules = {}
    for job_id, job in engine.query.jobs().items():
        rule = job.spec.overlap
        if rule is None:
            continue
        rules[job_id] = rule
        active = engine.query.active_runs(job_id)
        if active > rule.limit:
            text = f"{job_id} has {active} active runs, over {rule.limit}"
            found.append(Violation(engine.now, text))
    if not rules:
        return found  # no rule to break (what most fleets have): no pass over the log
    running: dict[str, set[int]] = {}
    for _, event in engine.log.select((ev.AttemptStarted, *ev.ATTEMPT_ENDS)):
        rule = rules.get(event.job_id)
        if rule is None:
            continue
        runs = running.setdefault(event.job_id, set())
        if isinstance(event, ev.AttemptStarted):
            runs.add(event.scheduled)
            if len(runs) > rule.limit:
                text = f"{event.job_id} runs {len(runs)} at once, over its limit {rule.limit}"
                found.append(Violation(event.tick, text))
        else:
            runs.discard(event.scheduled)
    return found
