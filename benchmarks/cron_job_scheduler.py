"""Time seed 000's CronJobScheduler on a workload at the specification's maximum sizes.

The specification's limits: 1,000 workers, 100,000 jobs, 200,000 occurrences becoming due and
100,000 calls in all (the constructor included). The last two cannot all be reached at once
(100,000 scheduleJob calls would leave no call for registering workers or dispatching), so two
workloads run:

* ``calls``: within every limit. 1,000 workers, 60,000 jobs, exactly 200,000 due occurrences, and
  100,000 calls counting the constructor;
* ``jobs``: 100,000 jobs scheduled, 1,000 workers, exactly 200,000 due occurrences, and the other
  calls as in ``calls``: 140,000 calls, beyond the call limit.

Each workload (seeded ``random.Random(0)``): 900 workers registered first, then every other call
shuffled together, time rising evenly to the final time 10,000,000, the last call a dispatch there.
Half the jobs are one-time, half recurring with intervals chosen so that the number of schedule
times <= the final time (computed by arithmetic and printed) is exactly 200,000; a few one-time jobs
are moved past the final time to hit the number exactly. Occurrences fall due far faster than
1,000 workers can run them, so backlogs build up. A completion reports a running attempt picked at
random and fails 10% of the time (maxRetries is 0 to 3, so retries and permanent failures both
happen); 2% of completions, and all when nothing runs, are stale reports. Status queries ask
about a random job at one of its schedule times (sometimes off the grid, sometimes not yet due).

Run from the repository root::

    .venv/bin/python benchmarks/cron_job_scheduler.py [--workload calls|jobs|both] [--check]

Prints, per workload: the number of each call kind, the due occurrences, the assignments made, the
times, and the peak of Python allocations (tracemalloc, measured in a separate run because tracing
slows everything down).

The engine is timed against two yardsticks (benchmarks/baselines/), in the same process on the same
plan: ``heap``, a plain heap scheduler that materialises every due occurrence, and ``lazy``, which
keeps them implicit until assignment. The runs alternate (engine, heap, lazy, engine, ...;
``--rounds N``, 5 by default) so that a swing in the machine's load hits all three alike, and the
medians are reported with the ratios ``engine / heap`` and ``engine / lazy``. A time is the sum of
the time spent inside the scheduler's calls (time.perf_counter around each call); the wall time of
the whole run, which adds the driver's own work, is printed next to it.

``--check`` instead replays each workload at 1/20 (``--scale N``: 1/N) of its sizes on the
reference scheduler of tests/engine/test_cron_job_scheduler_properties.py and on both yardsticks,
and asserts that every answer is identical and that the reference materialised exactly the computed
number of due occurrences.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.baselines.heap_000 import HeapScheduler  # noqa: E402
from benchmarks.baselines.lazy_000 import LazyScheduler  # noqa: E402
from engine import CronJobScheduler  # noqa: E402

FINAL_TIME = 10_000_000
FAILURE_RATE = 0.10


@dataclass(frozen=True)
class Sizes:
    workers: int
    jobs: int
    due: int
    calls: int
    """All calls, the constructor included."""
    dispatches: int
    statuses: int

    @property
    def completions(self) -> int:
        return self.calls - 1 - self.workers - self.jobs - self.dispatches - self.statuses

    def scaled(self, factor: int) -> Sizes:
        return Sizes(
            workers=self.workers // factor,
            jobs=self.jobs // factor,
            due=self.due // factor,
            calls=self.calls // factor,
            dispatches=self.dispatches // factor,
            statuses=self.statuses // factor,
        )


WORKLOADS = {
    "calls": Sizes(
        workers=1_000, jobs=60_000, due=200_000, calls=100_000, dispatches=8_000, statuses=7_000
    ),
    "jobs": Sizes(
        workers=1_000, jobs=100_000, due=200_000, calls=140_000, dispatches=8_000, statuses=7_000
    ),
}


@dataclass
class Job:
    job_id: str
    first: int
    interval: int
    max_retries: int

    def due_count(self, final: int) -> int:
        """Schedule times <= ``final``, by arithmetic."""
        if self.first > final:
            return 0
        return 1 if self.interval == 0 else (final - self.first) // self.interval + 1


@dataclass
class Plan:
    sizes: Sizes
    steps: list[tuple[str, int]]
    """(call kind, current time); the time is -1 for register_worker."""
    jobs: list[Job]
    """In the order of the schedule calls."""
    due: int


def make_plan(sizes: Sizes, seed: int = 0) -> Plan:
    rng = random.Random(seed)
    upfront = sizes.workers * 9 // 10
    kinds = ["register"] * (sizes.workers - upfront) + ["schedule"] * sizes.jobs
    kinds += ["dispatch"] * (sizes.dispatches - 1) + ["status"] * sizes.statuses
    kinds += ["complete"] * sizes.completions
    rng.shuffle(kinds)
    kinds.append("dispatch")
    last = len(kinds) - 1
    steps = [("register", -1)] * upfront
    steps += [(kind, i * FINAL_TIME // last) for i, kind in enumerate(kinds)]

    jobs = []
    schedule_times = [t for kind, t in steps if kind == "schedule"]
    one_time = sizes.jobs // 2
    recurring = sizes.jobs - one_time
    # Heavy-tailed occurrence counts (most recurring jobs few, some hundreds), scaled so that the
    # total lands 10% of the one-time jobs above the target; that many one-time jobs then move
    # past the end.
    draws = [rng.expovariate(1.0) ** 2 for _ in range(recurring)]
    scale = (sizes.due - one_time + one_time // 10 - recurring) / sum(draws)
    wanted = iter([1 + round(draw * scale) for draw in draws])
    kinds_of_job = [True] * one_time + [False] * recurring
    rng.shuffle(kinds_of_job)
    for n, (t, once) in enumerate(zip(schedule_times, kinds_of_job, strict=True)):
        job_id = f"job-{rng.randrange(16**6):06x}-{n}"
        max_retries = rng.choice((0, 0, 1, 1, 2, 3))
        if once:
            jobs.append(Job(job_id, t + rng.randint(0, 20_000), 0, max_retries))
            continue
        first = t + rng.randint(0, 2_000)
        count = next(wanted)
        room = FINAL_TIME - first
        if count == 1 or room <= 0:
            interval = max(room, 0) + rng.randint(1, 1_000_000)  # the second run is after the end
        else:
            interval = room // (count - 1)  # exactly ``count`` runs fit (or ``count`` + 1)
        jobs.append(Job(job_id, first, min(interval, 10**9), max_retries))
    due = sum(job.due_count(FINAL_TIME) for job in jobs)
    # Exactly sizes.due: move as many one-time jobs as there are extra occurrences past the end.
    excess = due - sizes.due
    assert excess >= 0, f"{due} due occurrences, fewer than {sizes.due}: raise the aim"
    for job in jobs:
        if excess and job.interval == 0 and job.first <= FINAL_TIME:
            job.first = FINAL_TIME + 1 + rng.randint(0, 1000)
            excess -= 1
    assert excess == 0, "not enough one-time jobs to move: lower the aim"
    due = sum(job.due_count(FINAL_TIME) for job in jobs)
    return Plan(sizes, steps, jobs, due)


def run(plan: Plan, scheduler, record: list | None = None, seed: int = 0) -> dict:
    """Drive ``scheduler`` through the plan; returns counts. With ``record``, logs every call."""
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    running: list[tuple[str, int, int]] = []
    finished: list[tuple[str, int, int]] = []
    scheduled: list[Job] = []
    jobs = iter(plan.jobs)
    worker_number = 0
    assignments = accepted = first_attempts = 0
    statuses: Counter[str] = Counter()
    clock = time.perf_counter

    def call(kind: str, method, *args):
        started = clock()
        answer = method(*args)
        seconds[kind] += clock() - started
        counts[kind] += 1
        if record is not None:
            record.append((method.__name__, args, answer))
        return answer

    for kind, now in plan.steps:
        if kind == "register":
            worker_id = f"worker-{rng.randrange(36**4):04x}-{worker_number}"
            worker_number += 1
            call(kind, scheduler.register_worker, worker_id)
        elif kind == "schedule":
            job = next(jobs)
            args = (job.job_id, job.first, job.interval, job.max_retries, now)
            assert call(kind, scheduler.schedule_job, *args)
            scheduled.append(job)
        elif kind == "dispatch":
            out = call(kind, scheduler.dispatch_jobs, now)
            assignments += len(out)
            for text in out:
                job_id, at, attempt, _ = text.split(",")
                running.append((job_id, int(at), int(attempt)))
                first_attempts += attempt == "1"
        elif kind == "complete":
            if running and rng.random() > 0.02:
                i = rng.randrange(len(running))
                running[i], running[-1] = running[-1], running[i]
                job_id, at, attempt = report = running.pop()
                finished.append(report)
                successful = rng.random() >= FAILURE_RATE
                assert call(kind, scheduler.complete_job, job_id, at, attempt, successful, now)
                accepted += 1
            else:
                stale = finished[rng.randrange(len(finished))] if finished else ("none", 0, 1)
                job_id, at, attempt = stale
                assert not call(kind, scheduler.complete_job, job_id, at, attempt, True, now)
        else:
            job = scheduled[rng.randrange(len(scheduled))] if scheduled else plan.jobs[0]
            k = rng.randrange(max(1, job.due_count(now)) + 2)
            at = job.first + k * job.interval + (rng.random() < 0.1)
            statuses[call(kind, scheduler.get_job_status, job.job_id, at, now) or '""'] += 1
    return {
        "counts": counts,
        "seconds": seconds,
        "assignments": assignments,
        "first attempts": first_attempts,
        "statuses": statuses,
        "completions accepted": accepted,
        "still running": len(running),
    }


def describe(name: str, plan: Plan) -> None:
    sizes = plan.sizes
    print(f"== workload {name!r}")
    print(
        f"   {sizes.workers:,} workers, {sizes.jobs:,} jobs, {sizes.calls:,} calls "
        f"(constructor included), final time {FINAL_TIME:,}"
    )
    recurring = sum(1 for job in plan.jobs if job.interval)
    print(
        f"   due occurrences (schedule times <= final time, by arithmetic): {plan.due:,}"
        f"  [{recurring:,} recurring jobs, {len(plan.jobs) - recurring:,} one-time]"
    )


IMPLEMENTATIONS = {"engine": CronJobScheduler, "heap": HeapScheduler, "lazy": LazyScheduler}


def timed_run(plan: Plan, implementation) -> tuple[float, float, dict]:
    """One run on a fresh scheduler after a full collection: (inside seconds, wall seconds,
    counts)."""
    gc.collect()
    scheduler = implementation()
    started = time.perf_counter()
    result = run(plan, scheduler)
    wall = time.perf_counter() - started
    return sum(result["seconds"].values()), wall, result


def benchmark(name: str, sizes: Sizes, rounds: int) -> None:
    plan = make_plan(sizes)
    describe(name, plan)
    inside: dict[str, list[float]] = {kind: [] for kind in IMPLEMENTATIONS}
    walls: dict[str, list[float]] = {kind: [] for kind in IMPLEMENTATIONS}
    first: dict = {}
    for _ in range(rounds):
        for kind, implementation in IMPLEMENTATIONS.items():
            seconds, wall, result = timed_run(plan, implementation)
            inside[kind].append(seconds)
            walls[kind].append(wall)
            first.setdefault(kind, result)
    result = first["engine"]
    for kind in ("heap", "lazy"):
        assert first[kind]["assignments"] == result["assignments"], kind
    counts, seconds = result["counts"], result["seconds"]
    total = sum(counts.values()) + 1
    for kind in ("register", "schedule", "dispatch", "complete", "status"):
        print(
            f"   {kind:>8}: {counts[kind]:>7,} calls, {seconds[kind]:7.3f} s inside the engine"
            " (first round)"
        )
    print(f"   calls in all (constructor included): {total:,}")
    print(
        f"   assignments made: {result['assignments']:,}; completions accepted: "
        f"{result['completions accepted']:,}; attempts still running at the end: "
        f"{result['still running']:,}"
    )
    print(
        f"   backlog at the end: {plan.due - result['first attempts']:,} due occurrences never"
        f" started; status answers: {dict(sorted(result['statuses'].items()))}"
    )
    median = {kind: statistics.median(times) for kind, times in inside.items()}
    print(f"   medians of {rounds} alternated rounds (inside the calls; wall of the whole run):")
    for kind in IMPLEMENTATIONS:
        print(
            f"   {kind:>8}: {median[kind]:7.3f} s  (wall {statistics.median(walls[kind]):.3f} s;"
            f" all: {', '.join(f'{t:.3f}' for t in inside[kind])})"
        )
    print(
        f"   ratios: engine / heap = {median['engine'] / median['heap']:.2f}x,"
        f" engine / lazy = {median['engine'] / median['lazy']:.2f}x"
    )
    del result, first
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    scheduler = CronJobScheduler()
    started = time.perf_counter()
    run(plan, scheduler)
    traced = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"   engine peak memory (tracemalloc, separate run): {peak / 2**20:.1f} MiB"
        f"  [the traced run took {traced:.3f} s]"
    )


def load_reference():
    path = REPO_ROOT / "tests" / "engine" / "test_cron_job_scheduler_properties.py"
    spec = importlib.util.spec_from_file_location("cron_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ReferenceScheduler


def check(name: str, sizes: Sizes, scale: int) -> None:
    reference_class = load_reference()
    plan = make_plan(sizes)
    describe(f"{name} (1/{scale}, checked)", plan)
    record: list = []
    result = run(plan, CronJobScheduler(), record)
    reference = reference_class()
    started = time.perf_counter()
    for method, args, answer in record:
        got = getattr(reference, method)(*args)
        assert got == answer, (method, args, answer, got)
    assert len(reference.occurrences) == plan.due, (len(reference.occurrences), plan.due)
    elapsed = time.perf_counter() - started
    print(f"   {len(record):,} answers identical to the reference's ({elapsed:.1f} s)")
    for kind in ("heap", "lazy"):
        yardstick = IMPLEMENTATIONS[kind]()
        for method, args, answer in record:
            got = getattr(yardstick, method)(*args)
            assert got == answer, (kind, method, args, answer, got)
        print(f"   {len(record):,} answers identical to the {kind} yardstick's")
    print(
        f"   the reference materialised {len(reference.occurrences):,} due occurrences;"
        f" {result['assignments']:,} assignments made"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=["calls", "jobs", "both"], default="both")
    parser.add_argument(
        "--check", action="store_true", help="replay at 1/SCALE size on the reference and compare"
    )
    parser.add_argument("--scale", type=int, default=20, help="size divisor for --check (20)")
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternated rounds of the three timings (5)"
    )
    args = parser.parse_args()
    names = ["calls", "jobs"] if args.workload == "both" else [args.workload]
    for name in names:
        if args.check:
            check(name, WORKLOADS[name].scaled(args.scale), args.scale)
        else:
            benchmark(name, WORKLOADS[name], args.rounds)


if __name__ == "__main__":
    main()
