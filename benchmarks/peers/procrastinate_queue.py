"""procrastinate 3 as its documentation deploys it: an ``App`` on PostgreSQL (psycopg 3's pool),
one worker with ``concurrency=--slots`` running async tasks. A job due later is deferred with
``schedule_at``; the worker polls for due jobs every 0.1 s (``fetch_job_polling_interval``: the
default 5 s suits a queue, not jobs due at a given second).

procrastinate's periodic tasks are declared in code, one decorator each, so jobs that repeat and
are created at run time are what its documentation suggests for them: a task that defers its own
next run (``count`` runs, ``every`` seconds apart, each at its exact time). Clients defer from
``clients`` concurrent tasks sharing the app's pool, as web handlers would.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime

from contract import Job, RunLog, arguments, serve_commands, shares
from procrastinate import App, PsycopgConnector

LOG: RunLog
app = App(connector=PsycopgConnector())


@app.task(name="run")
async def run(job: str, at: float, every: float, count: int, index: int, sleep: float) -> None:
    spec = Job(job, at, every, count, sleep)
    LOG.started(job, spec.scheduled(index))
    if index + 1 < count:
        await _defer(spec, index + 1)
    if sleep:
        await asyncio.sleep(sleep)


async def _defer(job: Job, index: int) -> None:
    when = datetime.fromtimestamp(job.scheduled(index), UTC)
    await run.configure(schedule_at=when).defer_async(
        job=job.id, at=job.at, every=job.every, count=job.count, index=index, sleep=job.sleep
    )


async def _create(jobs: list[Job], clients: int) -> None:
    async def client(share: list[Job]) -> None:
        for job in share:
            await _defer(job, 0)

    await asyncio.gather(*(client(share) for share in shares(jobs, clients)))


async def main() -> None:
    args = arguments()
    connector = PsycopgConnector(conninfo=args.db, min_size=1, max_size=12)
    with app.replace_connector(connector):
        async with app.open_async():
            if args.setup:
                await app.schema_manager.apply_schema_async()
            else:
                await _work(args.events, args.slots)


async def _work(events: str, slots: int) -> None:
    global LOG
    LOG = RunLog(events)
    loop = asyncio.get_running_loop()

    def create(jobs: list[Job], clients: int) -> None:
        asyncio.run_coroutine_threadsafe(_create(jobs, clients), loop).result()

    threading.Thread(target=serve_commands, args=(create,), daemon=True).start()
    await app.run_worker_async(
        concurrency=slots, fetch_job_polling_interval=0.1, install_signal_handlers=False
    )


if __name__ == "__main__":
    asyncio.run(main())
