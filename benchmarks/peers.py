"""``cronlapse serve`` against its peers, each in a process of its own, on the same workloads.

Contenders (``--contenders``, comma-separated; all by default):

- ``cronlapse-sqlite``, ``cronlapse-postgresql``: ``cronlapse serve`` with 4 worker slots and the
  ``noop`` executor (a ``sleep`` argv executor for the runs a kill interrupts), driven over HTTP
  by the harness's clients; each run's start is its ``run.started`` log line;
- ``apscheduler-sqlite``, ``apscheduler-postgresql``: APScheduler 3.x, SQLAlchemy job store;
- ``procrastinate``, ``pgqueuer``: the two PostgreSQL task queues.

The peers' scripts are in ``benchmarks/peers/`` (one each, how the library is deployed; their
contract with this harness is ``benchmarks/peers/contract.py``); install them with
``pip install -e '.[peers]'``. PostgreSQL is a throwaway server of our own
(``tests/service/pg_cluster.py``) on a free loopback port, a fresh database per trial, stopped at
the end. Everything listens on 127.0.0.1 only.

Workloads (``--workloads``; sizes shrink with ``--quick``, a smoke test's):

- ``creations``: 5,000 one-time jobs an hour ahead, from 8 concurrent clients: creations/s;
- ``burst``: 2,000 no-op jobs due at one moment, 4 slots: runs/s from that moment to the last
  start, start lag p50/p95/max, duplicates;
- ``interval``: 500 jobs every second for 30 s: runs missed and duplicated, lag p50/p95/max;
- ``restart``: 20,000 jobs stored, 2 runs executing (sleeping) and 4 no-op jobs due a moment
  later, then kill -9; the new process's time to ready (``/health`` for cronlapse, the
  library's started scheduler or worker for a peer) and to the first of those 4 runs; its RSS
  once they have run.

Rounds alternate the contenders (each round starts with the next one); a figure is the median
over rounds. Bytecode is compiled first for every contender alike (``compileall`` of the
virtualenv's packages and the repository's). Times are wall-clock: they swing with the
machine's load (the load average is printed), the ratios less.

Run: ``python benchmarks/peers.py`` (``--quick --contenders cronlapse-sqlite`` for a smoke test).
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.client import HTTPConnection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "benchmarks" / "peers"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(PEERS))

from contract import SLEEPER_PREFIX, Job  # noqa: E402
from service_parts import free_port  # noqa: E402

TOKEN = "peers-benchmark-token"
SLOTS = 4
CLIENTS = 8
NAP_SECONDS = 20.0
"""How long the runs a kill interrupts sleep: longer than the restart takes."""
BASELINE = "apscheduler-sqlite"
PATIENCE = 120.0
"""Seconds a trial waits for what it expects before it gives up (and says so)."""


@dataclass(frozen=True)
class Sizes:
    creations: int
    burst: int
    interval_jobs: int
    interval_seconds: int
    stored: int


FULL = Sizes(creations=5000, burst=2000, interval_jobs=500, interval_seconds=30, stored=20000)
QUICK = Sizes(creations=100, burst=50, interval_jobs=10, interval_seconds=3, stored=200)


@dataclass(frozen=True)
class Run:
    job: str
    scheduled: float
    started: float


# ------------------------------------------------------------------ contenders


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class Contender(ABC):
    """One running contender process over one database; ``spawn`` again after a kill."""

    def __init__(self, db_url: str, directory: Path) -> None:
        self.db_url = db_url
        self.directory = directory
        self.process: subprocess.Popen | None = None
        self.spawned_at = 0.0
        self.generation = 0

    def spawn(self) -> None:
        self.generation += 1
        self.spawned_at = time.time()
        self.process = self._popen()

    @abstractmethod
    def _popen(self) -> subprocess.Popen:
        """Start the contender's process."""

    @abstractmethod
    def wait_ready(self) -> float:
        """Seconds from spawn to ready."""

    @abstractmethod
    def create(self, jobs: list[Job], clients: int) -> float:
        """Seconds the clients took to create the jobs."""

    @abstractmethod
    def runs(self) -> list[Run]:
        """Every run start recorded by the current process."""

    def rss_mb(self) -> float:
        assert self.process is not None
        return _rss_mb(self.process.pid)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        """The end of a trial: SIGTERM (cronlapse then stops its executors), else SIGKILL."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()

    def _stderr(self) -> str:
        path = self.directory / f"stderr.{self.generation}"
        return path.read_text()[-2000:] if path.exists() else ""


class Cronlapse(Contender):
    """``cronlapse serve`` as the docs deploy it: a config with 4 slots, the token, a log file."""

    def __init__(self, db_url: str, directory: Path, options: tuple[str, ...] = ()) -> None:
        super().__init__(db_url, directory)
        self.options = options
        self.port = free_port()
        config = directory / "cronlapse.yaml"
        config.write_text(
            f"workers: {SLOTS}\nexecutors:\n  nap:\n    argv: [sleep, '{NAP_SECONDS:g}']\n"
        )
        self.config = config
        self._read = _Tail(self._log(), 0)
        self._started: dict[tuple[str, float, int], float] = {}

    def spawn(self) -> None:
        super().spawn()
        self._started.clear()

    def _log(self) -> Path:
        return self.directory / f"log.{self.generation}.jsonl"

    def _popen(self) -> subprocess.Popen:
        command = [sys.executable, "-m", "cronlapse", "serve", "--db", self.db_url]
        command += ["--port", str(self.port), "--config", str(self.config)]
        command += ["--log-file", str(self._log()), *self.options]
        env = dict(os.environ, CRONLAPSE_TOKEN=TOKEN, PYTHONPATH=str(ROOT))
        with (self.directory / f"stderr.{self.generation}").open("w") as stderr:
            return subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=stderr, env=env, cwd=self.directory
            )

    def wait_ready(self) -> float:
        assert self.process is not None
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"cronlapse serve exited:\n{self._stderr()}")
            try:
                connection = HTTPConnection("127.0.0.1", self.port, timeout=5)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    return time.time() - self.spawned_at
            except OSError:
                time.sleep(0.01)
        raise RuntimeError(f"cronlapse serve never answered /health:\n{self._stderr()}")

    def create(self, jobs: list[Job], clients: int) -> float:
        bodies = [json.dumps(_cronlapse_body(job)) for job in jobs]
        errors: list[str] = []

        def client(share: list[str]) -> None:
            connection = HTTPConnection("127.0.0.1", self.port, timeout=60)
            headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
            for body in share:
                connection.request("POST", "/job", body=body, headers=headers)
                answer = connection.getresponse()
                text = answer.read()
                if answer.status != 201:
                    errors.append(f"{answer.status} {text[:120]!r}")
            connection.close()

        seconds = _in_threads(client, [bodies[c::clients] for c in range(clients)])
        if errors:
            raise RuntimeError(f"{len(errors)} creations failed, e.g. {errors[0]}")
        return seconds

    def runs(self) -> list[Run]:
        """Each run's ``run.started`` line (a restart's first inputs log theirs too)."""
        if self._read.generation != self.generation:
            self._read = _Tail(self._log(), self.generation)
        for line in self._read.new_lines():
            if '"run.started"' not in line:
                continue
            event = json.loads(line)
            key = (event["job"], float(event["scheduled"]), event["attempt"])
            ts = datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()
            self._started.setdefault(key, ts)
        return [Run(job, at, ts) for (job, at, _), ts in self._started.items()]


class _Tail:
    """The whole lines appended to a file since the last look (a harness that re-read the
    whole log at every look would take the contender's CPU)."""

    def __init__(self, path: Path, generation: int) -> None:
        self.path = path
        self.generation = generation
        self.offset = 0

    def new_lines(self) -> list[str]:
        if not self.path.exists():
            return []
        with self.path.open("rb") as file:
            file.seek(self.offset)
            data = file.read()
        whole = data[: data.rfind(b"\n") + 1]
        self.offset += len(whole)
        return whole.decode().splitlines()


def _cronlapse_body(job: Job) -> dict:
    at = int(job.at)
    if job.sleep:
        return {"id": job.id, "at": at, "run": "nap"}
    if job.count == 1:
        return {"id": job.id, "at": at}
    return {"id": job.id, "every": int(job.every), "first": at}


class Peer(Contender):
    """A peer's script (``benchmarks/peers/``): the contract of ``contract.py``."""

    def __init__(self, script: str, db_url: str, directory: Path) -> None:
        super().__init__(db_url, directory)
        self.script = PEERS / script
        self._read = _Tail(self._events(), 0)
        self._seen: list[Run] = []
        setup = [sys.executable, str(self.script), "--db", db_url, "--setup"]
        subprocess.run(setup, check=True, capture_output=True)

    def _events(self) -> Path:
        return self.directory / f"events.{self.generation}"

    def _popen(self) -> subprocess.Popen:
        command = [sys.executable, str(self.script), "--db", self.db_url]
        command += ["--events", str(self._events()), "--slots", str(SLOTS)]
        with (self.directory / f"stderr.{self.generation}").open("w") as stderr:
            return subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=self.directory,
                text=True,
            )

    def _answer(self) -> dict:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.script.name} exited:\n{self._stderr()}")
        return json.loads(line)

    def wait_ready(self) -> float:
        self._answer()
        return time.time() - self.spawned_at

    def create(self, jobs: list[Job], clients: int) -> float:
        assert self.process is not None and self.process.stdin is not None
        command = {"create": [job.__dict__ for job in jobs], "clients": clients}
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._answer()["seconds"]

    def runs(self) -> list[Run]:
        if self._read.generation != self.generation:
            self._read = _Tail(self._events(), self.generation)
            self._seen = []
        for line in self._read.new_lines():
            job, scheduled, started = line.split()
            self._seen.append(Run(job, float(scheduled), float(started)))
        return list(self._seen)


@dataclass(frozen=True)
class Kind:
    """A contender as ``--contenders`` names it."""

    name: str
    backend: str
    make: Callable[[str, Path], Contender]


KINDS = (
    Kind("cronlapse-sqlite", "sqlite", Cronlapse),
    Kind("cronlapse-postgresql", "postgresql", Cronlapse),
    Kind("apscheduler-sqlite", "sqlite", lambda u, d: Peer("apscheduler_store.py", u, d)),
    Kind("apscheduler-postgresql", "postgresql", lambda u, d: Peer("apscheduler_store.py", u, d)),
    Kind("procrastinate", "postgresql", lambda u, d: Peer("procrastinate_queue.py", u, d)),
    Kind("pgqueuer", "postgresql", lambda u, d: Peer("pgqueuer_queue.py", u, d)),
)
PEER_MODULES = {
    "apscheduler": "apscheduler",
    "procrastinate": "procrastinate",
    "pgqueuer": "pgqueuer",
}
"""The library each peer contender needs (``pip install -e '.[peers]'``)."""


# ------------------------------------------------------------------- workloads


def _in_threads(work: Callable[[list], None], shares: list[list]) -> float:
    threads = [threading.Thread(target=work, args=(share,)) for share in shares]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up waiting: {what}")
        time.sleep(0.2)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def _lags(runs: list[Run]) -> dict[str, float]:
    lags = [run.started - run.scheduled for run in runs]
    if not lags:
        return {"lag p50 s": math.nan, "lag p95 s": math.nan, "lag max s": math.nan}
    return {
        "lag p50 s": _percentile(lags, 0.50),
        "lag p95 s": _percentile(lags, 0.95),
        "lag max s": max(lags),
    }


def _duplicates(runs: list[Run]) -> int:
    counts = Counter((run.job, round(run.scheduled)) for run in runs)
    return sum(count - 1 for count in counts.values())


def _due_in(lead: float) -> float:
    """A whole second at least ``lead`` seconds from now (cronlapse's times are whole ticks)."""
    return float(math.ceil(time.time() + lead))


def _lead(contender: Contender, count: int) -> float:
    """Seconds to leave before jobs fall due so that ``count`` creations end before it: the
    contender's creation rate measured on a few jobs an hour ahead (they never run here), with
    half again as a margin (a creation that still ends late is reported, ``created late s``)."""
    sample = [Job(f"warm-{number}", _due_in(3600)) for number in range(2 * CLIENTS)]
    rate = len(sample) / contender.create(sample, CLIENTS)
    return 2 + 1.5 * count / rate


def creations(contender: Contender, sizes: Sizes) -> dict[str, float]:
    contender.spawn()
    contender.wait_ready()
    at = _due_in(3600)
    jobs = [Job(f"c{number}", at) for number in range(sizes.creations)]
    return {"creations/s": sizes.creations / contender.create(jobs, CLIENTS)}


def burst(contender: Contender, sizes: Sizes) -> dict[str, float]:
    contender.spawn()
    contender.wait_ready()
    due = _due_in(_lead(contender, sizes.burst))
    jobs = [Job(f"b{number}", due) for number in range(sizes.burst)]
    contender.create(jobs, CLIENTS)
    late = max(0.0, time.time() - due)
    _wait_for(lambda: len(contender.runs()) >= sizes.burst, f"{sizes.burst} burst runs")
    runs = contender.runs()
    last = max(run.started for run in runs)
    return {
        "runs/s": len(runs) / max(last - due, 1e-3),
        **_lags(runs),
        "duplicates": _duplicates(runs),
        "created late s": late,
    }


def interval(contender: Contender, sizes: Sizes) -> dict[str, float]:
    contender.spawn()
    contender.wait_ready()
    seconds = sizes.interval_seconds
    first = _due_in(_lead(contender, sizes.interval_jobs))
    jobs = [
        Job(f"i{number}", first, every=1.0, count=seconds) for number in range(sizes.interval_jobs)
    ]
    contender.create(jobs, CLIENTS)
    late = max(0.0, time.time() - first)
    end = first + seconds
    time.sleep(max(0.0, end + 3 - time.time()))
    runs = [run for run in contender.runs() if first - 0.5 <= run.scheduled < end - 0.5]
    expected = sizes.interval_jobs * seconds
    distinct = len({(run.job, round(run.scheduled)) for run in runs})
    return {
        "missed": expected - distinct,
        "duplicates": _duplicates(runs),
        **_lags(runs),
        "created late s": late,
    }


def killed_with_jobs_stored(contender: Contender, stored: int, nap: float) -> list[Job]:
    """The restart workload up to its restart: ``stored`` hourly jobs, two runs sleeping ``nap``
    seconds when the contender is killed (kill -9), and probes due just after; returns the
    probes once they are due."""
    contender.spawn()
    contender.wait_ready()
    hourly = _due_in(3600)
    contender.create([Job(f"s{n}", hourly, every=3600.0, count=24) for n in range(stored)], CLIENTS)
    napping = [Job(f"{SLEEPER_PREFIX}{n}", _due_in(1), sleep=nap) for n in range(2)]
    contender.create(napping, CLIENTS)
    _wait_for(
        lambda: {run.job for run in contender.runs()} >= {job.id for job in napping},
        "the sleeping runs to start",
    )
    probes = [Job(f"probe-{n}", _due_in(1.5)) for n in range(SLOTS)]
    contender.create(probes, CLIENTS)
    contender.kill()
    if any(run.job.startswith("probe-") for run in contender.runs()):
        raise RuntimeError("a probe ran before the kill: the machine is too slow for this trial")
    time.sleep(max(0.0, probes[0].at + 0.2 - time.time()))
    return probes


def restart(contender: Contender, sizes: Sizes) -> dict[str, float]:
    probes = killed_with_jobs_stored(contender, sizes.stored, NAP_SECONDS)
    contender.spawn()
    ready = contender.wait_ready()

    def probe_runs() -> list[Run]:
        return [run for run in contender.runs() if run.job.startswith("probe-")]

    _wait_for(lambda: bool(probe_runs()), "a probe to run after the restart")
    first_run = min(run.started for run in probe_runs()) - contender.spawned_at
    _wait_for(lambda: len(probe_runs()) >= len(probes), "every probe to run")
    time.sleep(1.0)  # RSS is read a second into steady running, the same for every contender
    return {"to ready s": ready, "to first run s": first_run, "RSS MB": contender.rss_mb()}


WORKLOADS: dict[str, Callable[[Contender, Sizes], dict[str, float]]] = {
    "creations": creations,
    "burst": burst,
    "interval": interval,
    "restart": restart,
}
HIGHER_IS_BETTER = {"creations/s", "runs/s"}


# ---------------------------------------------------------------------- harness


@contextmanager
def databases(kinds: list[Kind]) -> Iterator[Callable[[Kind, Path], str]]:
    """A fresh database per trial: a file in the trial's directory, or a new database on our
    own PostgreSQL server (started only if a contender needs it, stopped at the end)."""
    cluster = None
    if any(kind.backend == "postgresql" for kind in kinds):
        from tests.service.pg_cluster import Cluster

        cluster = Cluster().start()
    try:

        def fresh(kind: Kind, directory: Path) -> str:
            if kind.backend == "sqlite":
                return f"sqlite:///{directory}/db.sqlite"
            assert cluster is not None
            return cluster.database()

        yield fresh
    finally:
        if cluster is not None:
            cluster.stop()


def compile_bytecode() -> None:
    """Every contender imports compiled modules from its first start, alike."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for path in sorted(paths):
        compileall.compile_dir(path, quiet=2, workers=0)
    for package in ("cronlapse", "engine", "benchmarks/peers"):
        compileall.compile_dir(str(ROOT / package), quiet=2, workers=0)


@dataclass
class Results:
    figures: dict[str, dict[str, list[dict[str, float]]]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, workload: str, contender: str, figures: dict[str, float]) -> None:
        self.figures.setdefault(workload, {}).setdefault(contender, []).append(figures)

    def median(self, workload: str, contender: str) -> dict[str, float]:
        trials = self.figures.get(workload, {}).get(contender, [])
        if not trials:
            return {}
        return {key: statistics.median(trial[key] for trial in trials) for key in trials[0]}


def run_trial(kind: Kind, workload: str, sizes: Sizes, fresh_db) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="peers-") as name:
        directory = Path(name)
        contender = kind.make(fresh_db(kind, directory), directory)
        try:
            return WORKLOADS[workload](contender, sizes)
        finally:
            contender.stop()


def benchmark(kinds: list[Kind], workloads: list[str], rounds: int, sizes: Sizes) -> Results:
    results = Results()
    with databases(kinds) as fresh_db:
        for round_number in range(rounds):
            shift = round_number % len(kinds)
            order = kinds[shift:] + kinds[:shift]
            for workload in workloads:
                for kind in order:
                    label = f"round {round_number + 1}, {workload}, {kind.name}"
                    print(f"  {label} ...", file=sys.stderr, flush=True)
                    try:
                        results.add(workload, kind.name, run_trial(kind, workload, sizes, fresh_db))
                    except (RuntimeError, subprocess.CalledProcessError) as error:
                        results.failures.append(f"{label}: {error}")
    return results


def _cell(value: float) -> str:
    if isinstance(value, int) or (value == int(value) and abs(value) >= 100):
        return f"{value:,.0f}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:,.1f}"


def report(results: Results, kinds: list[Kind], workloads: list[str]) -> str:
    lines = []
    for workload in workloads:
        rows = {kind.name: results.median(workload, kind.name) for kind in kinds}
        keys = next((list(row) for row in rows.values() if row), [])
        if not keys:
            continue
        lines.append(f"\n{workload}")
        lines.append("  " + f"{'contender':<40}" + "".join(f"{key:>16}" for key in keys))
        for name, row in rows.items():
            cells = "".join(f"{_cell(row[key]) if row else '-':>16}" for key in keys)
            lines.append("  " + f"{name:<40}" + cells)
        baseline = rows.get(BASELINE)
        for name, row in rows.items():
            if name.startswith("cronlapse") and row and baseline:
                ratios = "".join(f"{_ratio(row[key], baseline[key]):>16}" for key in keys)
                lines.append("  " + f"{name + ' / ' + BASELINE:<40}" + ratios)
    if "restart" in workloads:
        peers = [
            row["RSS MB"]
            for kind in kinds
            if not kind.name.startswith("cronlapse")
            and (row := results.median("restart", kind.name))
        ]
        if peers:
            median = statistics.median(peers)
            lines.append(f"\n  peers' median RSS after the restart: {median:.1f} MB")
    for failure in results.failures:
        lines.append(f"FAILED {failure}")
    return "\n".join(lines)


def _ratio(value: float, baseline: float) -> str:
    if not baseline or math.isnan(baseline) or math.isnan(value):
        return "-"
    return f"{value / baseline:.2f}x"


def available(kinds: list[Kind]) -> tuple[list[Kind], list[str]]:
    """The contenders whose library is installed, and a word for each one left out."""
    import importlib.util

    kept, missing = [], []
    for kind in kinds:
        module = PEER_MODULES.get(kind.name.split("-")[0])
        if module is None or importlib.util.find_spec(module) is not None:
            kept.append(kind)
        else:
            missing.append(f"{kind.name}: {module} is not installed (pip install -e '.[peers]')")
    return kept, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [kind.name for kind in KINDS]
    parser.add_argument("--contenders", default=",".join(names), help="comma-separated")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, no compileall: a smoke test"
    )
    args = parser.parse_args(argv)
    chosen = args.contenders.split(",")
    workloads = args.workloads.split(",")
    unknown = sorted(set(chosen) - set(names)) + sorted(set(workloads) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown contender or workload: {', '.join(unknown)}")
    kinds, missing = available([kind for kind in KINDS if kind.name in chosen])
    for word in missing:
        print(f"skipped {word}", file=sys.stderr)
    sizes = QUICK if args.quick else FULL
    if not args.quick:
        compile_bytecode()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"sizes: {sizes}, {args.rounds} round(s), {SLOTS} slots, {CLIENTS} clients")
    results = benchmark(kinds, workloads, args.rounds, sizes)
    print(report(results, kinds, workloads))
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if results.failures else 0


if __name__ == "__main__":
    sys.exit(main())
