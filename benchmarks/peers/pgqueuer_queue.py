"""pgqueuer as its documentation deploys it: a ``QueueManager`` on one psycopg 3 connection,
its async entrypoint run at most ``--slots`` at once (``max_concurrent_tasks``, with the smallest
batch that allows). A job due later is enqueued with ``execute_after``; the manager's wait is
shortened to the next deferred job's time by the library itself.

pgqueuer's schedules are cron expressions declared in code (a minute at the finest), so jobs that
repeat every second and are created at run time are a job that enqueues its own next run
(``count`` runs, ``every`` seconds apart, each at its exact time). Clients enqueue from
``clients`` concurrent tasks, each on a connection of its own, as web handlers would.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import timedelta

import psycopg
from contract import Job, RunLog, arguments, serve_commands, shares
from pgqueuer import PsycopgDriver, Queries, QueueManager
from pgqueuer.models import Job as QueuedJob

ENTRYPOINT = "run"


async def _enqueue(queries: Queries, job: Job, index: int) -> None:
    payload = json.dumps({"job": job.__dict__, "index": index}).encode()
    delay = timedelta(seconds=max(0.0, job.scheduled(index) - time.time()))
    await queries.enqueue(ENTRYPOINT, payload, execute_after=delay)


async def _connect(url: str) -> Queries:
    connection = await psycopg.AsyncConnection.connect(url, autocommit=True)
    return Queries(PsycopgDriver(connection))


async def _create(url: str, jobs: list[Job], clients: int) -> None:
    async def client(share: list[Job]) -> None:
        queries = await _connect(url)
        for job in share:
            await _enqueue(queries, job, 0)

    await asyncio.gather(*(client(share) for share in shares(jobs, clients)))


async def main() -> None:
    args = arguments()
    queries = await _connect(args.db)
    if args.setup:
        await queries.install()
        return
    log = RunLog(args.events)
    follow_ups = await _connect(args.db)
    manager = QueueManager(queries)

    @manager.entrypoint(ENTRYPOINT)
    async def run(queued: QueuedJob) -> None:
        message = json.loads(queued.payload or b"{}")
        job, index = Job(**message["job"]), message["index"]
        log.started(job.id, job.scheduled(index))
        if index + 1 < job.count:
            await _enqueue(follow_ups, job, index + 1)
        if job.sleep:
            await asyncio.sleep(job.sleep)

    loop = asyncio.get_running_loop()

    def create(jobs: list[Job], clients: int) -> None:
        asyncio.run_coroutine_threadsafe(_create(args.db, jobs, clients), loop).result()

    threading.Thread(target=serve_commands, args=(create,), daemon=True).start()
    await manager.run(batch_size=max(1, args.slots // 2), max_concurrent_tasks=args.slots)


if __name__ == "__main__":
    asyncio.run(main())
