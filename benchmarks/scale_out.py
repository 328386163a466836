"""Scale-out on PostgreSQL: runs per second by worker processes, creations, and failover time.

Everything is real and on loopback: a PostgreSQL server started for the run
(tests/service/pg_cluster.py: ``initdb`` + ``pg_ctl`` into a temporary directory), ``cronlapse
serve`` processes and ``cronlapse worker`` processes.

- **runs per second** with 1, 2, 4 and 8 workers (``--slots`` each): ``--runs`` one-shot jobs,
  all due at one tick a few seconds after they are created, run by an executor that takes
  ``--work`` seconds (``/bin/sleep``); the rate is the runs divided by the span between the
  first and the last ``complete`` row's commit time in the journal. Yardsticks in the same run:
  the single process (``serve`` without a role, its own slots, as many as one worker's) on
  SQLite and on PostgreSQL.
- **creations per second**: ``POST /job`` from ``--clients`` threads to the single process on
  SQLite (the yardstick), to the active scheduler, and to 1 and 2 API processes
  (``serve --role api``: the inbox, answered by the scheduler), the clients shared among them.
- **failover**: a job every tick runs on one worker; the active scheduler is SIGKILLed; the time
  until the standby answers ``/health`` and until the first run it dispatches starts.

Run: ``python benchmarks/scale_out.py`` (``--runs 200`` for a quick pass; ``--failover-only``
for the failover alone, the speed tests/service/test_roles.py does not assert). The machine's
load swings absolute times; compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import func, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cronlapse.service.store.sql.db import open_database  # noqa: E402
from cronlapse.service.store.sql.schema import journal  # noqa: E402
from tests.service.pg_cluster import Cluster  # noqa: E402

TOKEN = "benchmark-token-0123456789"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
LEAD = 6
"""Seconds between the benchmark's start of creations and the runs' common due tick."""


def _port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Processes:
    """The processes of one measurement, all killed at the end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.started: list[subprocess.Popen] = []
        self.env = dict(os.environ, PYTHONPATH=str(ROOT), CRONLAPSE_TOKEN=TOKEN)

    def spawn(self, name: str, *args: str) -> subprocess.Popen:
        log = open(self.directory / f"{name}.log", "wb")  # noqa: SIM115 (the process keeps it)
        process = subprocess.Popen(
            [sys.executable, "-m", "cronlapse", *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.env,
            cwd=self.directory,
        )
        self.started.append(process)
        return process

    def serve(self, name: str, db: str, config: Path, *options: str) -> str:
        port = _port()
        self.spawn(
            name, "serve", "--db", db, "--port", str(port), "--config", str(config), *options
        )
        return f"http://127.0.0.1:{port}"

    def worker(self, name: str, db: str, config: Path, slots: int) -> None:
        self.spawn(name, "worker", "--db", db, "--slots", str(slots), "--config", str(config))
        self.wait_for(name, "slots")

    def wait_for(self, name: str, text: str) -> None:
        deadline = time.monotonic() + 60
        while text not in (self.directory / f"{name}.log").read_text():
            if time.monotonic() > deadline:
                raise SystemExit((self.directory / f"{name}.log").read_text())
            time.sleep(0.05)

    def kill(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()


def _healthy(url: str, timeout: float = 60) -> float:
    """Wait until ``url`` answers /health; returns when (time.monotonic)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url + "/health", timeout=1.0).status_code == 200:
                return time.monotonic()
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"{url} did not start")
        time.sleep(0.02)


def _post(url: str | list[str], bodies: list[dict], clients: int) -> float:
    """POST every body from ``clients`` threads (spread over the URLs); returns creations per
    second."""
    urls = [url] if isinstance(url, str) else url
    chunks = [bodies[number::clients] for number in range(clients)]

    def send(target: str, chunk: list[dict]) -> None:
        with httpx.Client(base_url=target, headers=HEADERS, timeout=60) as client:
            for body in chunk:
                assert client.post("/job", json=body).status_code == 201

    threads = [
        threading.Thread(target=send, args=(urls[number % len(urls)], chunk))
        for number, chunk in enumerate(chunks)
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(bodies) / (time.perf_counter() - began)


def _config(directory: Path, slots: int, work: float) -> Path:
    path = directory / "config.yaml"
    path.write_text(
        f'workers: {slots}\nexecutors:\n  work:\n    argv: ["/bin/sleep", "{work}"]\n',
        encoding="utf-8",
    )
    return path


def _completion_rate(db: str, runs: int) -> float:
    """Runs per second: the runs over the span of their ``complete`` rows' commits."""
    engine = open_database(db)
    deadline = time.monotonic() + 600
    query = select(func.count(), func.min(journal.c.wall), func.max(journal.c.wall)).where(
        journal.c.verb == "complete"
    )
    while True:
        with engine.connect() as conn:
            count, first, last = conn.execute(query).one()
        if count >= runs:
            engine.dispose()
            return (count - 1) / (last - first)
        if time.monotonic() > deadline:
            raise SystemExit(f"only {count} of {runs} runs completed")
        time.sleep(0.2)


def _runs(url: str, runs: int, clients: int) -> None:
    due = int(time.time()) + LEAD
    bodies = [{"id": f"run-{number}", "at": due, "run": "work"} for number in range(runs)]
    _post(url, bodies, clients)
    if time.time() > due:
        raise SystemExit("creations outlasted the lead: raise LEAD or lower --runs")


def runs_per_second(
    cluster: Cluster, workers: int | None, args: argparse.Namespace, sqlite: bool = False
) -> float:
    """With ``workers`` worker processes behind a scheduler, or (None) the single process."""
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        processes = Processes(directory)
        try:
            config = _config(directory, args.slots, args.work)
            db = f"sqlite:///{directory / 'c.db'}" if sqlite else cluster.database()
            if workers is None:
                url = processes.serve("serve", db, config)
            else:
                url = processes.serve("scheduler", db, config, "--role", "scheduler")
                for number in range(workers):
                    processes.worker(f"worker{number}", db, config, args.slots)
            _healthy(url)
            _runs(url, args.runs, args.clients)
            return _completion_rate(db, args.runs)
        finally:
            processes.kill()


def creations_per_second(cluster: Cluster, args: argparse.Namespace, sqlite: bool) -> float:
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        processes = Processes(directory)
        try:
            config = _config(directory, 1, args.work)
            db = f"sqlite:///{directory / 'c.db'}" if sqlite else cluster.database()
            options = () if sqlite else ("--role", "scheduler")
            url = processes.serve("serve", db, config, *options)
            _healthy(url)
            bodies = [{"id": f"c-{number}", "every": 86400} for number in range(args.creations)]
            return _post(url, bodies, args.clients)
        finally:
            processes.kill()


def api_creations_per_second(cluster: Cluster, args: argparse.Namespace, apis: int) -> float:
    """Creations through ``apis`` API processes in front of one active scheduler."""
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        processes = Processes(directory)
        try:
            config = _config(directory, 1, args.work)
            db = cluster.database()
            _healthy(processes.serve("scheduler", db, config, "--role", "scheduler"))
            urls = [processes.serve(f"api{n}", db, config, "--role", "api") for n in range(apis)]
            for url in urls:
                _healthy(url)
            bodies = [{"id": f"c-{number}", "every": 86400} for number in range(args.creations)]
            return _post(urls, bodies, args.clients)
        finally:
            processes.kill()


def failover(cluster: Cluster) -> tuple[float, float]:
    """Seconds from the active scheduler's SIGKILL to the standby's /health, and to the
    start of the first run the standby dispatched."""
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        processes = Processes(directory)
        starts = directory / "starts.txt"
        try:
            (directory / "config.yaml").write_text(
                "workers: 1\nexecutors:\n  stamp:\n"
                f'    argv: ["/bin/sh", "-c", "date +%s.%N >> {starts}"]\n',
                encoding="utf-8",
            )
            config = directory / "config.yaml"
            db = cluster.database()
            active = processes.serve("a", db, config, "--role", "scheduler")
            _healthy(active)
            standby = processes.serve("b", db, config, "--role", "scheduler")
            processes.wait_for("b", "standby")
            processes.worker("worker", db, config, 2)
            body = {"id": "tick", "every": 1, "run": "stamp"}
            httpx.post(active + "/job", json=body, headers=HEADERS, timeout=10)
            time.sleep(3)
            processes.started[0].send_signal(signal.SIGKILL)
            killed_wall, killed = time.time(), time.monotonic()
            healthy = _healthy(standby) - killed
            deadline = time.monotonic() + 30
            while True:
                after = [float(x) for x in starts.read_text().split() if float(x) > killed_wall]
                if after:
                    return healthy, min(after) - killed_wall
                if time.monotonic() > deadline:
                    raise SystemExit("the standby dispatched nothing")
                time.sleep(0.05)
        finally:
            processes.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--slots", type=int, default=4, help="slots per worker process")
    parser.add_argument("--work", type=float, default=0.1, help="seconds each run takes")
    parser.add_argument("--creations", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--creations-only", action="store_true", help="measure the creations alone")
    parser.add_argument("--failover-only", action="store_true", help="measure the failover alone")
    args = parser.parse_args()
    cluster = Cluster().start()
    try:
        if args.failover_only:
            print(f"load average at start: {os.getloadavg()[0]:.1f}")
            _failover(cluster)
            return
        print(f"runs: {args.runs} of {args.work} s each; {args.slots} slots per worker process")
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
        if not args.creations_only:
            _runs_table(cluster, args)
        sqlite = creations_per_second(cluster, args, sqlite=True)
        postgres = creations_per_second(cluster, args, sqlite=False)
        print(
            f"creations ({args.clients} clients): single process, SQLite {sqlite:.0f}/s; ", end=""
        )
        print(f"active scheduler, PostgreSQL {postgres:.0f}/s ({postgres / sqlite:.2f}x)")
        for apis in (1, 2):
            rate = api_creations_per_second(cluster, args, apis)
            print(f"  through {apis} API process(es): {rate:.0f}/s ({rate / sqlite:.2f}x)")
        if args.creations_only:
            return
        _failover(cluster)
    finally:
        cluster.stop()


def _failover(cluster: Cluster) -> None:
    healthy, dispatched = failover(cluster)
    print(f"failover: kill -> standby answers {healthy:.2f} s; ", end="")
    print(f"kill -> first run {dispatched:.2f} s")


def _runs_table(cluster: Cluster, args: argparse.Namespace) -> None:
    single = runs_per_second(cluster, None, args, sqlite=True)
    print(f"  single process, SQLite ({args.slots} slots): {single:7.1f} runs/s  (1.00x)")
    rate = runs_per_second(cluster, None, args)
    print(f"  single process, PostgreSQL ({args.slots} slots): {rate:7.1f} runs/s")
    for workers in (1, 2, 4, 8):
        rate = runs_per_second(cluster, workers, args)
        print(
            f"  scheduler + {workers} worker(s), PostgreSQL: {rate:7.1f} runs/s  "
            f"({rate / single:.2f}x)"
        )


if __name__ == "__main__":
    main()
