"""``cronlapse tui --db``: opening a service's journal in the dashboard, and following it.

Builds, in process, the journal ``benchmarks/service.py`` builds (``--jobs`` hourly jobs over
``--days`` days, every run completed by its executor's report), then measures what the live
dashboard does with it, headless, slice by slice as the screen runs it:

- reading: every row read and turned into its engine command, in slices sized to take about
  25 ms as the screen reads them (the header's "reading the journal N%"); yardstick: reading
  the rows alone;
- replaying: the history played from the first row to the live head as a jump (the slices the
  screen plays, sized to about 25 ms each); yardstick: the service's own restart from the whole
  journal (``LiveService.open`` without a snapshot), which plays the same rows;
- the longest slice of each: how long a key can wait while the journal opens;
- following: one poll (the new rows and the clock) with nothing new, and with one new row plus
  the move to the new head; yardstick: the query alone.

Run: ``python benchmarks/live.py`` (``--jobs 1000 --days 30`` for the issue's journal; it takes
many minutes). Times are wall-clock; they swing with the machine's load, the ratios less.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cronlapse.service.store import Entry, open_store  # noqa: E402
from engine.model.records import OccurrenceState  # noqa: E402
from tui.model.jump import Jump, Pacer  # noqa: E402
from tui.model.live import open_live  # noqa: E402
from tui.screens.live import MOST_OPEN_ROWS, OPEN_ROWS  # noqa: E402
from tui.screens.playback import SLICE_SECONDS  # noqa: E402

_spec = importlib.util.spec_from_file_location("service_bench", ROOT / "benchmarks" / "service.py")
assert _spec is not None and _spec.loader is not None
service_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(service_bench)

POLLS = 200


def open_and_replay(url: str) -> dict[str, float]:
    source = open_live(url)
    started = time.perf_counter()
    longest_read = 0.0
    reader = Pacer(SLICE_SECONDS, size=OPEN_ROWS, largest=MOST_OPEN_ROWS)
    while True:
        slice_start = time.perf_counter()
        wanted = reader.size
        _, read = source.poll(wanted)
        elapsed = time.perf_counter() - slice_start
        reader.record(elapsed)
        longest_read = max(longest_read, elapsed)
        if read < wanted:
            break
    reading = time.perf_counter() - started
    jump, pacer = Jump(source.navigator, source.head), Pacer(SLICE_SECONDS)
    started = time.perf_counter()
    longest_slice = 0.0
    while not jump.done:
        slice_start = time.perf_counter()
        jump.advance(pacer.size)
        elapsed = time.perf_counter() - slice_start
        pacer.record(elapsed)
        longest_slice = max(longest_slice, elapsed)
    replaying = time.perf_counter() - started
    running = len(source.history.engine.query.record_keys(OccurrenceState.SUCCEEDED))
    source.reader.close()
    return {
        "reading": reading,
        "longest read slice": longest_read,
        "replaying": replaying,
        "longest jump slice": longest_slice,
        "runs shown": running,
    }


def follow(db: Path) -> dict[str, float]:
    """The cost of a poll at the head: idle, and with one new row and the move to it."""
    url = f"sqlite:///{db}"
    source = open_live(url)
    while source.poll()[1]:
        pass
    source.navigator.seek(source.head)
    started = time.perf_counter()
    for _ in range(POLLS):
        source.reader.rows_after(source.seq, OPEN_ROWS)
    query = (time.perf_counter() - started) / POLLS
    started = time.perf_counter()
    for _ in range(POLLS):
        source.poll()
    idle = (time.perf_counter() - started) / POLLS
    store = open_store(url)
    tick = source.last_row_tick
    busy = 0.0
    for number in range(POLLS):
        tick += 1
        late = {"id": f"late{number}", "at": tick + 10**6}
        store.journal.append([Entry(tick, 2, "schedule", late)])
        started = time.perf_counter()
        source.poll()
        source.navigator.seek(source.head)
        busy += time.perf_counter() - started
    store.close()
    source.reader.close()
    return {"query": query, "idle poll": idle, "poll with a row": busy / POLLS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        db = Path(name) / "live.db"
        rows, runs = service_bench.build_journal(db, args.jobs, args.days, workers=8)
        read_alone = service_bench.time_read(db)
        service_replay, _ = service_bench.time_open(db, snapshots=False)
        live = open_and_replay(f"sqlite:///{db}")
        polls = follow(db)
    print(f"journal: {args.jobs:,} hourly jobs over {args.days} days: {runs:,} runs, {rows:,} rows")
    total = live["reading"] + live["replaying"]
    print(
        f"  reading into the timeline {live['reading']:7.2f} s  "
        f"(rows alone {read_alone:.2f} s: {live['reading'] / read_alone:.1f}x)"
    )
    print(
        f"  replaying to the head     {live['replaying']:7.2f} s  "
        f"(runs shown at the head: {live['runs shown']:,})"
    )
    print(
        f"  opening in all            {total:7.2f} s  "
        f"(the service's own replay {service_replay:.2f} s: {total / service_replay:.2f}x)"
    )
    print(
        f"  longest slice: reading {live['longest read slice'] * 1000:.0f} ms, "
        f"replaying {live['longest jump slice'] * 1000:.0f} ms"
    )
    idle, busy, query = polls["idle poll"], polls["poll with a row"], polls["query"]
    print(
        f"following: a poll with nothing new {idle * 1000:.2f} ms, with a row and the move to it "
        f"{busy * 1000:.2f} ms (the query alone {query * 1000:.2f} ms: "
        f"{idle / query:.1f}x, {busy / query:.1f}x)"
    )


if __name__ == "__main__":
    main()
