"""A lazy scheduler for seed 000's CronJobScheduler: due occurrences stay implicit until assigned.

Each job keeps a cursor, its earliest schedule time not yet assigned a first attempt, and has one
heap entry for it: in ``waiting`` (keyed by time) until a dispatch finds it due, then in ``ready``
(keyed like any pending occurrence: time, then Java key of the job id). Assigning the cursor's
occurrence records it and moves the cursor one interval on. Retries are explicit ``ready`` entries.
The work is per assignment, not per due occurrence; the engine promises the same.

Status needs no record for an unassigned occurrence: at or after the cursor it is QUEUED when a
dispatch has created it (the cursor is in ``ready`` and the time is at most the last dispatch's),
SCHEDULED otherwise. Every time before the cursor was assigned, so it has a record.
"""

from __future__ import annotations

import heapq

from benchmarks.baselines import rules_000 as rules
from engine.model.ordering import java_order_key

QUEUED, RUNNING, RETRY_PENDING = "QUEUED", "RUNNING", "RETRY_PENDING"
SUCCEEDED, FAILED, SCHEDULED = "SUCCEEDED", "FAILED", "SCHEDULED"
NO_MORE = -1
"""The cursor of a one-time job whose occurrence was assigned."""


class Job:
    __slots__ = ("cursor", "first", "interval", "key", "max_attempts", "ready")

    def __init__(self, job_id: str, first: int, interval: int, max_attempts: int) -> None:
        self.first = first
        self.interval = interval
        self.max_attempts = max_attempts
        self.key = java_order_key(job_id)
        self.cursor = first
        self.ready = False
        """Whether the cursor's occurrence has been created (its entry is in ``ready``)."""


class Occurrence:
    __slots__ = ("attempt", "state", "worker_id")

    def __init__(self, worker_id: str) -> None:
        self.state = RUNNING
        self.attempt = 1
        self.worker_id = worker_id


class LazyScheduler:
    """Seed 000 with one heap entry per job, whatever its number of due occurrences."""

    def __init__(self) -> None:
        self.now = 0
        self.last_dispatch = -1
        self.workers: dict[str, bytes] = {}
        """worker id -> its Java key."""
        self.idle: list[tuple[bytes, str]] = []
        self.jobs: dict[str, Job] = {}
        self.waiting: list[tuple[int, str]] = []
        self.ready: list[tuple[int, bytes, str, bool]] = []
        """(scheduled, job key, job id, is a retry)."""
        self.occurrences: dict[tuple[str, int], Occurrence] = {}

    def register_worker(self, worker_id: str) -> bool:
        rules.require_str("worker_id", worker_id)
        if not rules.valid_id(worker_id) or worker_id in self.workers:
            return False
        key = self.workers[worker_id] = java_order_key(worker_id)
        heapq.heappush(self.idle, (key, worker_id))
        return True

    def schedule_job(
        self, job_id: str, first_run_time: int, interval: int, max_retries: int, current_time: int
    ) -> bool:
        rules.require_str("job_id", job_id)
        rules.require_int("first_run_time", first_run_time)
        rules.require_int("interval", interval)
        rules.require_int("max_retries", max_retries)
        rules.require_int("current_time", current_time)
        if not self._move(current_time):
            return False
        if (
            not rules.valid_id(job_id)
            or job_id in self.jobs
            or not rules.valid_job(first_run_time, interval, max_retries, current_time)
        ):
            return False
        self.jobs[job_id] = Job(job_id, first_run_time, interval, max_retries + 1)
        heapq.heappush(self.waiting, (first_run_time, job_id))
        return True

    def dispatch_jobs(self, current_time: int) -> list[str]:
        rules.require_int("current_time", current_time)
        if not self._move(current_time):
            return []
        now, jobs, waiting, ready = self.now, self.jobs, self.waiting, self.ready
        self.last_dispatch = now
        while waiting and waiting[0][0] <= now:
            at, job_id = heapq.heappop(waiting)
            job = jobs[job_id]
            job.ready = True
            heapq.heappush(ready, (at, job.key, job_id, False))
        assigned = []
        idle, occurrences = self.idle, self.occurrences
        while ready and idle:
            at, key, job_id, retry = heapq.heappop(ready)
            _, worker_id = heapq.heappop(idle)
            if retry:
                occurrence = occurrences[job_id, at]
                occurrence.state = RUNNING
                occurrence.attempt += 1
                occurrence.worker_id = worker_id
            else:
                occurrence = occurrences[job_id, at] = Occurrence(worker_id)
                self._advance_cursor(jobs[job_id], job_id, key)
            assigned.append(f"{job_id},{at},{occurrence.attempt},{worker_id}")
        return assigned

    def _advance_cursor(self, job: Job, job_id: str, key: bytes) -> None:
        """The cursor's occurrence was assigned: the next one is created if already due."""
        if not job.interval:
            job.cursor, job.ready = NO_MORE, False
            return
        job.cursor += job.interval
        if job.cursor <= self.now:
            heapq.heappush(self.ready, (job.cursor, key, job_id, False))
        else:
            job.ready = False
            heapq.heappush(self.waiting, (job.cursor, job_id))

    def complete_job(
        self,
        job_id: str,
        scheduled_time: int,
        attempt_number: int,
        successful: bool,
        current_time: int,
    ) -> bool:
        rules.require_str("job_id", job_id)
        rules.require_int("scheduled_time", scheduled_time)
        rules.require_int("attempt_number", attempt_number)
        rules.require_bool("successful", successful)
        rules.require_int("current_time", current_time)
        if not self._move(current_time):
            return False
        occurrence = self.occurrences.get((job_id, scheduled_time))
        if (
            occurrence is None
            or occurrence.state != RUNNING
            or occurrence.attempt != attempt_number
        ):
            return False
        worker_id = occurrence.worker_id
        heapq.heappush(self.idle, (self.workers[worker_id], worker_id))
        if successful:
            occurrence.state = SUCCEEDED
        elif occurrence.attempt < self.jobs[job_id].max_attempts:
            occurrence.state = RETRY_PENDING
            heapq.heappush(self.ready, (scheduled_time, self.jobs[job_id].key, job_id, True))
        else:
            occurrence.state = FAILED
        return True

    def get_job_status(self, job_id: str, scheduled_time: int, current_time: int) -> str:
        rules.require_str("job_id", job_id)
        rules.require_int("scheduled_time", scheduled_time)
        rules.require_int("current_time", current_time)
        if not self._move(current_time) or not 0 <= scheduled_time <= rules.MAX_TIME:
            return ""
        job = self.jobs.get(job_id)
        if job is None or not rules.in_schedule(job.first, job.interval, scheduled_time):
            return ""
        occurrence = self.occurrences.get((job_id, scheduled_time))
        if occurrence is not None:
            return occurrence.state
        return QUEUED if job.ready and scheduled_time <= self.last_dispatch else SCHEDULED

    def _move(self, current_time: int) -> bool:
        if not rules.move_to(self.now, current_time):
            return False
        self.now = current_time
        return True
