"""What the per-job rules of docs/semantics.md cost, against the same fleet without them.

One fleet (the yardstick): 2,000 jobs every 15 to 120 minutes with durations of 1 to 30, on
1,000 workers (busy a little over half the time), for a week of minute ticks (``--days``).
Each variant gives every job one rule and is played in the same run, in-process, as
``cronlapse run`` plays a scenario (``ScenarioRunner``):

- overlap: ``overlap: Forbid`` on every job (runs longer than the interval are skipped);
- buffer: ``max_active: 1`` (Airflow's max_active_runs: such runs wait);
- pools: every job in one of four pools of 200 slots (800 in all, the workers 1,000);
- dependencies: each job after the first 100 depends on one of them, run by run (all_success);
- deadline: ``deadline: 60`` on every job (one timer per run);
- catch-up: ``catch_up_window`` and ``max_missed`` (they act only on resume: the hooks' cost);
- start deadline: ``start_deadline: 60`` on every job (one timer per run; runs that wait longer
  for a worker expire).

Backfill is a command, not a rule on every job: a job without one pays a comparison where its
runs end, which the yardstick includes.

Each variant is timed in CPU seconds (time.process_time), the best of ``--repeat`` plays, and
reported per assignment (attempt started) and as a ratio to the yardstick's cost per assignment,
so the machine's speed cancels out. Run from the repository root:
``python benchmarks/semantics.py [--repeat N] [--days D]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.model.events import AttemptStarted
from engine.scenario import ScenarioRunner, parse_scenario

JOBS = 2000
WORKERS = 1000


def fleet(rule: str, days: int) -> str:
    """The scenario text of the fleet with ``rule`` on every job (``""``: none)."""
    generator = random.Random(7)
    lines = [
        "scenario: semantics benchmark",
        f"clock: {{until: {days * 1440}}}",
        "policy: {order: priority}",
        "workers: [" + ", ".join(f"w{n:04}" for n in range(WORKERS)) + "]",
    ]
    if rule == "pools":
        lines.append("pools: {p0: 200, p1: 200, p2: 200, p3: 200}")
    lines.append("jobs:")
    for n in range(JOBS):
        every = generator.choice((15, 30, 60, 120))
        extra = {
            "": "",
            "overlap": ", overlap: Forbid",
            "buffer": ", max_active: 1",
            "pools": f", pool: p{n % 4}",
            "dependencies": f", depends_on: [j{n % 100:04}]" if n >= 100 else "",
            "deadline": ", deadline: 60",
            "catch-up": ", catch_up: latest, catch_up_window: 60, max_missed: 100",
            "start deadline": ", start_deadline: 60",
        }[rule]
        first = generator.randrange(every)
        duration = generator.randint(1, 30)
        lines.append(
            f"  - {{id: j{n:04}, every: {every}, first: {first}, duration: {duration}{extra}}}"
        )
    return "\n".join(lines) + "\n"


def play(text: str) -> tuple[float, int]:
    """CPU seconds to play the scenario, and the attempts it started."""
    scenario = parse_scenario(text, "benchmark.yaml")
    gc.collect()
    start = time.process_time()
    runner = ScenarioRunner(scenario)
    runner.run()
    seconds = time.process_time() - start
    assignments = sum(1 for event in runner.engine.log if isinstance(event, AttemptStarted))
    return seconds, assignments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--days", type=int, default=7)
    arguments = parser.parse_args()
    rows = []
    rules = ("", "overlap", "buffer", "pools", "dependencies", "deadline", "catch-up")
    for rule in (*rules, "start deadline"):
        text = fleet(rule, arguments.days)
        runs = [play(text) for _ in range(arguments.repeat)]
        seconds = min(run[0] for run in runs)
        rows.append((rule or "none (yardstick)", seconds, runs[0][1]))
    base = rows[0][1] / rows[0][2]
    days, repeat = arguments.days, arguments.repeat
    print(f"{JOBS} jobs, {WORKERS} workers, {days} days of minute ticks, best of {repeat}")
    print()
    print("| rule on every job | CPU s | assignments | µs per assignment | × yardstick |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for rule, seconds, assignments in rows:
        per = seconds / assignments
        print(f"| {rule} | {seconds:.2f} | {assignments:,} | {per * 1e6:.1f} | {per / base:.2f} |")


if __name__ == "__main__":
    main()
