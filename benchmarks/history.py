"""Time travel at seed 000's maximum sizes: step back, seek, and what the restore points cost.

A workload of 1,000 workers and 100,000 jobs (about 200,000 occurrences falling due) is driven
through seed 000's model (manual dispatch, reported completion) and recorded as a timeline of
commands; a History then plays it to the end, steps back and seeks to random ticks.

Run: ``python benchmarks/history.py`` (``--small`` for a quick run).
It prints wall times (time.perf_counter) and memory (tracemalloc, in a separate pass).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc

from engine.commands import Command, Complete, Dispatch, RegisterWorker, ScheduleJob
from engine.core import Engine
from engine.facades.cron_job_scheduler import SEED_000_POLICY
from engine.history import History
from engine.model import JobSpec
from engine.schedules import Every, Once


def build_timeline(
    workers: int, jobs: int, rounds: int, seed: int = 0
) -> list[tuple[int, Command]]:
    """Drive a live engine with a seeded workload and record what was sent, tick by tick."""
    rng = random.Random(seed)
    engine = Engine(SEED_000_POLICY)
    timeline: list[tuple[int, Command]] = []

    def send(tick: int, command: Command):
        engine.advance(tick)
        timeline.append((tick, command))
        return engine.apply(command)

    for index in range(workers):
        send(0, RegisterWorker(f"worker-{index:04d}"))
    horizon = rounds * 10
    for index in range(jobs):
        first = rng.randrange(0, horizon)
        recurring = index % 10 == 0
        schedule = Every(first, rng.choice((50, 100, 200))) if recurring else Once(first)
        spec = JobSpec(f"job-{index:06d}", schedule, max_attempts=rng.randint(1, 3))
        send(0, ScheduleJob(spec))
    running: list[tuple[str, int, int]] = []
    for round_index in range(1, rounds + 1):
        tick = round_index * 10
        rng.shuffle(running)
        finishing, running = running[: len(running) // 2], running[len(running) // 2 :]
        for job_id, scheduled, attempt in finishing:
            send(tick, Complete(job_id, scheduled, attempt, rng.random() > 0.1))
        result = send(tick, Dispatch())
        running += [(a.job_id, a.scheduled, a.attempt) for a in result.value]
    return timeline


def new_engine() -> Engine:
    return Engine(SEED_000_POLICY)


def measure(timeline: list[tuple[int, Command]], until: int, seeks: int) -> None:
    started = time.perf_counter()
    history = History(new_engine, timeline, until=until)
    history.seek(until)
    recorded = time.perf_counter() - started
    engine = history.engine
    print(
        f"recorded to tick {until}: {recorded:.2f} s, {len(engine.log):,} events, "
        f"{len(engine.occurrences):,} occurrences, {len(history._marks)} restore points"
    )

    backs = []
    for _ in range(20):
        started = time.perf_counter()
        history.step_back()
        backs.append(time.perf_counter() - started)
    print(
        f"step_back from the end: median {statistics.median(backs) * 1000:.1f} ms, "
        f"max {max(backs) * 1000:.1f} ms (20 steps)"
    )

    rng = random.Random(1)
    times = []
    for _ in range(seeks):
        target = rng.randrange(0, until + 1)
        started = time.perf_counter()
        history.seek(target)
        times.append(time.perf_counter() - started)
    print(
        f"seek to a random tick: median {statistics.median(times) * 1000:.0f} ms, "
        f"max {max(times) * 1000:.0f} ms ({seeks} seeks)"
    )

    started = time.perf_counter()
    history.seek(until)
    history.seek(0)
    print(
        f"seek from the end to tick 0: {(time.perf_counter() - started) * 1000:.0f} ms "
        "(includes replaying to the end first)"
    )


def memory(timeline: list[tuple[int, Command]], until: int) -> None:
    tracemalloc.start()
    engine = new_engine()
    for tick, command in timeline:
        engine.advance(tick)
        engine.apply(command)
    engine.advance(until)
    live = tracemalloc.get_traced_memory()[0]
    del engine
    tracemalloc.stop()
    tracemalloc.start()
    history = History(new_engine, timeline, until=until)
    history.seek(until)
    recorded = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"memory: live state {live / 1e6:.0f} MB; history with restore points "
        f"{recorded / 1e6:.0f} MB: restore points cost {(recorded - live) / live:.2f}x "
        "the live state"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tenth of the sizes")
    args = parser.parse_args()
    scale = 10 if args.small else 1
    workers, jobs, rounds = 1000 // scale, 100_000 // scale, 3000 // scale
    started = time.perf_counter()
    timeline = build_timeline(workers, jobs, rounds)
    print(
        f"workload: {workers} workers, {jobs:,} jobs, {len(timeline):,} commands "
        f"(built in {time.perf_counter() - started:.1f} s)"
    )
    until = rounds * 10
    measure(timeline, until, seeks=10)
    memory(timeline, until)


if __name__ == "__main__":
    main()
