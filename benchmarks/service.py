"""``cronlapse serve`` on loopback with SQLite: creations/s, GETs/s, and restart time.

Throughput runs a real server process (``python -m cronlapse serve``) on a free 127.0.0.1 port with
a fresh SQLite file, and ``--clients`` threads, each with its own keep-alive connection:

- creations: ``POST /job`` of one-time jobs an hour ahead (each is one journal commit);
- GETs: ``GET /job/{id}`` of the jobs created;
- yardsticks in the same run: ``GET /health`` (the HTTP stack alone: no token, no engine) and
  bare SQLite commits of the same rows (the journal's floor, no HTTP).

Restart builds, in process, the journal the issue names (``--jobs`` hourly jobs over ``--days``
days, every run completed by its executor's report) through the same ``LiveService`` a server
uses, then times ``LiveService.open()`` (what a restart does before it listens) from the latest
snapshot and from the whole journal; the yardstick is reading the journal's rows alone.

Run: ``python benchmarks/service.py`` (``--jobs 100 --days 3`` for a quick pass). Times are
wall-clock (time.perf_counter); they swing with the machine's load, the ratios less.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import delete

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service_parts import BatchedJournal, Wall, free_port  # noqa: E402

from cronlapse.service.clock import Anchor, LiveClock  # noqa: E402
from cronlapse.service.config import Config  # noqa: E402
from cronlapse.service.live import LiveService  # noqa: E402
from cronlapse.service.store import Entry, open_store  # noqa: E402
from cronlapse.service.store.sql import SqlStore  # noqa: E402
from cronlapse.service.store.sql.schema import snapshots as snapshot_table  # noqa: E402
from engine.model.records import OccurrenceState  # noqa: E402

TOKEN = "benchmark-token"
HOUR = 3600


# ------------------------------------------------------------------ throughput


def _start_server(directory: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, CRONLAPSE_TOKEN=TOKEN, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "cronlapse", "serve", "--db", f"sqlite:///{directory}/b.db"]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=directory,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/health").status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start")


def _rate(url: str, clients: int, count: int, request) -> float:
    """Requests per second: ``count`` requests split over ``clients`` threads, each with one
    keep-alive connection (the standard library's client: it costs the server's two cores less
    than httpx, so more of what is measured is the server)."""
    errors: list[str] = []
    port = int(url.rsplit(":", 1)[1])

    def work(worker: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        for number in range(worker, count, clients):
            method, path, body = request(number)
            connection.request(method, path, body=body, headers=headers)
            answer = connection.getresponse()
            text = answer.read()
            if answer.status >= 300:
                errors.append(f"{answer.status} {text[:80]!r}")
        connection.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise SystemExit(f"{len(errors)} requests failed, e.g. {errors[0]}")
    return count / elapsed


def _job(number: int) -> dict:
    return {"id": f"j{number}", "at": "+3600"}


def _commit_rate(directory: Path, count: int) -> float:
    store = open_store(f"sqlite:///{directory}/yardstick.db")
    start = time.perf_counter()
    for number in range(count):
        store.journal.append([Entry(number, 2, "schedule", _job(number))])
    elapsed = time.perf_counter() - start
    store.close()
    return count / elapsed


def throughput(count: int, clients: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        process, url = _start_server(directory)
        try:
            health = _rate(url, clients, count, lambda n: ("GET", "/health", None))
            creations = _rate(url, clients, count, lambda n: ("POST", "/job", json.dumps(_job(n))))
            gets = _rate(url, clients, count, lambda n: ("GET", f"/job/j{n}", None))
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        commits = _commit_rate(directory, count)
    print(f"throughput: {count:,} requests per measure, {clients} client threads, SQLite")
    print(f"  POST /job        {creations:8,.0f}/s   target >= 500/s")
    print(f"  GET /job/{{id}}    {gets:8,.0f}/s   target >= 2,000/s")
    print(f"  yardstick GET /health      {health:8,.0f}/s   (GETs at {gets / health:.2f}x it)")
    ratio = creations / commits
    print(f"  yardstick bare commits     {commits:8,.0f}/s   (creations at {ratio:.2f}x)")


# --------------------------------------------------------------------- restart


def build_journal(db: Path, jobs: int, days: int, workers: int) -> tuple[int, int]:
    """``jobs`` hourly jobs over ``days`` days, each run completed; returns (rows, runs)."""
    start = 1_800_000_000
    wall = Wall(float(start))
    store = SqlStore(f"sqlite:///{db}")
    batched = BatchedJournal(store)
    store.journal = batched  # type: ignore[assignment]
    config = Config(workers=workers, snapshot_every=10**12, misfire_grace=10**12)
    live = LiveService(store, LiveClock(Anchor(wall.now, start, 1.0), wall), config)
    live.open()
    for number in range(jobs):
        live.submit("schedule", {"id": f"job{number}", "every": HOUR, "first": f"+{HOUR}"})
    runs = 0
    running = live.engine.query.record_keys(OccurrenceState.RUNNING)
    for _ in range(days * 24):
        wall.now += HOUR
        live.advance_clock()
        while running:
            for job_id, scheduled in list(running):
                attempt = live.engine.query.record(job_id, scheduled).running_attempt
                number = attempt.number
                args = {"job": job_id, "scheduled": scheduled, "attempt": number, "ok": True}
                live.submit("complete", args)
                runs += 1
    live.snapshot()
    batched.flush()
    return batched.last_seq(), runs


def time_open(db: Path, snapshots: bool) -> tuple[float, int]:
    store = SqlStore(f"sqlite:///{db}")
    if not snapshots:
        with store.db.begin() as conn:
            conn.execute(delete(snapshot_table))
    config = Config(workers=8, snapshot_every=10**12, misfire_grace=10**12)
    frozen = LiveClock(Anchor(0.0, 0, 1.0), lambda: 0.0)  # no downtime to catch up on
    live = LiveService(store, frozen, config)
    start = time.perf_counter()
    replayed = live.open()
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed, replayed


def time_read(db: Path) -> float:
    store = open_store(f"sqlite:///{db}")
    start = time.perf_counter()
    sum(1 for _ in store.journal.rows_after(0))
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed


def restart(jobs: int, days: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        db = Path(name) / "restart.db"
        start = time.perf_counter()
        rows, runs = build_journal(db, jobs, days, workers=8)
        built = time.perf_counter() - start
        size = sum(f.stat().st_size for f in Path(name).iterdir())
        read = time_read(db)
        with_snapshot, tail = time_open(db, snapshots=True)
        without, replayed = time_open(db, snapshots=False)
    print(f"restart: {jobs:,} hourly jobs over {days} days: {runs:,} runs, {rows:,} journal rows")
    print(f"  (built in {built:.1f} s; database {size / 1e6:.0f} MB)")
    print(f"  from the latest snapshot  {with_snapshot:7.2f} s  ({tail} rows replayed; target 5 s)")
    print(f"  from the whole journal    {without:7.2f} s   ({replayed:,} rows replayed)")
    print(f"  yardstick: reading the rows alone {read:.2f} s (replay at {without / read:.1f}x it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--skip-restart", action="store_true")
    args = parser.parse_args()
    throughput(args.requests, args.clients)
    if not args.skip_restart:
        restart(args.jobs, args.days)


if __name__ == "__main__":
    main()
