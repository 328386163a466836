"""How long ``cronlapse export --scenario`` takes, against the service's own restart replay of the
same journal (the yardstick, measured in the same run).

A journal is built in-process: JOBS jobs every minute, each run reported done at once, for HOURS
simulated hours (two rows a run, plus clock readings). Then, best of REPEAT:

- the yardstick: a restart's replay of the whole journal (``LiveService.open``, no snapshot);
- the export of the whole journal, and of its second half (``--from`` in the middle).

    python benchmarks/export.py [--jobs 50] [--hours 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before benchmarks/, whose service.py would shadow the package

from benchmarks.timing import best  # noqa: E402
from cronlapse.service.clock import Anchor, LiveClock  # noqa: E402
from cronlapse.service.config import Config  # noqa: E402
from cronlapse.service.export import export_stretch  # noqa: E402
from cronlapse.service.live import LiveService  # noqa: E402
from cronlapse.service.store import open_store  # noqa: E402
from engine.model.records import OccurrenceState  # noqa: E402

START = 1_796_094_000


def build(url: str, jobs: int, hours: int) -> int:
    wall = [float(START)]
    config = Config(workers=8)
    live = LiveService(
        open_store(url), LiveClock(Anchor(wall[0], START, 1.0), lambda: wall[0]), config
    )
    live.open()
    live.snapshot_due = lambda: False  # the yardstick replays the whole journal
    for number in range(jobs):
        live.submit("schedule", {"id": f"job-{number}", "every": 60, "first": START + number % 60})
    for _ in range(hours * 3600):
        wall[0] += 1
        live.advance_clock()
        for job_id, scheduled in list(live.engine.query.record_keys(OccurrenceState.RUNNING)):
            attempt = live.engine.query.record(job_id, scheduled).running_attempt
            args = {"job": job_id, "scheduled": scheduled, "attempt": attempt.number, "ok": True}
            live.submit("complete", args)
    rows = live.store.journal.last_seq()
    live.store.close()
    return rows


def replay(url: str) -> None:
    store = open_store(url)
    clock = LiveClock(Anchor(0.0, 0, 1.0), lambda: 0.0)
    live = LiveService(store, clock, Config(workers=8, snapshot_every=10**9, misfire_grace=10**12))
    live.open()
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--hours", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
    rows = build(url, args.jobs, args.hours)
    middle = str(START + args.hours * 1800)
    yardstick = best(args.repeat, lambda: replay(url))
    whole = best(args.repeat, lambda: export_stretch(url, None, None))
    half = best(args.repeat, lambda: export_stretch(url, middle, None))
    print(f"journal: {rows:,} rows ({args.jobs} jobs every minute, {args.hours} h)")
    print(f"restart replay (yardstick): {yardstick:.2f} s")
    print(f"export, whole journal:      {whole:.2f} s  ({whole / yardstick:.2f}x the replay)")
    print(f"export, second half:        {half:.2f} s  ({half / yardstick:.2f}x the replay)")


if __name__ == "__main__":
    main()
