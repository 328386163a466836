"""Time the dashboard's redraws: a step, a rewind and a jump, on the demo fleet and at 100,000
occurrences, headless (``App.run_test``).

Run from the repository root::

    .venv/bin/python benchmarks/dashboard.py [--size 160x48] [--repeat 20] [--skip-demo]

For each key it prints three costs, in milliseconds (median and worst of ``--repeat`` presses):

- ``move``: the history moving the engine (``Navigator.step``/``seek``: engine and replay time);
- ``views``: the dashboard updating its indexes, timeline lanes, header and detail pane from the
  move's events (what the dashboard itself costs per step);
- ``paint``: Textual laying out and drawing the screen (the visible rows only), measured inside
  ``Screen._refresh_layout``/``_compositor_refresh``;

and ``redraw`` = views + paint, the time from the engine having moved to the new frame. Waiting
for input and Textual's frame pacing are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.screen import Screen

from engine.commands import RegisterWorker, ScheduleJob
from engine.core import Engine
from engine.model import JobSpec
from engine.policies import Policy
from engine.schedules import Every
from engine.ticks import at_ticks
from tui.app import DashboardApp
from tui.model import navigator as navigator_module
from tui.model.session import Session, load_session, make_session
from tui.screens.playback import SPEEDS

DEMO = Path(__file__).resolve().parents[1] / "scenarios" / "demo.yaml"


class Meter:
    """Accumulates time spent in wrapped functions (outermost calls only)."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self._depth = 0

    def wrap(self, owner: type, name: str, bucket: str) -> None:
        original = getattr(owner, name)
        meter = self

        def timed(*args, **kwargs):
            if meter._depth:
                return original(*args, **kwargs)
            meter._depth += 1
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                meter._depth -= 1
                meter.totals[bucket] = meter.totals.get(bucket, 0.0) + time.perf_counter() - started

        setattr(owner, name, timed)

    def take(self) -> dict[str, float]:
        totals, self.totals = self.totals, {}
        return totals


METER = Meter()


def _gc_timer(phase: str, info: dict) -> None:
    """Time spent collecting garbage, counted apart (it is not the dashboard's work)."""
    if phase == "start":
        _gc_timer.started = time.perf_counter()  # type: ignore[attr-defined]
    else:
        spent = time.perf_counter() - _gc_timer.started  # type: ignore[attr-defined]
        METER.totals["gc"] = METER.totals.get("gc", 0.0) + spent


gc.callbacks.append(_gc_timer)
for _name in ("step", "seek", "first", "last"):
    METER.wrap(navigator_module.Navigator, _name, "move")
METER.wrap(Screen, "_refresh_layout", "paint")
METER.wrap(Screen, "_compositor_refresh", "paint")


def fleet_100k(jobs: int = 1_000, every: int = 50, until: int = 5_000) -> Session:
    """``jobs`` jobs every ``every`` ticks on 50 workers: jobs * until / every occurrences."""
    timeline = [(0, RegisterWorker(f"w{n:02d}")) for n in range(1, 51)]
    timeline += [
        (0, ScheduleJob(JobSpec(f"job-{n:04d}", Every(n % every, every), duration=1 + n % 3)))
        for n in range(jobs)
    ]
    return make_session("100k occurrences", lambda: Engine(Policy()), at_ticks(timeline), until)


async def measure(
    session: Session, size: tuple[int, int], start: int, keys: list[str], repeat: int
) -> list[tuple[str, dict[str, list[float]]]]:
    app = DashboardApp(session=session, watch=False, blink=False)
    results = []
    async with app.run_test(size=size) as pilot:
        screen = app.dashboard
        screen.apply(screen.navigator.seek(start))
        await app.workers.wait_for_complete()
        await pilot.pause()
        original_apply = screen.apply

        def timed_apply(change):
            moved = time.perf_counter()
            try:
                return original_apply(change)
            finally:
                METER.totals["views"] = METER.totals.get("views", 0.0) + (
                    time.perf_counter() - moved
                )

        screen.apply = timed_apply  # type: ignore[method-assign]
        for key in keys:
            samples: dict[str, list[float]] = {"move": [], "views": [], "paint": [], "gc": []}
            for _ in range(repeat):
                if key in ("right", "shift+right"):
                    # forward keys start from the same tick each time
                    screen.apply(screen.navigator.seek(start))
                    await pilot.pause()
                METER.take()
                await pilot.press(key)
                await pilot.pause()
                totals = METER.take()
                for bucket in samples:
                    samples[bucket].append(totals.get(bucket, 0.0) * 1000)
            results.append((key, samples))
            screen.apply(screen.navigator.seek(start))
            await pilot.pause()
        occurrences = len(screen.navigator.engine.occurrences)
        events = len(screen.navigator.engine.log)
        print(
            f"  at tick {screen.navigator.tick:,}: {occurrences:,} occurrences, {events:,} events"
        )
    return results


def report(title: str, results) -> None:
    print(f"\n{title}")
    print(f"  {'key':12} {'move':>14} {'views':>14} {'paint':>14} {'redraw':>14} {'gc':>14}")
    for key, samples in results:
        redraw = [v + p for v, p in zip(samples["views"], samples["paint"], strict=True)]
        cells = [
            f"{statistics.median(values):6.1f} /{max(values):6.1f}"
            for values in (
                samples["move"],
                samples["views"],
                samples["paint"],
                redraw,
                samples["gc"],
            )
        ]
        print(f"  {key:12} " + " ".join(f"{cell:>14}" for cell in cells))
    print("  (milliseconds: median / worst)")


def play(session: Session, size: tuple[int, int], frames: int) -> None:
    """Full speed (1,000 event ticks a second): one frame is 50 event ticks and a redraw."""

    async def run() -> list[float]:
        app = DashboardApp(session=session, watch=False, blink=False)
        timings = []
        async with app.run_test(size=size) as pilot:
            screen = app.dashboard
            screen.speed_index = len(SPEEDS) - 1
            for _ in range(frames):
                started = time.perf_counter()
                screen.play_frame()
                await pilot.pause()
                timings.append((time.perf_counter() - started) * 1000)
            print(f"  reached tick {screen.navigator.tick:,}")
        return timings

    timings = asyncio.run(run())
    print(
        f"  one frame at full speed: median {statistics.median(timings):.1f} ms, "
        f"worst {max(timings):.1f} ms (wall clock, engine included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="160x48", help="terminal size, e.g. 160x48 or 80x24")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    size = (width, height)
    keys = ["right", "left", "shift+right", "shift+left"]

    def timed(label: str, make: Callable[[], Session]) -> Session:
        started = time.perf_counter()
        session = make()
        print(f"{label}: loaded in {time.perf_counter() - started:.2f} s")
        return session

    print(f"terminal {width}x{height}, {args.repeat} presses per key")
    if not args.skip_demo and DEMO.is_file():
        session = timed("demo fleet", lambda: load_session(DEMO))
        results = asyncio.run(measure(session, size, 1_440, keys, args.repeat))
        report("demo fleet (2,000 jobs, 50 workers), Tuesday 00:00 (tick 1,440)", results)
        session = timed("demo fleet", lambda: load_session(DEMO))
        play(session, size, 20)
    session = timed("100k fleet", fleet_100k)
    results = asyncio.run(measure(session, size, 4_900, keys, args.repeat))
    report("100,000 occurrences (1,000 jobs every 50 ticks, 50 workers), tick 4,900", results)


if __name__ == "__main__":
    main()
