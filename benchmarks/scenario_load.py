"""How long a large scenario takes to load, against PyYAML's own C loader reading the same text
(the yardstick, measured in the same run).

The scenario is what ``cronlapse import crontab`` writes for a crontab of JOBS entries (each its
own schedule and command, one worker each): the biggest files users load. Best of REPEAT:

- the yardstick: ``yaml.load`` with ``yaml.CSafeLoader`` (libyaml builds plain Python objects,
  with no positions and no checks);
- the loader: :func:`engine.scenario.parse_scenario` (positions, refusals, every job validated);
- the import: the crontab read, written as scenario text and loaded (as ``cronlapse import``).

    python benchmarks/scenario_load.py [--jobs 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from benchmarks.timing import best  # noqa: E402
from cronlapse.importers.fleet import ImportOptions, import_fleet  # noqa: E402
from engine.scenario import parse_scenario  # noqa: E402


def crontab(jobs: int) -> str:
    return "".join(
        f"{n % 60} {n % 24} * * {n % 7} /usr/local/bin/job-{n} --quiet\n" for n in range(jobs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fleet.crontab"
        path.write_text(crontab(args.jobs))
        text = import_fleet("crontab", [str(path)], ImportOptions()).text
        yardstick = best(args.repeat, lambda: yaml.load(text, Loader=yaml.CSafeLoader))
        loader = best(args.repeat, lambda: parse_scenario(text, "fleet.yaml"))
        imported = best(args.repeat, lambda: import_fleet("crontab", [str(path)], ImportOptions()))
    print(f"{args.jobs:,} jobs, {len(text):,} characters of scenario")
    print(f"{'':28}{'seconds':>9}{'ratio':>8}")
    for name, seconds in (
        ("yaml.CSafeLoader (yardstick)", yardstick),
        ("parse_scenario", loader),
        ("import crontab (read+load)", imported),
    ):
        print(f"{name:28}{seconds:9.3f}{seconds / yardstick:7.1f}x")


if __name__ == "__main__":
    main()
