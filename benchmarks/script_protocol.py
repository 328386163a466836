"""Time the seed 001 script facade on a large generated script.

The script: ``INIT 10 2``, then 100,000 SUBMITs (seeded ``random.Random(1)``: priorities 0..100,
durations 1..10, maxAttempts 1..3, 30% with one dependency on an earlier job, 10% with a scripted
failure of the first attempt), then one ``TICK`` large enough to finish everything.

Run from the repository root::

    .venv/bin/python benchmarks/script_protocol.py [--jobs N] [--tracemalloc]

Prints the wall time of ``execute_script`` (time.perf_counter), the peak memory (the process's
maximum resident set size, or with --tracemalloc the peak of Python allocations during the run,
which slows the run down), and counts of the output lines.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100_000, help="number of jobs (100,000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument(
        "--tracemalloc", action="store_true", help="measure peak Python allocations (slower)"
    )
    args = parser.parse_args()

    script = make_script(args.jobs, args.seed)
    print(f"script: {len(script):,} lines, {args.jobs:,} jobs")

    if args.tracemalloc:
        tracemalloc.start()
    start = time.perf_counter()
    result = execute_script(script)
    elapsed = time.perf_counter() - start
    if args.tracemalloc:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory = f"peak traced allocations {peak / 2**20:.1f} MiB"
    else:
        # ru_maxrss is in KiB on Linux and in bytes on macOS.
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        scale = 2**20 if sys.platform == "darwin" else 2**10
        memory = f"max resident set {maxrss / scale:.1f} MiB (whole process)"

    kinds = Counter(line.split(" ", 1)[0] for line in result.output)
    print(f"execute_script: {elapsed:.3f} s wall, {memory}")
    errors = len(result.errors)
    print(f"output: {len(result.output):,} lines, {errors} errors, exit {result.exit_code}")
    print("  " + ", ".join(f"{kind} {count:,}" for kind, count in sorted(kinds.items())))


if __name__ == "__main__":
    main()
