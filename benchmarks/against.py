"""What users wait on, against another checkout of cronlapse in the same run.

Each case is a ``cronlapse`` command line, run as a process in this checkout and in the other one
(``--against DIR``: a checkout with its own ``.venv``, e.g. a worktree of an older commit),
alternated round by round so that both see the same machine. Each run's CPU time (user + system)
and peak resident set come from ``/usr/bin/time``; the medians and the ratio ``this / other`` are
printed per case, with the load average (one minute) before and after the case: CPU time swings
less than wall time on a shared machine, and the ratio of alternated rounds less than either, but
neither is free of a busy machine.

The cases (``--cases``, comma-separated; all by default):

- ``run-demo``: ``cronlapse run scenarios/demo.yaml``, output discarded;
- ``sweep-demo``: ``cronlapse sweep`` of the demo over 5 worker counts, one process;
- ``fleet-3d`` and ``fleet-30d``: ``cronlapse run`` of a fleet of 1,000 recurring jobs (every
  5, 10, 15, 30 or 60 minutes, 1-2 minute runs) on 200 workers for 3 and for 30 simulated days
  of one-minute ticks, written to a temporary directory.

Both sides run from compiled bytecode, as an installed cronlapse does. With
``PYTHONDONTWRITEBYTECODE`` set (as on this machine), a checkout never compiled parses every
module from source at every run (a tenth of the demo's run in instructions), and one edited since
it was compiled parses the modules edited: the two sides would pay for that unequally. So every
run gets a ``PYTHONPYCACHEPREFIX`` of its own in a temporary directory (neither checkout is
written to), filled by one unmeasured run of each case per checkout (played to tick 0) first.

Run from the repository root::

    .venv/bin/python benchmarks/against.py --against ../old-checkout [--rounds 3] [--cases ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = "scenarios/demo.yaml"


def fleet_text(days: int) -> str:
    """The fleet of the issue's memory figures, over ``days`` days."""
    workers = ", ".join(f"w-{n:03}" for n in range(1, 201))
    return f"""scenario: fleet of 1,000 jobs on 200 workers, {days} days
clock: {{epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60, until: {days * 1440}}}
policy: {{order: priority}}
seed: 7
workers: [{workers}]
generate:
  - count: 1000
    id: "job-{{n:04}}"
    choose:
      every: [5, 10, 15, 30, 60]
    spread: {{first: [0, 59], duration: [1, 2]}}
"""


def cases(scratch: Path) -> dict[str, list[str]]:
    for days in (3, 30):
        (scratch / f"fleet-{days}d.yaml").write_text(fleet_text(days))
    sweep = ["sweep", DEMO, "--vary", "workers=30..70/10", "--no-plot", "--processes", "1"]
    return {
        "run-demo": ["run", DEMO],
        "sweep-demo": sweep,
        "fleet-3d": ["run", str(scratch / "fleet-3d.yaml")],
        "fleet-30d": ["run", str(scratch / "fleet-30d.yaml")],
    }


def bytecode(prefix: Path) -> dict[str, str]:
    """The environment of a run whose compiled modules are kept under ``prefix``."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**environment, "PYTHONPYCACHEPREFIX": str(prefix)}


def warm(checkout: Path, arguments: list[str], prefix: Path) -> None:
    """One unmeasured run, to tick 0, that compiles what the case imports under ``prefix``."""
    subprocess.run(
        [str(checkout / ".venv/bin/cronlapse"), *arguments, "--until", "0"],
        cwd=checkout,
        env=bytecode(prefix),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )


def measure(checkout: Path, arguments: list[str], prefix: Path) -> tuple[float, float]:
    """CPU seconds and peak resident megabytes of one ``cronlapse`` run in ``checkout``."""
    command = ["/usr/bin/time", "-f", "%U %S %M", str(checkout / ".venv/bin/cronlapse")]
    done = subprocess.run(
        command + arguments,
        cwd=checkout,
        env=bytecode(prefix),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    user, system, peak = done.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", default="run-demo,sweep-demo,fleet-3d,fleet-30d")
    args = parser.parse_args()
    other = args.against.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        every = cases(Path(scratch))
        for name in args.cases.split(","):
            arguments = every[name]
            this_runs, other_runs = [], []
            load_before = os.getloadavg()[0]
            prefixes = {
                ROOT: Path(scratch) / "bytecode-this",
                other: Path(scratch) / "bytecode-other",
            }
            for checkout, prefix in prefixes.items():
                warm(checkout, arguments, prefix)
            for _ in range(args.rounds):
                this_runs.append(measure(ROOT, arguments, prefixes[ROOT]))
                other_runs.append(measure(other, arguments, prefixes[other]))
            report(name, this_runs, other_runs, (load_before, os.getloadavg()[0]))
            sys.stdout.flush()


def report(name: str, this_runs: list, other_runs: list, load: tuple[float, float]) -> None:
    this_cpu = statistics.median(cpu for cpu, _ in this_runs)
    other_cpu = statistics.median(cpu for cpu, _ in other_runs)
    this_peak = statistics.median(peak for _, peak in this_runs)
    other_peak = statistics.median(peak for _, peak in other_runs)
    print(
        f"{name:10}  cpu {this_cpu:7.2f} s against {other_cpu:7.2f} s "
        f"({this_cpu / other_cpu:.2f}x)   peak {this_peak:7.0f} MB against {other_peak:7.0f} MB "
        f"({this_peak / other_peak:.2f}x)   load {load[0]:.1f} to {load[1]:.1f}"
    )


if __name__ == "__main__":
    main()
