"""The command line: every engine command, typed, with the state before and after; errors inline."""

from __future__ import annotations

import pytest
from tui_helpers import small_session

from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import OccurrenceState, WorkerState
from tui.app import DashboardApp
from tui.model.commandline import APP_COMMANDS

pytestmark = pytest.mark.integration

S = OccurrenceState
SIZE = (100, 30)


async def run(pilot, line: str) -> None:
    """Type ``line`` on the command line and press enter (the ``:`` key is tested elsewhere)."""
    bar = pilot.app.dashboard.command_bar
    bar.open("command", line)
    await pilot.press("enter")


def message(app: DashboardApp) -> str:
    return str(app.dashboard.command_bar.message.render())


async def test_worker_commands(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        engine = lambda: app.dashboard.navigator.engine  # noqa: E731
        await run(pilot, "register w9")
        assert "w9" in engine().query.workers()
        await run(pilot, "down w9")
        assert engine().query.worker("w9").state is WorkerState.DOWN
        await run(pilot, "up w9")
        assert engine().query.worker("w9").state is WorkerState.IDLE
        await pilot.press("right", "right")
        busy = next(w for w, r in engine().query.workers().items() if r.running is not None)
        await run(pilot, f"drain {busy}")
        assert engine().query.worker(busy).state is WorkerState.DRAINING


async def test_a_modified_schedule_keeps_the_jobs_zone(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        jobs = lambda: app.dashboard.navigator.engine.query.jobs()  # noqa: E731
        await run(pilot, "schedule paris daily=02:00 timezone=Europe/Paris")
        await run(pilot, "modify paris daily=03:00")
        assert jobs()["paris"].spec.schedule.describe() == "cron 0 3 * * * (Europe/Paris)"


async def test_job_commands(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        engine = lambda: app.dashboard.navigator.engine  # noqa: E731
        await run(pilot, "schedule backup every=5 duration=2 priority=high")
        assert engine().query.job("backup").spec.priority == 2
        await run(pilot, "modify backup duration=3")
        assert "has a running attempt" in message(app)  # seed 003: not while it runs
        assert engine().query.job("backup").spec.duration == 2
        await run(pilot, "schedule later every=5 first=+5")
        await run(pilot, "modify later duration=3")
        assert engine().query.job("later").spec.duration == 3
        await run(pilot, "pause backup")
        assert engine().query.job("backup").paused_through is not None
        await run(pilot, "resume backup skip")
        assert engine().query.job("backup").paused_through is None
        await run(pilot, "cancel backup 5")
        assert engine().query.run_state("backup", 5) is S.CANCELLED
        await run(pilot, "fail report 1")
        assert 1 in engine().query.job("report").fail_attempts
        await run(pilot, "delete backup")
        assert "has a running attempt" in message(app)
        await run(pilot, "schedule spare at=50")
        await run(pilot, "delete spare")
        assert engine().query.job("spare").deleted


async def test_dispatch_and_complete_with_manual_dispatch_and_reported_completion() -> None:
    policy = Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    app = DashboardApp(session=small_session(policy=policy), watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        engine = lambda: app.dashboard.navigator.engine  # noqa: E731
        await pilot.press("right")
        assert not engine().query.records()
        await run(pilot, "dispatch")
        assert engine().query.run_state("etl", 0) is S.RUNNING
        await run(pilot, "complete etl 0 1 ok")
        assert engine().query.run_state("etl", 0) is S.SUCCEEDED


async def test_a_rejected_command_is_an_inline_error_and_changes_nothing(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        engine = app.dashboard.navigator.engine
        events = len(engine.log)
        await run(pilot, "register w1")
        bar = app.dashboard.command_bar
        assert bar.is_open and "conflict" in message(app) and "already registered" in message(app)
        assert len(engine.log) == events
        await run(pilot, "cancel nosuchjob")
        assert "not_found" in message(app)
        await run(pilot, "schedule x every=banana")
        assert "expected a whole number" in message(app)


async def test_nothing_typed_raises(app: DashboardApp) -> None:
    lines = [
        "",
        "   ",
        "'",
        '"',
        "schedule",
        "goto",
        "speed fast",
        "complete a b c d",
        "open",
        "modify =",
        "cancel etl -1",
        "goto 99999999999999999999",
        "\x00",
        "résumé ✓",
    ]
    async with app.run_test(size=SIZE) as pilot:
        for line in lines:
            _, text = app.dashboard.runner.run(line)
            assert isinstance(text, str)
        await run(pilot, "export /nonexistent/dir/x.json")
        assert "cannot write" in message(app)
        assert app.is_running


async def test_a_command_while_rewound_starts_a_new_future_and_redo_restores_it(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        navigator = app.dashboard.navigator
        engine = lambda: navigator.engine  # noqa: E731
        await run(pilot, "goto 5")
        await run(pilot, "down w1")
        await pilot.press("end")
        with_w1_down = len(engine().log)
        await run(pilot, "goto 2")
        assert "rewound" in app.dashboard.query_one("#status").summary
        await run(pilot, "down w3")
        assert (
            engine().query.worker("w3").down
            and "rewound" not in app.dashboard.query_one("#status").summary
        )
        await pilot.press("end")
        assert not engine().query.worker("w1").down, "the command at tick 5 was discarded"
        await run(pilot, "redo")
        await pilot.press("end")
        assert engine().query.worker("w1").down and not engine().query.worker("w3").down
        assert len(engine().log) == with_w1_down
        await run(pilot, "redo")
        assert "nothing to redo" in message(app)


async def test_dashboard_commands(app: DashboardApp, tmp_path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = app.dashboard
        await run(pilot, "goto 30")
        assert screen.navigator.tick == 30
        await run(pilot, "goto -5")
        assert screen.navigator.tick == 25
        await run(pilot, "speed 50")
        assert screen.speed == 50
        await run(pilot, "filter etl")
        assert screen.query_one("#occurrences").filter_text == "etl"
        await run(pilot, f"export {tmp_path / 'out.csv'}")
        assert (tmp_path / "out.csv").read_text().startswith("job,")
        await run(pilot, "help")
        assert app.screen.id == "help"
        await pilot.press("escape")
        await run(pilot, "quit")
        assert not app.is_running


async def test_tab_completes_in_the_command_line(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(":", *"canc")
        await pilot.pause()
        await pilot.press("tab")
        assert app.dashboard.command_bar.input.value == "cancel"
        await pilot.press(*" fl")
        await pilot.pause()
        await pilot.press("tab")
        assert app.dashboard.command_bar.input.value == "cancel flaky"


async def test_status_answers_and_every_dashboard_command_has_a_handler(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        assert app.dashboard.runner.app_commands.keys() == APP_COMMANDS.keys()
        await run(pilot, "goto 30")
        runner = app.dashboard.runner
        assert runner.run("status etl 0") == (True, "status: etl@0 is SUCCEEDED")
        assert runner.run("status etl 5") == (
            False,
            "status: etl@5: no such occurrence",
        )
        await run(pilot, "schedule weekly-report weekly=mon@09:00 priority=5000")
        assert app.dashboard.navigator.engine.query.job("weekly-report").spec.priority == 5000
        await run(pilot, "schedule huge priority=3000000000")
        assert "priority: expected a whole number from -2147483648 to 2147483647" in message(app)
        assert "huge" not in app.dashboard.navigator.engine.query.jobs()
