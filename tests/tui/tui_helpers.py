"""A small fixed run for the dashboard's tests, built from engine objects (no YAML needed).

Three workers, a minute per tick from Monday 2026-03-09 00:00 UTC, until tick 60. It has
something for every pane: recurring jobs that queue, an attempt that fails and is retried after
a fixed backoff, a job that fails for good and cascades to its dependent, a hung attempt that
times out, a notification whose channel is down, and a worker that goes down and comes back.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

from rich.console import Console
from textual.app import App
from textual.widget import Widget

from engine.core import Engine
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import RegisterWorker, ScheduleJob, WorkerDown, WorkerUp
from engine.model.policies import ChannelOutage, DispatchOrder, NotificationPolicy, Policy
from engine.model.records import Channel, JobSpec, NotifyOn, Subscription
from engine.play.ticks import at_ticks
from engine.schedules.clock import Clock
from engine.schedules.kinds import Every, Once
from tests.waiting import until
from tui.app import DashboardApp
from tui.model.session import Session, make_session

CLOCK = Clock.parse("2026-03-09T00:00:00", "UTC", 60)
POLICY = Policy(
    order=DispatchOrder.PRIORITY,
    backoff=Backoff(BackoffKind.FIXED, base=3),
    notifications=NotificationPolicy(
        max_tries=3,
        backoff=Backoff(BackoffKind.FIXED, base=2),
        outages=(ChannelOutage(Channel.SLACK, 0, 8),),
    ),
)
JOBS = (
    JobSpec("etl", Every(0, 10), duration=3, priority=1),
    JobSpec("report", Every(2, 15), duration=2),
    JobSpec(
        "flaky",
        Once(1),
        max_attempts=3,
        fail_attempts=frozenset({1}),
        duration=2,
        notify=(Subscription(frozenset({NotifyOn.FAILED}), Channel.SLACK, "#ops"),),
    ),
    JobSpec("doomed", Once(3), max_attempts=2, fail_attempts=frozenset({1, 2}), duration=1),
    JobSpec("child", Once(20), depends_on=("doomed",)),
    JobSpec("stuck", Once(4), max_attempts=2, hang_attempts=frozenset({1}), timeout=5),
)


def small_timeline() -> list[tuple[int, object]]:
    timeline: list[tuple[int, object]] = [(0, RegisterWorker(w)) for w in ("w1", "w2", "w3")]
    timeline += [(0, ScheduleJob(spec)) for spec in JOBS]
    timeline += [(8, WorkerDown("w2")), (14, WorkerUp("w2"))]
    return timeline


def small_session(**overrides) -> Session:
    settings = {"clock": CLOCK, "kind": "scenario", "description": "the dashboard's test run"}
    settings.update(overrides)
    policy = settings.pop("policy", POLICY)
    return make_session(
        "small fleet", lambda: Engine(policy), at_ticks(small_timeline()), 60, **settings
    )


SMALL_YAML = """\
scenario: small yaml
clock: {epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60, until: 40}
workers: [w1, w2]
jobs:
  - {id: etl, every: 10, duration: 3}
  - {id: once, at: 5, duration: 2, fail: [1], max_retries: 1}
timeline:
  - {at: 8, down: {worker: w2}}
  - {at: 12, up: {worker: w2}}
"""

BROKEN_YAML = """\
scenario: broken
workers: [w1]
jobs:
  - {id: etl, every: -5, duration: 3}
  - {id: bad, at: 5, colour: red}
"""


def screen_lines(app: DashboardApp) -> list[str]:
    """The screen as plain text lines."""
    width, height = app.size
    console = Console(width=width, height=height, record=True, file=io.StringIO())
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text().splitlines()


def pane_text(app: DashboardApp, pane_id: str) -> list[str]:
    """The lines of one pane as drawn (inside its border)."""
    widget = app.dashboard.query_one(f"#{pane_id}")
    region = widget.content_region
    lines = screen_lines(app)
    return [lines[y][region.x : region.right] for y in range(region.y, region.bottom)]


async def settled(pilot) -> None:
    """Until the dashboard has nothing left to do (``DashboardApp.settled``): its first frames
    drawn, what the last key set off laid out and painted. Before a test looks at the screen."""
    app = pilot.app
    await until(lambda: app.settled, "the dashboard to settle")
    await pilot.pause()


async def until_landed(pilot) -> None:
    """Until the jump the dashboard plays in the background (a seek far ahead) has landed."""
    dashboard = pilot.app.dashboard
    await until(lambda: dashboard.jump is None, "the jump to land")
    await pilot.pause()


class LastToLeave(Widget):
    """Mounted on a screen, it leaves last when the app quits and runs ``meanwhile`` as it
    leaves: after every other widget of the screen is gone, before Textual cancels the screen's
    workers (it does once all its widgets are gone). A worker that wakes up then meets the
    moment a loaded machine gives it now and then, every time."""

    def __init__(self, meanwhile: Callable[[], Awaitable[None]]) -> None:
        super().__init__()
        self.meanwhile = meanwhile

    async def on_unmount(self) -> None:
        screen = self.parent
        assert screen is not None
        await until(lambda: list(screen.children) == [self], "the screen's other widgets to go")
        await self.meanwhile()


async def workers_done(app: App, *groups: str) -> None:
    """Until no worker of ``groups`` runs (each ended, or failed and said so)."""
    await until(
        lambda: not [worker for worker in app.workers if worker.group in groups],
        f"the {', '.join(groups)} workers to end",
    )
