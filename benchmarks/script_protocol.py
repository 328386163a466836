"""Time the seed 001 script facade on a large generated script, against its yardstick.

The script: ``INIT 10 2``, then N SUBMITs (seeded ``random.Random(1)``: priorities 0..100,
durations 1..10, maxAttempts 1..3, 30% with one dependency on an earlier job, 10% with a scripted
failure of the first attempt), then one ``TICK`` large enough to finish everything.

Run from the repository root::

    .venv/bin/python benchmarks/script_protocol.py [--jobs N ...] [--rounds R] [--tracemalloc]
        [--collector script|default]

For each N (3,000 and 100,000 by default), ``execute_script`` and the event-driven yardstick
(benchmarks/baselines/events_001.py) run the same script in this process, alternately, R times (5);
the outputs must be identical. Prints the median wall times (time.perf_counter) and the ratio
``engine / yardstick``, the peak memory (the process's maximum resident set size, or with
--tracemalloc the peak of Python allocations during one more engine run, which tracing slows
down), and counts of the output lines.

Both run under the same cycle-collector settings: by default ``cronlapse script``'s (the path
users run: cronlapse/cli/collector.py turns the collector off for a script, whose run makes no
reference cycles), or Python's own with ``--collector default``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.baselines.events_001 import execute
from cronlapse.cli.collector import collector_tuned_for
from engine.facades.script import execute_script

FINAL_TICK = 10**12


def make_script(jobs: int, seed: int = 1) -> list[str]:
    """The benchmark script: INIT, ``jobs`` SUBMITs (some followed by a FAIL) and one TICK."""
    rng = random.Random(seed)
    lines = ["INIT 10 2"]
    for i in range(jobs):
        priority = rng.randint(0, 100)
        duration = rng.randint(1, 10)
        max_attempts = rng.randint(1, 3)
        deps = [f"j{rng.randrange(i)}"] if i and rng.random() < 0.3 else []
        lines.append(
            f"SUBMIT j{i} {priority} {duration} {max_attempts} {len(deps)} {' '.join(deps)}"
        )
        if rng.random() < 0.1:
            lines.append(f"FAIL j{i} 1")
    lines.append(f"TICK {FINAL_TICK}")
    return [line.rstrip() for line in lines]


def timed(function, script: list[str]) -> tuple[float, list[str]]:
    """Seconds for one run after a full collection, and its output."""
    gc.collect()
    start = time.perf_counter()
    output = function(script)
    return time.perf_counter() - start, output


def compare(jobs: int, seed: int, rounds: int, trace: bool) -> None:
    script = make_script(jobs, seed)
    print(f"== script: {len(script):,} lines, {jobs:,} jobs")
    engine_times, yardstick_times = [], []
    for _ in range(max(rounds, 1)):
        seconds, result = timed(execute_script, script)
        engine_times.append(seconds)
        seconds, (output, errors) = timed(execute, script)
        yardstick_times.append(seconds)
        assert output == result.output and errors == [], "the yardstick disagrees"
    engine, yardstick = statistics.median(engine_times), statistics.median(yardstick_times)
    print(f"   medians of {rounds} alternated rounds:")
    print(f"      engine: {engine:7.3f} s  (all: {', '.join(f'{t:.3f}' for t in engine_times)})")
    print(
        f"   yardstick: {yardstick:7.3f} s  (all: {', '.join(f'{t:.3f}' for t in yardstick_times)})"
    )
    print(f"   ratio: engine / yardstick = {engine / yardstick:.2f}x")
    if trace:
        gc.collect()
        tracemalloc.start()
        execute_script(script)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory = f"engine peak traced allocations {peak / 2**20:.1f} MiB"
    else:
        # ru_maxrss is in KiB on Linux and in bytes on macOS.
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        scale = 2**20 if sys.platform == "darwin" else 2**10
        memory = f"max resident set {maxrss / scale:.1f} MiB (whole process, so far)"
    print(f"   {memory}")
    kinds = Counter(line.split(" ", 1)[0] for line in result.output)
    errors = len(result.errors)
    print(f"   output: {len(result.output):,} lines, {errors} errors, exit {result.exit_code}")
    print("   " + ", ".join(f"{kind} {count:,}" for kind, count in sorted(kinds.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[3_000, 100_000], help="numbers of jobs"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--rounds", type=int, default=5, help="alternated rounds (5)")
    parser.add_argument(
        "--tracemalloc", action="store_true", help="measure peak Python allocations (slower)"
    )
    parser.add_argument(
        "--collector",
        choices=("script", "default"),
        default="script",
        help="the collector's settings for both: `cronlapse script`'s (off) or Python's",
    )
    args = parser.parse_args()
    tuned = (
        collector_tuned_for("script") if args.collector == "script" else contextlib.nullcontext()
    )
    with tuned:
        state = "on" if gc.isenabled() else "off"
        print(f"collector (both): {state}, thresholds {gc.get_threshold()}")
        for jobs in args.jobs:
            compare(jobs, args.seed, args.rounds, args.tracemalloc)


if __name__ == "__main__":
    main()
