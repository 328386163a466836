"""Time the dashboard: ``end`` on the demo fleet, and the redraws of a step, a rewind and a jump
on the demo fleet and at 100,000 occurrences, headless (``App.run_test``).

Run from the repository root::

    .venv/bin/python benchmarks/dashboard.py [--size 160x48,80x24] [--repeat 10] [--skip-demo]

``end`` on the demo, first time (nothing played yet), for each terminal size:

- the yardstick: a direct ``History.seek`` to the last tick on a fresh copy of the run, in the
  same process, the same run;
- ``progress``: from the key to the first frame whose header shows the jump's progress;
- ``landed``: from the key to the first frame that shows the last tick, the views caught up, and
  its ratio to the yardstick (what playing in the background costs over the engine alone);
- ``engine``: the jump's slices (``Jump.advance``) together;
- ``catch-up``: the views updating when the jump ends (the one step with no frame meanwhile);
- ``stall``: the longest the app's loop went without running a 5 ms ticker (how long the screen
  was frozen at worst);
- the same again with ``+`` and ``-`` (play speed) pressed in turn every half second while the
  jump plays: the median and worst time from the key entering the app to its action running (a
  key shows the views as of the tick reached first: that repaint is in it).

Then, for each key, three costs in milliseconds (median and worst of ``--repeat`` presses):

- ``move``: the history moving the engine (``Navigator.step``/``seek``: engine and replay time);
- ``views``: the dashboard updating its indexes, timeline lanes, header and detail pane from the
  move's events (what the dashboard itself costs per step);
- ``paint``: Textual laying out and drawing the screen (the visible rows only), measured inside
  ``Screen._refresh_layout``/``_compositor_refresh``;

and ``redraw`` = views + paint, the time from the engine having moved to the new frame. Waiting
for input and Textual's frame pacing are not counted.

The redraws' yardstick, in the same run and at the same size: ``plain``, Textual repainting a
screen of plain lines that all change (one Line API widget filling the terminal, each line eight
styled cells, no borders), the least a full repaint costs on this machine at this moment; each
redraw is printed as a multiple of it too.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import App
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from engine.core import Engine
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.policies import Policy
from engine.model.records import JobSpec
from engine.play.ticks import at_ticks
from engine.schedules.kinds import Every
from tui.app import DashboardApp
from tui.model import navigator as navigator_module
from tui.model.jump import Jump
from tui.model.navigator import Change
from tui.model.session import Session, load_session, make_session
from tui.screens.dashboard import DashboardScreen
from tui.screens.playback import SPEEDS
from tui.widgets.status_header import Progress, StatusHeader

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
    new_engine = partial(Engine, Policy(), archive=True)
    return make_session("100k occurrences", new_engine, at_ticks(timeline), until)


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
        occurrences = len(screen.navigator.engine.query.records())
        events = len(screen.navigator.engine.log)
        print(
            f"  at tick {screen.navigator.tick:,}: {occurrences:,} occurrences, {events:,} events"
        )
    return results


def report(title: str, results, plain: list[float]) -> None:
    """The costs per key, and each redraw as a multiple of the plain repaint (the yardstick)."""
    yardstick = statistics.median(plain)
    print(f"\n{title}")
    header = f"  {'key':12} {'move':>14} {'views':>14} {'paint':>14} {'redraw':>14} {'gc':>14}"
    print(header + f" {'redraw/plain':>14}")
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
        ratio = f"{statistics.median(redraw) / yardstick:5.1f}x /{max(redraw) / yardstick:5.1f}x"
        print(f"  {key:12} " + " ".join(f"{cell:>14}" for cell in [*cells, ratio]))
    print(
        f"  plain repaint (the yardstick): {yardstick:.1f} / {max(plain):.1f}"
        "\n  (milliseconds: median / worst; redraw/plain: median / worst)"
    )


class PlainLines(Widget):
    """The yardstick's screen: every line eight styled cells of text, all changed by a press."""

    STYLES = (Style(color="cyan"), Style(color="yellow", bold=True), Style(dim=True), Style())

    frame = 0

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        cell = max(1, width // 8)
        segments = [
            Segment(f"{self.frame:>4} {y:>3}:{n}".ljust(cell)[:cell], self.STYLES[n % 4])
            for n in range(8)
        ]
        return Strip(segments).adjust_cell_length(width)


class PlainApp(App[None]):
    def compose(self):
        yield PlainLines()


async def measure_plain(size: tuple[int, int], repeat: int) -> list[float]:
    """The yardstick: Textual's paint of a full screen of changed plain lines, in ms."""
    app = PlainApp()
    timings = []
    async with app.run_test(size=size) as pilot:
        lines = app.query_one(PlainLines)
        await pilot.pause()
        for _ in range(repeat):
            METER.take()
            lines.frame += 1
            lines.refresh()
            await pilot.pause()
            timings.append(METER.take().get("paint", 0.0) * 1000)
    return timings


class EndWatch:
    """What the screen showed when, during a jump: header frames, key actions, loop gaps."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.progress_at = 0.0
        self.landed_at: float | None = None
        self.catch_up = 0.0
        self.key_latencies: list[float] = []
        self.pressed: list[float] = []
        self.started = 0.0
        self.stall = 0.0

    def install(self) -> None:
        watch = self
        render = StatusHeader.render
        speed = DashboardScreen.action_speed
        stop_jump = DashboardScreen.stop_jump

        def timed_render(header: StatusHeader):
            state = header._state
            now = time.perf_counter()
            # found by type: the header's state has gained fields before (its note's style)
            progress = next((part for part in state if isinstance(part, Progress)), None)
            if progress is not None and not watch.progress_at:
                watch.progress_at = now
            if state and state[1] == watch.target and progress is None and not watch.landed_at:
                watch.landed_at = now
            return render(header)

        def timed_speed(screen: DashboardScreen, direction: int) -> None:
            if watch.pressed:
                watch.key_latencies.append(time.perf_counter() - watch.pressed.pop(0))
            speed(screen, direction)

        def timed_stop(screen: DashboardScreen, *, show: bool = True) -> bool:
            started = time.perf_counter()
            try:
                return stop_jump(screen, show=show)
            finally:
                watch.catch_up += time.perf_counter() - started

        StatusHeader.render = timed_render  # type: ignore[method-assign]
        DashboardScreen.action_speed = timed_speed  # type: ignore[method-assign]
        DashboardScreen.stop_jump = timed_stop  # type: ignore[method-assign]


def measure_end(size: tuple[int, int]) -> None:
    """``end`` on the demo, the first time: alone, then with keys pressed meanwhile."""
    target = load_session(DEMO).history.until
    assert target is not None
    yardstick = load_session(DEMO)
    started = time.perf_counter()
    with navigator_module.collector_paused():
        yardstick.history.seek(target)
    seek = time.perf_counter() - started
    del yardstick
    print(f"\nend on the demo fleet, first time, {size[0]}x{size[1]}")
    print(f"  History.seek to the last tick (the yardstick): {seek:.2f} s")
    for keys in (False, True):
        watch, engine = _end_once(size, target, KEY_EVERY if keys else None)
        landed = watch.landed_at - watch.started  # type: ignore[operator]
        progress = watch.progress_at - watch.started  # type: ignore[operator]
        line = (
            f"  progress {1000 * progress:.0f} ms   landed {landed:.2f} s = {landed / seek:.2f}x "
            f"seek   engine {engine:.2f} s   catch-up {1000 * watch.catch_up:.0f} ms   "
            f"stall {1000 * watch.stall:.0f} ms"
        )
        if keys:
            latencies = watch.key_latencies or [0.0]
            line += (
                f"\n    with + or - every {KEY_EVERY:.1f} s: key to action median "
                f"{1000 * statistics.median(latencies):.0f} ms, worst "
                f"{1000 * max(latencies):.0f} ms ({len(watch.key_latencies)} presses)"
            )
        print(line)


KEY_EVERY = 0.5
"""Seconds between two key presses (``+`` and ``-`` in turn: play speed) while ``end`` plays."""


def _end_once(
    size: tuple[int, int], target: int, key_every: float | None
) -> tuple[EndWatch, float]:
    engine = [0.0]
    advance = Jump.advance

    def timed_advance(jump: Jump, ticks: int) -> Change:
        began = time.perf_counter()
        try:
            return advance(jump, ticks)
        finally:
            engine[0] += time.perf_counter() - began

    async def run() -> EndWatch:
        watch = EndWatch(target)
        app = DashboardApp(session=load_session(DEMO), watch=False, blink=False)
        async with app.run_test(size=size) as pilot:
            screen = app.dashboard
            await pilot.pause()
            watch.install()
            gaps: list[float] = []

            async def ticker() -> None:
                last = time.perf_counter()
                while watch.landed_at is None:
                    await asyncio.sleep(0.005)
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now

            beat = asyncio.create_task(ticker())
            watch.started = time.perf_counter()
            app.post_message(events.Key("end", None))
            while watch.landed_at is None:
                await asyncio.sleep(key_every or 0.05)
                if key_every is not None and screen.jump is not None:
                    watch.pressed.append(time.perf_counter())
                    key = "plus" if len(watch.pressed) % 2 else "minus"
                    app.post_message(events.Key(key, "+" if key == "plus" else "-"))
            await beat
            watch.stall = max(gaps)
        return watch

    originals = (StatusHeader.render, DashboardScreen.action_speed, DashboardScreen.stop_jump)
    Jump.advance = timed_advance  # type: ignore[method-assign]
    try:
        watch = asyncio.run(run())
    finally:
        Jump.advance = advance  # type: ignore[method-assign]
        (
            StatusHeader.render,
            DashboardScreen.action_speed,
            DashboardScreen.stop_jump,
        ) = originals  # type: ignore[method-assign]
    return watch, engine[0]


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
    parser.add_argument(
        "--size", default="160x48,80x24", help="terminal sizes, e.g. 160x48 or 160x48,80x24"
    )
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    for text in args.size.split(","):
        width, height = (int(part) for part in text.split("x"))
        measure_size((width, height), args.repeat, args.skip_demo)


def measure_size(size: tuple[int, int], repeat: int, skip_demo: bool) -> None:
    width, height = size
    keys = ["right", "left", "shift+right", "shift+left"]

    def timed(label: str, make: Callable[[], Session]) -> Session:
        started = time.perf_counter()
        session = make()
        print(f"{label}: loaded in {time.perf_counter() - started:.2f} s")
        return session

    print(f"\n== terminal {width}x{height}, {repeat} presses per key ==")
    if not skip_demo and DEMO.is_file():
        measure_end(size)
        session = timed("demo fleet", lambda: load_session(DEMO))
        results = asyncio.run(measure(session, size, 1_440, keys, repeat))
        plain = asyncio.run(measure_plain(size, repeat))
        report("demo fleet (2,000 jobs, 50 workers), Tuesday 00:00 (tick 1,440)", results, plain)
        session = timed("demo fleet", lambda: load_session(DEMO))
        play(session, size, 20)
    session = timed("100k fleet", fleet_100k)
    results = asyncio.run(measure(session, size, 4_900, keys, repeat))
    plain = asyncio.run(measure_plain(size, repeat))
    report(
        "100,000 occurrences (1,000 jobs every 50 ticks, 50 workers), tick 4,900", results, plain
    )


if __name__ == "__main__":
    main()
