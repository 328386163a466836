"""Time counting a cron job's backlog, against walking it fire by fire in the same run.

A job's waiting runs are counted (a deletion's cancelled range, the queue depth the service
samples every second, the dashboard's table of cancellations) without materialising them. For a
cron schedule, ``CronSchedule.count_fire_ticks`` walks the first days and the DST changes and
counts every other day as a day already walked (engine/schedules/calendar.py); the yardstick is the
walk it replaced, ``fire_ticks``, one cronsim step a fire.

Run from the repository root::

    .venv/bin/python benchmarks/cron_count.py [--days N]

For each zone and expression, both count the fire ticks of N days (365) of one-minute ticks from
2026-01-01; the counts must agree. Prints both times (best of 3 for the count, one walk) and the
ratio ``walk / count``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock

ZONES = ["UTC", "Europe/Berlin", "America/Santiago"]
EXPRESSIONS = ["* * * * *", "*/5 * * * mon-fri", "0 9-17 * * *", "30 2 * * *"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365, help="days of minute ticks (365)")
    args = parser.parse_args()
    high = args.days * 1440
    print(f"{'zone':18} {'expression':18} {'fires':>8} {'walk s':>8} {'count s':>8} {'ratio':>8}")
    for zone in ZONES:
        for expression in EXPRESSIONS:
            schedule = CronSchedule(expression, Clock.parse("2026-01-01T00:00:00", zone, 60))
            started = time.perf_counter()
            walked = sum(1 for _ in schedule.fire_ticks(1, high))
            walk = time.perf_counter() - started
            counted = schedule.count_fire_ticks(1, high)
            assert counted == walked, (zone, expression, counted, walked)
            count = best(3, lambda s=schedule: s.count_fire_ticks(1, high))
            print(
                f"{zone:18} {expression:18} {walked:>8,} {walk:>8.3f} {count:>8.4f}"
                f" {walk / count:>7.0f}x"
            )


if __name__ == "__main__":
    main()
