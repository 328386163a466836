"""``cronlapse serve``'s restart against its history: 20,000 jobs stored, with no runs behind them
and with about a million (issue 36, item 1).

For each history length (``--hours``: each hour every job runs once, completed by its executor's
report), the database is built in process through the same ``LiveService`` a server uses (a
snapshot at its end, as a server that ran that long has), with ticks that are Unix seconds
ending now, so a restart finds no downtime to catch up on (the history is written to the store
before the clock's last reading, not by the final snapshot: that took minutes for 2,000,000
runs, which the first restart then caught up on). The build closes its database cleanly, so
SQLite checkpoints and deletes its WAL: the first restart reads no WAL the build left. Then a
real server process (``python -m cronlapse serve`` on a free loopback port) is started on it and
timed:

- to ``/health``: from the process's start to the first ``200``;
- to the first run: until a job created right after ``/health`` answers (``every: 1``) shows
  its first attempt, as a client sees it;
- RSS: the server's resident memory once that run is seen (``/proc``'s ``VmRSS``).

Also printed: the snapshot's size, the build time, and at the end each history's ratios to the
first one's (``--hours 0 ...``: to a server with no history), medians of the rounds, with the
load average. Run it with another checkout's interpreter
(``/work/main/.venv/bin/python benchmarks/restart_history.py``) to measure that code on the same
terms: the script imports ``cronlapse`` from wherever that interpreter finds it.

Run: ``python benchmarks/restart_history.py`` (``--jobs 2000 --hours 0 5`` for a quick pass).
Times are wall-clock and swing with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from service_parts import BatchedJournal, Wall, free_port

from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.config import Config
from cronlapse.service.live import LiveService
from cronlapse.service.store import CLOCK_KEY
from cronlapse.service.store.sql import SqlStore
from engine.model.records import OccurrenceState

TOKEN = "benchmark-token"
HOUR = 3600
WORKERS = 4
"""The slots the builder runs with: ``serve``'s default, so the restart keeps them."""


def build(db: Path, jobs: int, hours: int) -> tuple[int, int]:
    """``jobs`` hourly jobs that ran for ``hours`` hours up to about now, each run completed,
    their next runs half an hour away, and a snapshot at the end, at the wall clock's time (a
    restart then has no downtime to catch up on); returns (runs, the snapshot's bytes)."""
    end = int(time.time())
    first_due = end + HOUR // 2 - hours * HOUR
    start = min(first_due - 60, end)
    wall = Wall(float(start))
    store = SqlStore(f"sqlite:///{db}")
    batched = BatchedJournal(store)
    store.journal = batched  # type: ignore[assignment]
    clock = LiveClock(Anchor(float(start), start, 1.0), wall)
    store.journal.set_meta(CLOCK_KEY, clock.anchor.dumps())
    config = Config(workers=WORKERS, snapshot_every=10**12, misfire_grace=10**12)
    live = LiveService(store, clock, config)
    live.open()
    for number in range(jobs):
        live.submit("schedule", {"id": f"job{number}", "every": HOUR, "first": first_due})
    runs = 0
    running = live.engine.query.record_keys(OccurrenceState.RUNNING)
    for hour in range(hours):
        wall.now = first_due + hour * HOUR
        live.advance_clock()
        while running:
            for job_id, scheduled in list(running):
                attempt = live.engine.query.record(job_id, scheduled).running_attempt
                args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number}
                live.submit("complete", {**args, "ok": True})
                runs += 1
    # The history goes to the store before the clock's last reading: the snapshot would write
    # it first otherwise, minutes for 2,000,000 runs, and a restart would find those minutes of
    # downtime and catch up on them (a pause and a resume of every job: a second at 20,000
    # jobs, which a restart right after a live server's stop never pays).
    live.keep_history()
    wall.now = time.time()
    live.advance_clock()  # the next runs' creation, inside the scheduling window
    live.follow_clock()
    live.snapshot()
    batched.flush()
    saved = store.journal.latest_snapshot()
    store.close()
    return runs, 0 if saved is None else len(saved.state)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def restart(db: Path, probe: str) -> tuple[float, float, float]:
    """Start a server on ``db``: seconds to ``/health``, to the first run, and its RSS in MB."""
    port = free_port()
    env = dict(os.environ, CRONLAPSE_TOKEN=TOKEN)
    command = [sys.executable, "-m", "cronlapse", "serve", "--db", f"sqlite:///{db}"]
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {TOKEN}"}
    began = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=db.parent,
    )
    try:
        with httpx.Client(timeout=30) as client:
            health = _until(began, lambda: client.get(url + "/health").status_code == 200)
            made = client.post(url + "/job", json={"id": probe, "every": 1}, headers=headers)
            assert made.status_code == 201, made.text

            def ran() -> bool:
                job = client.get(f"{url}/job/{probe}", headers=headers).json()
                return any(run["attempts"] for run in job["runs"])

            first = _until(began, ran)
            return health, first, _rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=60)


def _until(began: float, condition) -> float:
    """Seconds from ``began`` until ``condition()`` holds (connection errors count as not yet)."""
    deadline = began + 600
    while time.perf_counter() < deadline:
        try:
            if condition():
                return time.perf_counter() - began
        except httpx.HTTPError:
            pass
        time.sleep(0.01)
    raise SystemExit("the server did not get there in 10 minutes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--hours", type=int, nargs="+", default=[0, 50])
    parser.add_argument("--rounds", type=int, default=2, help="restarts per database")
    args = parser.parse_args()
    print(f"python {sys.executable}; {args.jobs:,} jobs, {WORKERS} slots")
    measured: list[tuple[int, int, float, float]] = []
    """Each history's runs, snapshot bytes, median seconds to the first run, median RSS."""
    for hours in args.hours:
        with tempfile.TemporaryDirectory() as name:
            db = Path(name) / "restart.db"
            start = time.perf_counter()
            runs, snapshot = build(db, args.jobs, hours)
            built = time.perf_counter() - start
            print(
                f"{runs:>9,} runs of history: built in {built:.0f} s, "
                f"snapshot {snapshot / 1e6:.1f} MB"
            )
            firsts, sizes = [], []
            for number in range(args.rounds):
                health, first, rss = restart(db, f"probe{number}")
                firsts.append(first)
                sizes.append(rss)
                print(
                    f"  restart: /health {health:5.2f} s, first run {first:5.2f} s, "
                    f"RSS {rss:4.0f} MB"
                )
            measured.append((runs, snapshot, statistics.median(firsts), statistics.median(sizes)))
    base = measured[0]
    for runs, snapshot, first, rss in measured[1:]:
        print(
            f"{runs:,} runs against {base[0]:,}: snapshot {snapshot / base[1]:.2f}x, "
            f"first run {first / base[2]:.2f}x, RSS {rss / base[3]:.2f}x"
        )
    print("load average: " + ", ".join(f"{load:.1f}" for load in os.getloadavg()))


if __name__ == "__main__":
    main()
