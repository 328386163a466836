"""What each pane shows for the fixed run, row by row, at ticks where something happened."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from tui_helpers import small_session

from engine.core import Engine
from engine.model.commands import (
    Advance,
    DeleteJob,
    Dispatch,
    ModifyJob,
    RegisterWorker,
    ScheduleJob,
    WorkerDown,
)
from engine.model.policies import DispatchMode, Policy
from engine.model.records import JobSpec, OccurrenceState
from engine.play.ticks import at_ticks
from engine.schedules.kinds import Every, Once
from tui.app import DashboardApp
from tui.detail_text import job as job_detail
from tui.model.session import make_session
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration

SIZE = (160, 48)


def rows(table: VirtualTable) -> list[str]:
    return [
        " ".join(table.row_text(table.index.key_at(i)).split()) for i in range(len(table.index))
    ]


def screen_lines(widget, count: int) -> list[str]:
    return [widget.render_line(y).text for y in range(count)]


async def test_retries_show_the_next_attempt_its_tick_and_the_backoff(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        app.dashboard.seek(4)
        retries = rows(app.dashboard.query_one("#retries"))
        # flaky's attempt 1 failed at 3: attempt 2 is eligible at 3 + 3 (fixed backoff 3)
        assert retries[0].startswith("flaky 1 #2 6 2 3")
        assert retries[1].startswith("doomed 3 #2 7 3 3")


async def test_cancellations_name_the_cause(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        app.dashboard.seek(8)
        assert rows(app.dashboard.query_one("#cancellations")) == [
            "doomed 3 FAILED 2/2 failed retries exhausted",
            "child 20 CANCELLED 0/1 cascade ⇐ doomed failed first",
        ]


async def test_workers_and_notifications(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        app.dashboard.seek(8)
        workers = rows(app.dashboard.query_one("#workers"))
        assert workers[1].startswith("w2 DOWN")
        assert workers[0].startswith("w1 BUSY stuck@4 ")  # a first attempt: no "#1"
        assert rows(app.dashboard.query_one("#notifications")) == [
            "flaky@1 failed slack #ops DEAD 3"
        ]


async def test_events_show_every_event_up_to_the_tick(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        app.dashboard.seek(8)
        events = rows(app.dashboard.query_one("#events"))
        assert len(events) == len(app.dashboard.navigator.engine.log)
        assert "8 Mon 00:08 worker down w2 takes no work until up" in events
        assert "8 Mon 00:08 cancelled child@20 cascade: doomed failed first" in events


async def test_the_timeline_marks_failures_and_outages(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE):
        app.dashboard.seek(12)
        timeline = app.dashboard.query_one("#timeline")
        lines = screen_lines(timeline, 4)
        assert "▼" in lines[0] and "|0" in lines[0]
        w1, w2, w3 = lines[1:4]
        assert w2.startswith("w2") and "╳" in w2, "w2 was down from tick 8"
        assert timeline.scale == 1
        assert w2.count("╳") == 5, "ticks 8 to 12: nothing is drawn after the current tick"
        assert "✗" in w1 + w2 + w3, "failed attempts end in a red cross"


async def test_implicit_runs_show_as_one_row_per_job_with_the_count_behind() -> None:
    session = small_session(policy=Policy(dispatch=DispatchMode.MANUAL))
    app = DashboardApp(session=session, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.seek(5)
        for worker in ("w1", "w2", "w3"):
            screen.apply(screen.navigator.apply(WorkerDown(worker))[1])
        screen.apply(screen.navigator.apply(Dispatch())[1])
        occurrences = rows(screen.query_one("#occurrences"))
        assert occurrences[0].startswith("etl 0 Mon 00:00 QUEUED 0/1")
        report = [row for row in occurrences if row.startswith("report")]
        assert report == ["report 2 Mon 00:02 QUEUED 0/1 low 3"]
        screen.seek(40)
        screen.apply(screen.navigator.apply(Dispatch())[1])
        etl = [row for row in rows(screen.query_one("#occurrences")) if row.startswith("etl")]
        # w2 came back at 14 (the scenario's timeline) and took etl@0; 20, 30, 40 wait behind 10
        assert etl == [
            "etl 0 Mon 00:00 RUNNING 1/1 w2 medium 40",
            "etl +3 10 Mon 00:10 QUEUED 0/1 medium 30",
        ]


def _waiting_behind_front(engine, job_id: str) -> int:
    """The query API's count of a job's implicit waiting runs after the first."""
    page = engine.query.runs(state=OccurrenceState.QUEUED, job_id=job_id, limit=1000)
    return len([row for row in page.items if row.record is None]) - 1


async def test_the_count_behind_a_front_row_is_the_query_apis_after_a_modify() -> None:
    """A modify while runs wait leaves them their old definition (schedule, attempts allowed):
    the table counts them as the query API lists them (it used to count none) and shows the
    attempts they allow (it used to show the new definition's)."""
    timeline = [
        (0, ScheduleJob(JobSpec("a", Every(0, 10), duration=3))),
        (50, ModifyJob.of("a", schedule=Every(3, 1000), max_attempts=3)),
    ]
    session = make_session("modify while waiting", Engine, at_ticks(timeline), 80)
    app = DashboardApp(session=session, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.seek(60)
        behind = _waiting_behind_front(screen.navigator.engine, "a")
        assert behind == 5, "a@0 waits in front of a@10 ... a@50"
        occurrences = rows(screen.query_one("#occurrences"))
        assert occurrences == [f"a +{behind} 0 QUEUED 0/1 low 60"]


def test_the_detail_pane_counts_the_backlog_as_the_query_api_after_a_modify() -> None:
    engine = Engine()
    engine.apply(ScheduleJob(JobSpec("a", Every(0, 10), duration=3)))
    engine.apply(Advance(125))
    engine.apply(ModifyJob.of("a", schedule=Every(3, 1000)))
    behind = _waiting_behind_front(engine, "a")
    assert behind == 12, "a@0 waits in front of a@10 ... a@120"
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(job_detail("a", engine, None))
    assert f"from 0, {behind} behind" in console.export_text()


async def test_a_deleted_backlog_shows_in_the_cancelled_table_as_one_row_with_its_count() -> None:
    """Deleting a job whose runs wait cancels them as one range: the table shows them (it used to
    show none), as one row like the occurrences table's ``+N``, counted as the query API does."""
    timeline = [
        (0, ScheduleJob(JobSpec("blocker", Once(0), duration=100))),
        (0, ScheduleJob(JobSpec("a", Every(0, 10), duration=3))),  # a@0 runs first, then blocker
        (0, RegisterWorker("w1")),
        (45, DeleteJob("a")),
    ]
    session = make_session("delete a backlog", Engine, at_ticks(timeline), 80)
    app = DashboardApp(session=session, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.seek(50)
        engine = screen.navigator.engine
        assert engine.query.count_runs(state=OccurrenceState.CANCELLED, job_id="a") == 4
        assert rows(screen.query_one("#cancellations")) == [
            "a +3 10 CANCELLED 0 deleted its job was deleted"
        ]
        screen.seek(40)
        assert rows(screen.query_one("#cancellations")) == []
