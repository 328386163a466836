"""Time ``cronlapse run`` on an imported crontab, phase by phase, against its own play.

A user's real fleet comes in as a crontab (``cronlapse import crontab``) and is played for weeks.
``cronlapse run`` then does more than play it: it prints a line per event, checks the run with
the exactly-once checker and prints the summary tables. Each of those reads the whole log, so
each should cost a fraction of the play, and grow with it, not faster. The yardstick is the
play itself, in the same process: every phase is printed as seconds and as a ratio to the play.

The crontab (seeded ``random.Random(3)``): N entries (300) spread over ten expressions, from
every minute to monthly, ``--days`` days (8) of one-minute ticks. Run from the repository root::

    .venv/bin/python benchmarks/run_fleet.py [--jobs N] [--days D]

Phases, as ``cronlapse run`` runs them (cronlapse/cli/run.py): load (import and parse), play
(the runner's steps, with the checker observing after each), lines (each event formatted as
``cronlapse run`` prints it, to a discarded stream), summary (``run_stats`` and its tables) and
check (``Checker.violations``). Times are ``time.process_time``.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from itertools import starmap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cronlapse.analyses.invariants import Checker
from cronlapse.analyses.stats import run_stats
from cronlapse.exports.report import EventFormatter, print_summary
from cronlapse.importers.fleet import ImportOptions, import_fleet
from engine.scenario import ScenarioRunner

EXPRESSIONS = [
    "* * * * *",
    "*/5 * * * *",
    "*/15 * * * *",
    "0 * * * *",
    "30 2 * * *",
    "0 9-17 * * mon-fri",
    "@daily",
    "@hourly",
    "0 0 1 * *",
    "*/10 8-20 * * *",
]


def crontab(jobs: int) -> str:
    rng = random.Random(3)
    lines = [f"{rng.choice(EXPRESSIONS)} /usr/local/bin/job-{n:03d}" for n in range(jobs)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=300, help="crontab entries (300)")
    parser.add_argument("--days", type=int, default=8, help="days simulated (8)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "crontab")
        path.write_text(crontab(args.jobs))
        started = time.process_time()
        fleet = import_fleet("crontab", [str(path)], ImportOptions(days=args.days))
        phases = {"load": time.process_time() - started}
    scenario = fleet.scenario
    runner = ScenarioRunner(scenario)
    checker = Checker(runner.engine)
    started = time.process_time()
    for _ in runner.steps():
        checker.observe()
    phases["play"] = time.process_time() - started
    log = runner.engine.log
    started = time.process_time()
    formatter = EventFormatter(scenario.clock)
    lines = starmap(formatter.stored_line, log.stored_since(0))
    io.StringIO().writelines(line + "\n" for line in lines)
    phases["lines"] = time.process_time() - started
    started = time.process_time()
    print_summary(run_stats(log, runner.processed), io.StringIO())
    phases["summary"] = time.process_time() - started
    started = time.process_time()
    found = checker.violations(runner.processed)
    phases["check"] = time.process_time() - started
    assert not found, found[:3]
    print(
        f"{args.jobs} crontab entries, {args.days} days: {len(log):,} events, "
        f"{len(runner.engine.query.records()):,} runs"
    )
    play = phases["play"]
    for name, seconds in phases.items():
        print(f"   {name:>8}: {seconds:7.2f} s  {seconds / play:5.2f}x the play")


if __name__ == "__main__":
    main()
