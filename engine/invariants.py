"""Exactly-once, checked: the invariants every engine state and event log must satisfy.

``violations(engine)`` returns a list of human-readable violations (empty when all hold). It reads
the state and the whole event log, so it costs O(state + log): run it in tests and in
``cronlapse check``, not in the engine's hot path.
"""

from __future__ import annotations

from collections import Counter

from engine import events as ev
from engine.core import Engine
from engine.model import AttemptOutcome, OccurrenceState

S = OccurrenceState


def violations(engine: Engine, horizon: int = 10_000) -> list[str]:
    """Every broken invariant of ``engine``; ``horizon`` bounds the per-job schedule walk."""
    found: list[str] = []
    found += _occurrence_violations(engine)
    found += _worker_violations(engine)
    found += _log_violations(engine)
    found += _creation_violations(engine, horizon)
    found += _index_violations(engine)
    return found


def _occurrence_violations(engine: Engine) -> list[str]:
    found = []
    for key, occurrence in engine.occurrences.items():
        name = f"{key[0]}@{key[1]}"
        numbers = [attempt.number for attempt in occurrence.attempts]
        if numbers != list(range(1, len(numbers) + 1)):
            found.append(f"{name}: attempts numbered {numbers}, not 1..n")
        counted = [a for a in occurrence.attempts if a.outcome is not AttemptOutcome.LOST]
        if len(counted) > occurrence.max_attempts:
            found.append(
                f"{name}: {len(counted)} counted attempts exceed {occurrence.max_attempts}"
            )
        running = [a for a in occurrence.attempts if a.outcome is AttemptOutcome.RUNNING]
        if len(running) > 1:
            found.append(f"{name}: {len(running)} attempts running at once")
        if (occurrence.state is S.RUNNING) != bool(running):
            found.append(f"{name}: state {occurrence.state.value} with {len(running)} running")
        for attempt in running:
            worker = engine.workers.get(attempt.worker_id)
            if worker is None or worker.running != key:
                found.append(
                    f"{name}: attempt {attempt.number} runs on {attempt.worker_id}, "
                    "which does not know it"
                )
    return found


def _worker_violations(engine: Engine) -> list[str]:
    found = []
    seen: dict[tuple[str, int], str] = {}
    for worker_id, worker in engine.workers.items():
        if worker.running is None:
            continue
        if worker.running in seen:
            found.append(f"{worker.running} runs on both {seen[worker.running]} and {worker_id}")
        seen[worker.running] = worker_id
        if worker.down:
            found.append(f"worker {worker_id} is down but runs {worker.running}")
    return found


def _log_violations(engine: Engine) -> list[str]:
    """Replays the log: no dispatch of a final occurrence, no double start, one delivery a key."""
    found = []
    final: set[tuple[str, int]] = set()
    running: dict[tuple[str, int], int] = {}
    busy: dict[str, tuple[str, int]] = {}
    delivered: Counter = Counter()
    for event in engine.log:
        match event:
            case ev.AttemptStarted(job_id=job_id, scheduled=scheduled, worker_id=worker_id):
                key = (job_id, scheduled)
                if key in final:
                    found.append(f"t={event.tick}: {job_id}@{scheduled} started after it ended")
                if key in running:
                    found.append(f"t={event.tick}: {job_id}@{scheduled} started twice at once")
                if worker_id in busy:
                    found.append(f"t={event.tick}: {worker_id} given a second attempt")
                running[key] = event.attempt
                busy[worker_id] = key
            case (
                ev.AttemptSucceeded() | ev.AttemptFailed() | ev.AttemptTimedOut() | ev.AttemptLost()
            ):
                running.pop((event.job_id, event.scheduled), None)
                busy.pop(event.worker_id, None)
                if isinstance(event, ev.AttemptSucceeded):
                    final.add((event.job_id, event.scheduled))
            case ev.OccurrenceFailed() | ev.OccurrenceCancelled():
                final.add((event.job_id, event.scheduled))
            case ev.NotificationDelivered(key=key):
                delivered[key] += 1
                if delivered[key] > 1:
                    found.append(f"t={event.tick}: notification {key} delivered twice")
    return found


def _creation_violations(engine: Engine, horizon: int) -> list[str]:
    """Every materialised occurrence is in its job's schedule; none before the cursor is missing
    unless a resume skipped it."""
    found = []
    skipped: dict[str, list[tuple[int, int]]] = {}
    submitted: dict[str, int] = {}
    modified: set[str] = set()
    for event in engine.log:
        if isinstance(event, ev.OccurrencesSkipped):
            skipped.setdefault(event.job_id, []).append((event.after, event.through))
        elif isinstance(event, ev.JobScheduled):
            submitted[event.job_id] = event.tick
        elif isinstance(event, ev.JobModified):
            modified.add(event.job_id)
    for job_id, job in engine.jobs.items():
        if job.next_due is None or job_id in modified:
            continue
        schedule = job.spec.schedule
        tick = schedule.first_at_or_after(submitted[job_id])
        for _ in range(horizon):
            if tick is None or tick >= job.next_due:
                break
            in_skip = any(after < tick <= through for after, through in skipped.get(job_id, ()))
            if (job_id, tick) not in engine.occurrences and not in_skip:
                found.append(f"{job_id}@{tick} fell behind the cursor without being created")
            tick = schedule.first_at_or_after(tick + 1)
    for job_id, scheduled in engine.occurrences:
        if not engine.jobs[job_id].spec.schedule.contains(scheduled) and job_id not in modified:
            found.append(f"{job_id}@{scheduled} is not in its job's schedule")
    return found


def _index_violations(engine: Engine) -> list[str]:
    found = []
    for state, keys in engine.by_state.items():
        for key in keys:
            if engine.occurrences[key].state is not state:
                found.append(f"{key} indexed as {state.value}")
    if sum(len(keys) for keys in engine.by_state.values()) != len(engine.occurrences):
        found.append("the by-state index and the occurrences disagree in size")
    return found
