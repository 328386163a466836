"""A plain heap scheduler for seed 000's CronJobScheduler: the yardstick the engine must be
within 1.5x of.

Every due occurrence is materialised when a dispatch finds it due, as a record and as a heap entry
``(scheduled, Java key of the job id, job id)``; idle workers wait in a heap by Java key. A
dispatch creates what fell due, then pairs the two heaps' smallest entries. Nothing else: no
history, no events, no policies.
"""

from __future__ import annotations

import heapq

from benchmarks.baselines import rules_000 as rules
from engine.model.ordering import java_order_key

QUEUED, RUNNING, RETRY_PENDING = "QUEUED", "RUNNING", "RETRY_PENDING"
SUCCEEDED, FAILED, SCHEDULED = "SUCCEEDED", "FAILED", "SCHEDULED"


class Occurrence:
    __slots__ = ("attempt", "max_attempts", "state", "worker_id")

    def __init__(self, max_attempts: int) -> None:
        self.state = QUEUED
        self.attempt = 0
        self.max_attempts = max_attempts
        self.worker_id = ""


class HeapScheduler:
    """Seed 000 with every due occurrence in a heap."""

    def __init__(self) -> None:
        self.now = 0
        self.workers: dict[str, bytes] = {}
        """worker id -> its Java key."""
        self.idle: list[tuple[bytes, str]] = []
        self.jobs: dict[str, tuple[int, int, int, bytes]] = {}
        """job id -> (first run, interval, max attempts, Java key)."""
        self.next_due: list[tuple[int, str]] = []
        """(next schedule time not yet created, job id), one per job with times left."""
        self.pending: list[tuple[int, bytes, str]] = []
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
        key = java_order_key(job_id)
        self.jobs[job_id] = (first_run_time, interval, max_retries + 1, key)
        heapq.heappush(self.next_due, (first_run_time, job_id))
        return True

    def dispatch_jobs(self, current_time: int) -> list[str]:
        rules.require_int("current_time", current_time)
        if not self._move(current_time):
            return []
        now, jobs, pending, occurrences = self.now, self.jobs, self.pending, self.occurrences
        next_due = self.next_due
        while next_due and next_due[0][0] <= now:
            at, job_id = heapq.heappop(next_due)
            _, interval, max_attempts, key = jobs[job_id]
            while True:
                occurrences[job_id, at] = Occurrence(max_attempts)
                heapq.heappush(pending, (at, key, job_id))
                if not interval:
                    break
                at += interval
                if at > now:
                    heapq.heappush(next_due, (at, job_id))
                    break
        assigned = []
        idle = self.idle
        while pending and idle:
            at, _, job_id = heapq.heappop(pending)
            _, worker_id = heapq.heappop(idle)
            occurrence = occurrences[job_id, at]
            occurrence.state = RUNNING
            occurrence.attempt += 1
            occurrence.worker_id = worker_id
            assigned.append(f"{job_id},{at},{occurrence.attempt},{worker_id}")
        return assigned

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
        elif occurrence.attempt < occurrence.max_attempts:
            occurrence.state = RETRY_PENDING
            heapq.heappush(self.pending, (scheduled_time, self.jobs[job_id][3], job_id))
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
        if job is None or not rules.in_schedule(job[0], job[1], scheduled_time):
            return ""
        occurrence = self.occurrences.get((job_id, scheduled_time))
        return SCHEDULED if occurrence is None else occurrence.state

    def _move(self, current_time: int) -> bool:
        if not rules.move_to(self.now, current_time):
            return False
        self.now = current_time
        return True
