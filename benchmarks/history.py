"""Time travel at seed 000's maximum sizes: step back, seek, and what the keyframes cost.

The workload is the ``calls`` workload of benchmarks/cron_job_scheduler.py (1,000 workers, 60,000
jobs, 200,000 occurrences falling due, 100,000 calls). It is played once through the facade, its
calls are turned into the engine commands they send (status queries send none), and a History
then records the run to the end, steps back, and seeks to random ticks.

Run: ``python benchmarks/history.py`` (``--scale 10`` for a tenth of the sizes; ``--span-costs
1000,2000,4000`` to compare keyframe spacings, the history's ``span_cost``; ``--profile`` to
see where the moves spend their time; ``--rounds`` for the alternated rounds of a bare play and a
recording whose medians the recording's cost compares). It prints wall times
(time.perf_counter) and memory (tracemalloc, in a separate pass), each beside its target (issue
35). The engines archive their finished runs (a history rewinds by keyframes of the live state
and replay, :mod:`engine.rewind.frames`). The yardstick for recording is the same timeline played
by a bare engine, no keyframes, in the same run; the memory yardstick is that engine's live
state. The timeline's command objects are made before either is measured: they are the input,
not the history's.

The step back and seek targets are wall times, and wall times on these machines swing by 3x
(by 10x under a load test). So they are also printed as a fraction of the heap yardstick's run
of the same workload (benchmarks/baselines/heap_000.py, timed in this process just before), and
the targets with them, scaled from the quiet run where they were set: the heap took
``HEAP_REFERENCE`` seconds there, so 30 ms was 1.9% of it, 80 ms 5.2% and 16 ms 1.04%.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import pstats
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cron_job_scheduler import WORKLOADS, make_plan, run

from benchmarks.baselines.heap_000 import HeapScheduler
from engine import CronJobScheduler
from engine.core import Engine
from engine.facades.cron_job_scheduler import SEED_000_POLICY
from engine.model.commands import Command, Complete, Dispatch, RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.play.history import SPAN_COST, History
from engine.play.ticks import TickDriver, TimedCommand, at_ticks
from engine.schedules.kinds import Every, Once
from tui.model.collector import collector_paused


def build_timeline(scale: int) -> list[tuple[int, Command]]:
    """The commands the facade sends for the benchmark's workload, with the tick of each."""
    sizes = WORKLOADS["calls"] if scale == 1 else WORKLOADS["calls"].scaled(scale)
    record: list = []
    run(make_plan(sizes), CronJobScheduler(), record)
    timeline: list[tuple[int, Command]] = []
    tick = 0
    for method, args, _ in record:
        if method == "register_worker":
            timeline.append((tick, RegisterWorker(args[0])))
        elif method == "schedule_job":
            job_id, first, interval, max_retries, tick = args
            schedule = Every(first, interval) if interval else Once(first)
            timeline.append((tick, ScheduleJob(JobSpec(job_id, schedule, max_retries + 1))))
        elif method == "dispatch_jobs":
            tick = args[0]
            timeline.append((tick, Dispatch()))
        elif method == "complete_job":
            job_id, scheduled, attempt, successful, tick = args
            timeline.append((tick, Complete(job_id, scheduled, attempt, successful)))
        else:
            tick = args[-1]
    return timeline


HEAP_REFERENCE = 1.54
"""Seconds the heap yardstick took on the workload on 2026-12-02 at 06:22 UTC, a quiet machine
(docs/performance.md): the run the wall-time targets are read against."""
SEEK_MEDIAN_TARGET, SEEK_MAX_TARGET = 0.030, 0.080
STEP_BACK_MAX_TARGET = 0.016


def heap_yardstick(scale: int) -> float:
    """Seconds the heap yardstick spends inside its calls on the workload, in this process."""
    sizes = WORKLOADS["calls"] if scale == 1 else WORKLOADS["calls"].scaled(scale)
    plan = make_plan(sizes)
    gc.collect()
    return sum(run(plan, HeapScheduler())["seconds"].values())


ARCHIVE = True
"""Whether the engines archive their finished runs (``--keep-runs`` turns it off)."""
ROUNDS = 3
"""Rounds of a bare play and a recording, alternated (``--rounds``): the recording's cost is the
ratio of their medians."""
PROFILE = False
"""Whether the step backs and the seeks run under cProfile (``--profile``): their times then
include its overhead, so read the profile's shares, not the times."""


@contextlib.contextmanager
def _profiled(profile: cProfile.Profile | None) -> Iterator[None]:
    if profile is None:
        yield
        return
    profile.enable()
    try:
        yield
    finally:
        profile.disable()


def _print_profile(profile: cProfile.Profile | None, moves: str) -> None:
    if profile is not None:
        print(f"--- where the {moves} moves spend their time (cumulative, top 25)")
        pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(25)


def new_engine() -> Engine:
    return Engine(SEED_000_POLICY, archive=ARCHIVE)


def play(timed: list[TimedCommand], until: int) -> Engine:
    """The timeline played by a bare engine, without keyframes (the yardstick)."""
    engine = new_engine()
    driver = TickDriver(engine)
    for command in timed:
        driver.apply(command)
    driver.finish(until)
    return engine


def free_rounds_before() -> None:
    """Free what earlier rounds left, so that each round plays in the heap the first one did.

    ``collector_paused`` ends with ``gc.freeze()``, which moves every object alive then (an
    engine and a history, with the reference cycles that hold them) to the permanent generation,
    where no collection looks: each round's engine and history would outlive it, and the next
    round play in a heap grown by them (560,000 objects and 110 MB a round at seed 000's sizes,
    the recording's share of a round growing from 1.9x to 2.2x over five)."""
    gc.unfreeze()
    gc.collect()


def measure(
    timeline: list[tuple[int, Command]], until: int, seeks: int, heap: float, span_cost: int
) -> None:
    timed = at_ticks(timeline)
    bares, records = [], []
    history: History | None = None
    for _ in range(ROUNDS):  # alternated: a load that comes and goes weighs on both alike
        free_rounds_before()
        started = time.perf_counter()
        with collector_paused():
            play(timed, until)
        bares.append(time.perf_counter() - started)
        history = None  # the round before's, freed before this one records
        free_rounds_before()
        started = time.perf_counter()
        history = History(new_engine, timed, until=until, span_cost=span_cost)
        with collector_paused():
            history.seek(until)
        records.append(time.perf_counter() - started)
    assert history is not None
    bare, recorded = statistics.median(bares), statistics.median(records)
    engine = history.engine
    print(
        f"span_cost {span_cost}: recorded to tick {until}: {recorded:.2f} s, "
        f"{len(engine.log):,} events, {len(engine.query.records()):,} occurrences, "
        f"{len(history.keyframes)} keyframes; a bare engine: {bare:.2f} s (medians of "
        f"{ROUNDS} alternated rounds): recording costs {recorded / bare:.2f}x (target: <= 1.5x; "
        f"by round: {', '.join(f'{r / b:.2f}x' for b, r in zip(bares, records, strict=True))})"
    )

    backs = []
    profile = cProfile.Profile() if PROFILE else None
    for _ in range(20):
        started = time.perf_counter()
        with collector_paused(), _profiled(profile):
            history.step_back()
        backs.append(time.perf_counter() - started)
    _print_profile(profile, "step_back")
    print(
        f"step_back from the end: median {statistics.median(backs) * 1000:.1f} ms, "
        f"max {max(backs) * 1000:.1f} ms (20 steps; target: max < 16 ms)"
    )
    print(
        f"   as a share of the heap yardstick's run: max {max(backs) / heap:.2%} (target scaled "
        f"to it: {STEP_BACK_MAX_TARGET / HEAP_REFERENCE:.2%}; at this machine's speed "
        f"{STEP_BACK_MAX_TARGET / HEAP_REFERENCE * heap * 1000:.0f} ms)"
    )

    rng = random.Random(1)
    times = []
    profile = cProfile.Profile() if PROFILE else None
    for _ in range(seeks):
        target = rng.randrange(0, until + 1)
        started = time.perf_counter()
        with collector_paused(), _profiled(profile):
            history.seek(target)
        times.append(time.perf_counter() - started)
    _print_profile(profile, "seek")
    median, worst = statistics.median(times), max(times)
    print(
        f"seek to a random tick: median {median * 1000:.0f} ms, "
        f"max {worst * 1000:.0f} ms ({seeks} seeks; target: median < 30 ms, max < 80 ms)"
    )
    print(
        f"   as a share of the heap yardstick's run ({heap:.2f} s, this process): median "
        f"{median / heap:.1%}, max {worst / heap:.1%} (targets scaled to it: "
        f"{SEEK_MEDIAN_TARGET / HEAP_REFERENCE:.1%} and {SEEK_MAX_TARGET / HEAP_REFERENCE:.1%}; "
        f"at this machine's speed {SEEK_MEDIAN_TARGET / HEAP_REFERENCE * heap * 1000:.0f} ms "
        f"and {SEEK_MAX_TARGET / HEAP_REFERENCE * heap * 1000:.0f} ms)"
    )

    started = time.perf_counter()
    with collector_paused():
        history.seek(until)
        history.seek(0)
    print(
        f"seek from the end to tick 0: {(time.perf_counter() - started) * 1000:.0f} ms "
        "(includes replaying to the end first)"
    )


def memory(timeline: list[tuple[int, Command]], until: int, span_cost: int) -> None:
    timed = at_ticks(timeline)
    tracemalloc.start()
    engine = play(timed, until)
    live = tracemalloc.get_traced_memory()[0]
    del engine
    tracemalloc.stop()
    tracemalloc.start()
    history = History(new_engine, timed, until=until, span_cost=span_cost)
    history.seek(until)
    recorded = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"memory: live state {live / 1e6:.0f} MB; history with {len(history.keyframes)} "
        f"keyframes {recorded / 1e6:.0f} MB: keyframes cost {(recorded - live) / live:.2f}x "
        "the live state (target: <= 1.5x)"
    )


def main() -> None:
    global ARCHIVE, PROFILE, ROUNDS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="divide the sizes by this (1)")
    parser.add_argument(
        "--span-costs",
        default=str(SPAN_COST),
        help=f"keyframe spacings to measure, comma-separated ({SPAN_COST})",
    )
    parser.add_argument(
        "--keep-runs", action="store_true", help="engines keep their finished runs live"
    )
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"alternated play and record rounds ({ROUNDS})"
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile the step backs and seeks (cProfile)"
    )
    args = parser.parse_args()
    ARCHIVE = not args.keep_runs
    ROUNDS = max(1, args.rounds)
    PROFILE = args.profile
    timeline = build_timeline(args.scale)
    until = timeline[-1][0]
    print(f"workload: {len(timeline):,} commands up to tick {until:,}")
    heap = heap_yardstick(args.scale)
    for span_cost in (int(cost) for cost in args.span_costs.split(",")):
        measure(timeline, until, seeks=20, heap=heap, span_cost=span_cost)
        memory(timeline, until, span_cost)


if __name__ == "__main__":
    main()
