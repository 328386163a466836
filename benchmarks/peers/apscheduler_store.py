"""APScheduler 3.x as its documentation deploys it: a ``BackgroundScheduler`` in the application's
process, its jobs in the SQLAlchemy job store (SQLite or PostgreSQL, from ``--db``), a thread pool
of ``--slots`` workers. ``coalesce=True`` and no misfire limit: a late run still runs, and runs
missed while it was late are folded into one (cronlapse's ``catch_up: latest``).

Jobs are added from ``clients`` threads of the same process with ``add_job`` (APScheduler 3 has no
way to add a job from another process that its scheduler would notice). A no-op run is recorded
by the ``EVENT_JOB_EXECUTED`` listener, which carries the run's scheduled time and is called on
the worker thread as the no-op returns; a sleeping run records itself as it starts.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from contract import SLEEPER_PREFIX, Job, RunLog, arguments, serve_commands, shares

LOG: RunLog


def noop() -> None:
    """A run that does nothing; the listener records it."""


def nap(job: str, scheduled: float, seconds: float) -> None:
    LOG.started(job, scheduled)
    time.sleep(seconds)


def _record(event: JobExecutionEvent) -> None:
    if not event.job_id.startswith(SLEEPER_PREFIX):
        LOG.started(event.job_id, event.scheduled_run_time.timestamp())


def _trigger(job: Job) -> DateTrigger | IntervalTrigger:
    start = datetime.fromtimestamp(job.at, UTC)
    if job.count == 1:
        return DateTrigger(run_date=start)
    end = datetime.fromtimestamp(job.scheduled(job.count - 1) + job.every / 2, UTC)
    return IntervalTrigger(seconds=job.every, start_date=start, end_date=end)


def main() -> None:
    global LOG
    args = arguments()
    if args.setup:
        return
    LOG = RunLog(args.events)
    url = args.db.replace("postgresql://", "postgresql+psycopg://", 1)
    scheduler = BackgroundScheduler(
        jobstores={"default": SQLAlchemyJobStore(url=url)},
        executors={"default": ThreadPoolExecutor(args.slots)},
        job_defaults={"coalesce": True, "misfire_grace_time": None},
        timezone=UTC,
    )
    scheduler.add_listener(_record, EVENT_JOB_EXECUTED)
    scheduler.start()

    def add(jobs: list[Job]) -> None:
        for job in jobs:
            if job.sleep:
                scheduler.add_job(nap, _trigger(job), args=(job.id, job.at, job.sleep), id=job.id)
            else:
                scheduler.add_job(noop, _trigger(job), id=job.id)

    def create(jobs: list[Job], clients: int) -> None:
        threads = [threading.Thread(target=add, args=(share,)) for share in shares(jobs, clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    serve_commands(create)


if __name__ == "__main__":
    main()
