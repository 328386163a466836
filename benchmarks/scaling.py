"""Cost curves: how the engine's time and memory grow with jobs, workers, horizon and backlog.

Every point is a scenario (the ``generate:`` section of docs/scenarios.md) played headless by
``ScenarioRunner`` with the archive on (as ``cronlapse sweep`` plays a variant), in a subprocess
of its own: its peak memory is that process's maximum resident set size minus what it held after
its imports, so points do not pollute each other. Each row shows the events logged, the
occurrence records made (``len(engine.query.records())``), the runs that fell due (implicit ones
included), the assignments (attempts started), the cost per assignment and per event after tick 0
(tick 0 registers the workers and schedules the jobs: a cost per job, timed apart), and the
seconds the cyclic garbage collector took of the play. Times are the process's CPU seconds
(time.process_time): on a shared machine they vary less than wall time, and a point runs on one
core. The design says a run costs what happens in it: time and memory should grow with
assignments, not with ticks nor with due runs.

The sweeps (the default sizes; ``--full`` adds 100,000 jobs and a year, ``--quick`` shrinks all):

- jobs: 1k, 10k (100k) jobs of the mixed fleet on 1,000 workers for a day;
- workers: 10, 100, 1,000 workers for 10k jobs for a day;
- horizon: a day, a week, a month (a year) of minute ticks for 1k jobs on 100 workers;
- backlog: one worker held by an attempt that never ends while a job due every tick piles up
  10, 10^3, 10^6 runs (and 10^9) under the priority order;
- reprioritised: the same backlogs (10, 10^3, 10^6), then the piled-up job's priority changes
  at the last tick, which materialises its waiting runs: the one cost that grows per due run;
- fleet: 10k jobs of mixed cron and interval schedules on 500 workers over 30 days.

The mixed fleet: half interval services (every 4, 6, 12 or 24 hours at seeded offsets), 40%
nightly or daily batch jobs at one of eight times, 10% cron jobs in business hours or every few
hours; durations 1-20 minutes, 2% random failures retried with jittered backoff.

Run from the repository root: ``python benchmarks/scaling.py [--quick | --full]``. It prints a
Markdown table (the cost curves of docs/performance.md) after a header naming the machine.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.model.events import AttemptStarted
from engine.scenario import ScenarioRunner, parse_scenario

DAY = 1440
"""Minute ticks in a day."""

HORIZONS = {"day": DAY, "week": 7 * DAY, "month": 30 * DAY, "year": 365 * DAY}

COLUMNS = (
    "sweep",
    "jobs",
    "workers",
    "ticks",
    "load s",
    "tick 0 s",
    "play s",
    "gc s",
    "peak MiB",
    "events",
    "records",
    "due runs",
    "assignments",
    "µs/assignment",
    "µs/event",
    "KiB/assignment",
)


@dataclass(frozen=True, slots=True)
class Point:
    """One measurement: a fleet of ``jobs`` on ``workers`` to tick ``ticks``, or a backlog."""

    sweep: str
    jobs: int
    workers: int
    ticks: int
    backlog: bool = False
    reprioritise: bool = False
    """For a backlog: change the piled-up job's priority at the last tick."""


@dataclass(frozen=True, slots=True)
class Sizes:
    """The sizes of one mode's sweeps."""

    jobs: tuple[int, ...]
    fleet_workers: int
    workers: tuple[int, ...]
    workers_jobs: int
    horizons: tuple[str, ...]
    horizon_jobs: int
    horizon_workers: int
    backlogs: tuple[int, ...]
    reprioritised: tuple[int, ...]
    headline: tuple[int, int, int]
    """The mixed fleet played to the end: jobs, workers, days."""


MODES = {
    "quick": Sizes(
        jobs=(30, 100, 300),
        fleet_workers=30,
        workers=(2, 10, 50),
        workers_jobs=100,
        horizons=("day", "week"),
        horizon_jobs=30,
        horizon_workers=10,
        backlogs=(10, 10**3, 10**6),
        reprioritised=(10, 10**3),
        headline=(100, 10, 30),
    ),
    "default": Sizes(
        jobs=(1_000, 10_000),
        fleet_workers=1_000,
        workers=(10, 100, 1_000),
        workers_jobs=10_000,
        horizons=("day", "week", "month"),
        horizon_jobs=1_000,
        horizon_workers=100,
        backlogs=(10, 10**3, 10**6),
        reprioritised=(10, 10**3, 10**6),
        headline=(10_000, 500, 30),
    ),
    "full": Sizes(
        jobs=(1_000, 10_000, 100_000),
        fleet_workers=1_000,
        workers=(10, 100, 1_000),
        workers_jobs=10_000,
        horizons=("day", "week", "month", "year"),
        horizon_jobs=1_000,
        horizon_workers=100,
        backlogs=(10, 10**3, 10**6, 10**9),
        reprioritised=(10, 10**3, 10**6),
        headline=(10_000, 500, 30),
    ),
}


def points(sizes: Sizes) -> list[Point]:
    """Every point of one mode, sweep after sweep."""
    found = [Point("jobs", jobs, sizes.fleet_workers, DAY) for jobs in sizes.jobs]
    found += [Point("workers", sizes.workers_jobs, workers, DAY) for workers in sizes.workers]
    found += [
        Point(f"horizon: {name}", sizes.horizon_jobs, sizes.horizon_workers, HORIZONS[name])
        for name in sizes.horizons
    ]
    found += [
        Point(f"backlog: 10^{len(str(depth)) - 1}", 2, 1, depth - 1, backlog=True)
        for depth in sizes.backlogs
    ]
    found += [
        Point(
            f"reprioritised: 10^{len(str(depth)) - 1}",
            2,
            1,
            depth - 1,
            backlog=True,
            reprioritise=True,
        )
        for depth in sizes.reprioritised
    ]
    jobs, workers, days = sizes.headline
    found.append(Point(f"fleet, {days} days", jobs, workers, days * DAY))
    return found


def scenario_text(point: Point) -> str:
    """The point's scenario file."""
    if point.backlog:
        # hold@0 takes the only worker (same priority, same tick: hold < pile) and never ends;
        # pile@0, pile@1, ... pile up behind it: ticks + 1 runs by the end. A priority change
        # under the priority order materialises a job's waiting runs (docs/engine.md).
        change = f"timeline: [{{at: {point.ticks}, modify: {{job: pile, priority: 1}}}}]"
        return f"""
scenario: backlog of {point.ticks + 1} runs
clock: {{until: {point.ticks}}}
policy: {{order: priority}}
workers: [w]
jobs:
  - {{id: hold, hang: [1]}}
  - {{id: pile, every: 1}}
{change if point.reprioritise else ""}
"""
    workers = ", ".join(f"w-{n:04}" for n in range(1, point.workers + 1))
    interval = point.jobs // 2
    daily = point.jobs * 2 // 5
    cron = point.jobs - interval - daily
    return f"""
scenario: {point.jobs} mixed jobs on {point.workers} workers
clock: {{epoch: "2026-03-02T00:00:00", timezone: UTC, tick: 60, until: {point.ticks}}}
seed: 12
workers: [{workers}]
defaults:
  max_retries: 2
  failure_rate: 0.02
  backoff: {{kind: exponential, base: 2, cap: 30, jitter: full}}
generate:
  - count: {interval}
    id: "svc-{{n:06}}"
    choose: {{every: [240, 360, 720, 1440], priority: [high, medium, low]}}
    spread: {{first: [0, 1439], duration: [1, 20]}}
  - count: {daily}
    id: "batch-{{n:06}}"
    choose:
      daily: ["00:00", "01:00", "02:30", "04:00", "06:00", "12:00", "18:00", "22:00"]
      priority: [medium, low]
    spread: {{duration: [1, 20]}}
  - count: {cron}
    id: "cron-{{n:06}}"
    choose: {{cron: ["0 9-17 * * mon-fri", "15 */2 * * *", "0 */4 * * *"]}}
    spread: {{duration: [1, 20], priority: [0, 2]}}
"""


def _max_rss() -> int:
    """This process's peak resident set size in bytes (Linux gives KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


@contextmanager
def _collector_timed() -> Iterator[list[float]]:
    """Seconds the cyclic garbage collector ran inside the block (in the list's one item)."""
    spent = [0.0]
    started = [0.0]

    def timed(phase: str, _info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            spent[0] += time.process_time() - started[0]

    gc.callbacks.append(timed)
    try:
        yield spent
    finally:
        gc.callbacks.remove(timed)


def measure(point: Point) -> dict[str, float | int]:
    """Load and play the point's scenario in this process; what it cost and what it did.

    Tick 0 (registering the workers, scheduling the jobs, the first dispatch) is timed apart:
    it costs per job, and the rest of the run is what should cost per assignment."""
    text = scenario_text(point)
    baseline = _max_rss()
    started = time.process_time()
    scenario = parse_scenario(text, point.sweep)
    loaded = time.process_time()
    runner = ScenarioRunner(scenario, archive=True)
    runner.run_to(0)
    set_up = time.process_time()
    first_events = len(runner.engine.log)
    with _collector_timed() as collecting:
        failures = runner.run()
    played = time.process_time()
    peak = _max_rss() - baseline
    assert not failures, failures
    engine = runner.engine
    starts = [event.tick for event in engine.log if type(event) is AttemptStarted]
    return {
        "load": loaded - started,
        "start": set_up - loaded,
        "play": played - set_up,
        "gc": collecting[0],
        "peak": peak,
        "events": len(engine.log),
        "later_events": len(engine.log) - first_events,
        "records": len(engine.query.records()),
        "due": engine.query.count_runs(),
        "assignments": len(starts),
        "later_assignments": sum(1 for tick in starts if tick > 0),
    }


def measure_apart(point: Point) -> dict[str, float | int]:
    """``measure`` in a fresh interpreter, so its peak memory is its own."""
    completed = subprocess.run(
        [sys.executable, __file__, "--point", json.dumps(asdict(point))],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def row(point: Point, cost: dict[str, float | int]) -> list[str]:
    """The table's cells for one point. The costs per assignment and per event are those of the
    run after tick 0; a backlog has one assignment and at most one event after tick 0 by
    construction, so they are left out."""
    assignments = int(cost["assignments"])
    later, play = int(cost["later_assignments"]), float(cost["play"])
    later_events = int(cost["later_events"])
    per_event = play / later_events * 1e6 if later_events and not point.backlog else None
    per_assignment = play / later * 1e6 if later and not point.backlog else None
    memory = cost["peak"] / 1024 / assignments if not point.backlog else None
    return [
        point.sweep,
        f"{point.jobs:,}",
        f"{point.workers:,}",
        f"{point.ticks:,}",
        f"{cost['load']:.2f}",
        f"{cost['start']:.2f}",
        f"{play:.2f}",
        f"{cost['gc']:.2f}",
        f"{cost['peak'] / 2**20:.1f}",
        f"{int(cost['events']):,}",
        f"{int(cost['records']):,}",
        f"{int(cost['due']):,}",
        f"{assignments:,}",
        _optional(per_assignment, 1),
        _optional(per_event, 1),
        _optional(memory, 2),
    ]


def _optional(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def markdown(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def machine() -> str:
    """Where and when it ran: cores, memory, Python, date."""
    memory = "?"
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        total_kib = int(meminfo.read_text().split("MemTotal:")[1].split()[0])
        memory = f"{total_kib / 2**20:.0f} GiB"
    return (
        f"machine: {os.cpu_count()} cores (nproc), {memory} memory, "
        f"Python {platform.python_version()} ({platform.machine()}), "
        f"{datetime.date.today().isoformat()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small sizes, for a test")
    size.add_argument("--full", action="store_true", help="add 100k jobs and a year (~5 min)")
    parser.add_argument("--point", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.point:
        print(json.dumps(measure(Point(**json.loads(args.point)))))
        return

    mode = "quick" if args.quick else "full" if args.full else "default"
    command = "python benchmarks/scaling.py" + {"quick": " --quick", "full": " --full"}.get(
        mode, ""
    )
    print(f"command: {command}")
    print(machine())
    print()
    print(markdown(list(COLUMNS)))
    print(markdown(["---"] + ["---:"] * (len(COLUMNS) - 1)))
    for point in points(MODES[mode]):
        print(markdown(row(point, measure_apart(point))), flush=True)


if __name__ == "__main__":
    main()
