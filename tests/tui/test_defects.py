"""The defects a new user found (issue 17, deliverable 4): each pinned by a Pilot test."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import textual.notifications
from hypothesis import given
from hypothesis import strategies as st
from tui_helpers import CLOCK, SMALL_YAML, pane_text, screen_lines, until_landed

from cronlapse.cli import main as cli
from engine.schedules.clock import Clock
from tests.waiting import until
from tui.app import DashboardApp
from tui.cells import ELLIPSIS, fit
from tui.model.rows import natural_key
from tui.model.session import load_session
from tui.model.timefmt import compact, short, wall
from tui.screens.prompt import PromptScreen
from tui.widgets.occurrences import OccurrencesTable
from tui.widgets.status_header import StatusHeader
from tui.widgets.timeline import TimelineView

pytestmark = pytest.mark.integration

SIZE = (160, 48)
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


async def test_opening_a_scenario_with_other_worker_ids_redraws_the_timeline() -> None:
    app = DashboardApp(SCENARIOS / "nightly-etl-dst.yaml", watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        app.open_path(SCENARIOS / "notification-outage.yaml")
        await pilot.press("right")
        await pilot.pause()
        timeline = app.dashboard.query_one(TimelineView)
        assert timeline.lane_ids == sorted(app.dashboard.navigator.engine.query.workers())
        timeline.render_line(1)


WORKERS_YAML = """\
scenario: renamed
workers: [{names}]
jobs:
  - {{id: etl, every: 10, duration: 3}}
clock: {{until: 30}}
"""


async def test_a_reload_after_renaming_workers_redraws_the_timeline(tmp_path: Path) -> None:
    path = tmp_path / "renamed.yaml"
    path.write_text(WORKERS_YAML.format(names="a, b"), encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        path.write_text(WORKERS_YAML.format(names="c, d"), encoding="utf-8")
        await pilot.press("r")
        await pilot.pause()
        timeline = app.dashboard.query_one(TimelineView)
        assert timeline.lane_ids == ["c", "d"]
        timeline.render_line(1)


OPEN_ENDED_YAML = """\
scenario: open ended
clock: {epoch: "2026-03-09T00:00:00", timezone: UTC, tick: 60}
workers: [w1]
jobs:
  - {id: etl, every: 10, duration: 3}
"""


async def test_an_open_ended_run_shows_a_horizon_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        header = app.dashboard.query_one("#status")
        assert "tick 0 / 1,440+" in header.summary  # a day of one-minute ticks
        await pilot.press("right", "right")
        assert app.dashboard.navigator.tick == 10
        await pilot.press("g", *"3000", "enter")  # far ahead: a jump, in the background
        await until_landed(pilot)
        assert app.dashboard.navigator.tick == 3000
        assert "tick 3,000 / 4,320+" in header.summary


async def test_end_on_an_open_ended_run_goes_to_its_horizon_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        await until(
            lambda: any("horizon, tick 1,440" in str(n.message) for n in app._notifications),
            "the notice that the run stops at its horizon",
        )
        assert app.dashboard.navigator.tick == 1440
        await pilot.press("end")
        await pilot.pause()
        assert app.dashboard.navigator.tick == 2880


async def test_play_goes_on_in_an_open_ended_run(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text(OPEN_ENDED_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE):
        screen = app.dashboard
        screen.playing = True
        for _ in range(5):
            screen.play_frame()
        assert screen.playing and screen.navigator.tick == 23  # events at 0, 3, 10, 13, 20, 23


async def test_the_empty_session_plays_a_job_scheduled_after_an_invalid_file(
    broken_file: Path,
) -> None:
    app = DashboardApp(broken_file, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("colon", *"register w1", "enter")
        await pilot.press("colon", *"schedule x every=5 duration=2", "enter")
        await pilot.press("right", "right")
        assert app.dashboard.session.kind == "empty"
        assert app.dashboard.navigator.tick > 0
        assert "tick 0 /" not in app.dashboard.query_one("#status").summary


async def test_notifications_show_every_column_at_160_columns(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.seek(40)
        await pilot.pause()
        await pilot.pause()
        header, row = pane_text(app, "notifications")[:2]
        assert header.split() == ["Run", "Event", "Channel", "Target", "State", "Tries"]
        assert row.split()[-4:] == ["slack", "#ops", "DEAD", "3"]


TWIN_WORKERS_YAML = """\
scenario: twins
workers: [nightly-backup-primary, nightly-backup-secondary, w]
jobs:
  - {id: etl, every: 10, duration: 3}
clock: {until: 30}
"""


async def test_workers_with_a_common_prefix_stay_apart_in_every_pane(tmp_path: Path) -> None:
    path = tmp_path / "twins.yaml"
    path.write_text(TWIN_WORKERS_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        workers = [line.split()[0] for line in pane_text(app, "workers")[1:4]]
        assert len(set(workers)) == 3, workers
        lanes = [line.split()[0] for line in pane_text(app, "timeline")[1:4]]
        assert len(set(lanes)) == 3, lanes
        assert all(lane.startswith("nightly") and "…" in lane for lane in lanes[:2]), lanes


@given(
    ids=st.lists(st.text("ab-_01", min_size=1, max_size=30), min_size=2, max_size=2, unique=True),
    width=st.integers(3, 40),
)
def test_fit_keeps_both_ends_of_an_id_and_its_width(ids: list[str], width: int) -> None:
    for value in ids:
        cut = fit(value, width).plain
        assert len(cut) == min(width, len(value))
        if len(value) > width:
            head, tail = cut.split(ELLIPSIS)
            assert value.startswith(head) and value.endswith(tail) and len(tail) >= len(head)
        else:
            assert cut == value


@given(
    width=st.integers(50, 200),
    name=st.text(alphabet="abcdef ,", min_size=1, max_size=70),
    playing=st.booleans(),
    note=st.sampled_from(["", "rewound"]),
)
def test_the_header_keeps_the_play_state_and_speed_at_every_width(width, name, playing, note):
    header = StatusHeader()
    header.show(name, 1_234, 10_080, CLOCK, playing, 500, note)
    line = header._line(width).plain
    assert len(line) <= width
    assert ("▶ playing" if playing else "❚❚ paused") in line and "500/s" in line
    assert "tick 1,234 / 10,080" in line
    if width >= 80:  # the time is kept by cutting the name (it went before the name was cut)
        assert "20:34" in line, line


def test_at_80_columns_the_header_cuts_a_long_name_and_keeps_the_time() -> None:
    """The DST scenario's header lost its time of day, which is what that scenario is about."""
    header = StatusHeader()
    header.show("Nightly ETL across the spring DST change", 1_565, 4_320, CLOCK, False, 10)
    line = header._line(80).plain
    assert len(line) <= 80
    assert "Nightly ETL" in line and "…" in line
    assert "Tue 03-10 02:05 UTC" in line, line


async def test_the_demo_header_at_80x24_says_paused_and_the_speed() -> None:
    app = DashboardApp(SCENARIOS / "demo.yaml", watch=False, blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "❚❚ paused  10/s" in screen_lines(app)[0]


async def test_go_to_a_time_after_the_run_says_why_in_the_prompt(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "g", *"14:30", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        error = str(app.screen.error.render())
        assert "14:30 is tick 870" in error and "after the end of the run at tick 60" in error
        assert app.dashboard.navigator.tick == 60


async def test_goto_after_the_run_on_the_command_line_says_why(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"goto 100", "enter")
        await pilot.pause()
        message = str(app.dashboard.command_bar.message.render())
        assert "100 is tick 100" in message and "after the end of the run at tick 60" in message
        assert app.dashboard.navigator.tick == 0


async def test_tab_lists_the_candidates_and_cycles_through_them(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"cancel ")
        bar = app.dashboard.command_bar
        await pilot.press("tab")
        jobs = ["etl", "report", "flaky", "doomed", "child", "stuck"]
        ordered = sorted(jobs, key=natural_key)
        assert bar.input.value == f"cancel {ordered[0]}"
        listed = str(bar.message.render())
        assert listed.startswith("tab:") and all(job in listed for job in jobs)
        await pilot.press("tab", "tab")
        assert bar.input.value == f"cancel {ordered[2]}"
        await pilot.press(*["tab"] * (len(jobs) - 2))
        assert bar.input.value == f"cancel {ordered[0]}", "the cycle wraps round"
        await pilot.press(*["backspace"] * len(ordered[0]), "r", "tab")
        assert bar.input.value == "cancel report", "a typed word starts a new cycle"


async def test_tab_after_completing_a_key_goes_on_to_its_values(app: DashboardApp) -> None:
    """One candidate, taken, is not a cycle: tab then completes from the new line (it put the
    same key back for ever)."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"schedule adhoc pri", "tab")
        bar = app.dashboard.command_bar
        assert bar.input.value == "schedule adhoc priority="
        await pilot.press("tab")
        assert bar.input.value == "schedule adhoc priority=high"
        assert "medium" in str(bar.message.render())


async def test_tab_in_the_open_prompt_lists_and_cycles_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a1.yaml", "a2.yaml", "b.yaml"):
        Path(name).write_text(SMALL_YAML, encoding="utf-8")
    app = DashboardApp("b.yaml", watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        prompt.input.value = "a"
        await pilot.press("tab")
        assert prompt.input.value == "a1.yaml"
        assert "a2.yaml" in str(prompt.error.render())
        await pilot.press("tab")
        assert prompt.input.value == "a2.yaml"


async def test_after_an_error_the_line_stays_selected_and_typing_replaces_it(
    app: DashboardApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"cancle etl", "enter")
        bar = app.dashboard.command_bar
        assert "✗" in str(bar.message.render())
        assert bar.input.value == "cancle etl"
        assert bar.input.selection == (0, len("cancle etl"))
        await pilot.press(*"speed 5", "enter")
        assert app.dashboard.speed == 5 and not bar.is_open


async def test_an_error_clears_the_toast_that_would_cover_it(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"speed 5", "enter")
        assert app._notifications, "a toast says the speed"
        await pilot.press("colon", *"nonsense", "enter")
        await pilot.pause()
        assert "✗" in str(app.dashboard.command_bar.message.render())
        assert not app._notifications


async def test_a_toast_waits_for_a_test_that_looks_late(
    app: DashboardApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite's toasts leave when cleared, not after 5 s of wall time (tests/tui/conftest.py):
    a loaded machine made tests look after their toast had gone."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"speed 5", "enter")
        an_hour_later = time.time() + 3600
        monkeypatch.setattr(textual.notifications, "time", lambda: an_hour_later)
        toasts = [str(toast.message) for toast in app._notifications]
        assert toasts == ["speed: 5 event ticks per second"]


async def test_help_says_how_to_close_it_and_covers_the_panes(app: DashboardApp) -> None:
    async with app.run_test(size=(110, 48)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        lines = screen_lines(app)
        assert lines[0].startswith("╭─ Help") and lines[-1].startswith("╰")
        assert "esc, ? or q closes this help" in lines[1]
        await pilot.press("escape")
        assert app.screen is app.dashboard


async def test_the_timelines_now_marker_never_cuts_a_ruler_label(app: DashboardApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.dashboard.query_one(TimelineView)
        for tick in range(0, 61, 3):
            app.dashboard.seek(tick)
            await pilot.pause()
            axis = timeline.render_line(0).text[timeline.label + 1 :]
            assert axis.index("▼") == tick
            for match in re.finditer(r"[|▼](\d+)", axis):
                assert int(match.group(1)) == match.start(), axis


async def test_events_show_whole_subjects_at_160_columns() -> None:
    app = DashboardApp(SCENARIOS / "nightly-etl-dst.yaml", watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.seek(1600)
        await pilot.pause()
        await pilot.pause()
        text = "\n".join(pane_text(app, "events"))
        assert "close-extract@1530" in text and "close-transform@1530" in text


FALL_BACK_YAML = """\
scenario: fall back
clock: {epoch: "2026-10-25T00:00:00", timezone: Europe/Berlin, tick: 60, until: 300}
workers: [w1]
jobs:
  - {id: half-hourly, every: 30, duration: 5}
"""


async def test_runs_in_the_repeated_hour_show_their_utc_offset(tmp_path: Path) -> None:
    path = tmp_path / "fall.yaml"
    path.write_text(FALL_BACK_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.seek(300)
        await pilot.pause()
        await pilot.pause()
        rows = {line.split()[1]: line for line in pane_text(app, "occurrences")[1:] if line.strip()}
        assert "Sun 02:00 +02" in rows["120"] and "Sun 02:00 +01" in rows["180"]
        assert "Sun 02:30 +02" in rows["150"] and "Sun 02:30 +01" in rows["210"]
        assert "+0" not in rows["90"] and "+0" not in rows["240"]


def test_the_offset_shows_only_where_the_local_time_repeats() -> None:
    clock = Clock.parse("2026-10-25T00:00:00", "Europe/Berlin", 60)
    assert [short(clock, tick) for tick in (119, 120, 179, 180, 239, 240)] == [
        "Sun 01:59",
        "Sun 02:00 +02",
        "Sun 02:59 +02",
        "Sun 02:00 +01",
        "Sun 02:59 +01",
        "Sun 03:00",
    ]
    assert wall(clock, 150) == "Sun 2026-10-25 02:30:00 CEST +02"
    assert compact(clock, 210) == "Sun 10-25 02:30 CET +01"
    spring = Clock.parse("2026-03-29T00:00:00", "Europe/Berlin", 60)
    assert short(spring, 120) == "Sun 03:00", "a skipped hour repeats nothing"


ENDS_YAML = """\
scenario: ends after its last event
workers: [w1]
jobs:
  - {id: once, at: 20, duration: 1}
expect:
  - {at: 30, job: once, scheduled: 20, status: SUCCEEDED}
"""


LATE_SCRIPT = "INIT 2 1\nSUBMIT a 1 3 2 0\nTICK 20\nSUBMIT b 5 2 1 0\n"
"""A script with a line after its last TICK: it acts at the tick the clock rests at."""
WRITTEN = {"ends.yaml": ENDS_YAML, "late.txt": LATE_SCRIPT}


@pytest.mark.parametrize(
    "name",
    [
        "ends.yaml",
        "late.txt",
        "seed-000-example-2.yaml",
        "seed-000-example-3.yaml",
        "worker-crash.yaml",
        "seed-001-aging-cascade.txt",
    ],
)
def test_run_and_the_dashboard_agree_on_the_last_tick(name: str, tmp_path: Path, capsys) -> None:
    path = SCENARIOS / name
    if name in WRITTEN:
        path = tmp_path / name
        path.write_text(WRITTEN[name], encoding="utf-8")
    assert cli.main(["run", str(path)]) == 0
    summary = re.search(r"Jobs \(at tick (\d+)\)", capsys.readouterr().out)
    assert summary is not None
    assert load_session(path).history.last_tick() == int(summary.group(1))


@given(
    width=st.integers(1, 200),
    content=st.lists(st.integers(0, 60), min_size=8, max_size=8),
)
def test_columns_fit_the_width_and_get_their_content_where_there_is_room(width, content):
    table = OccurrencesTable()
    table.clock = CLOCK
    table._content = list(content)
    widths = table._layout(width)
    columns = [table.COLUMNS[number] for number in table._shown]
    assert sum(widths) + max(0, len(widths) - 1) <= width
    assert all(w >= column.width for w, column in zip(widths, columns, strict=True))
    wanted = [
        max(column.width, content[n]) for n, column in zip(table._shown, columns, strict=True)
    ]
    if sum(wanted) + len(wanted) - 1 <= width:
        assert all(w >= want for w, want in zip(widths, wanted, strict=True))


BRACKETS_YAML = """\
scenario: "brackets [/b]"
workers: ["[red]w1"]
jobs:
  - {id: "[/b]etl", every: 10, duration: 3}
clock: {until: 30}
"""


async def test_text_that_looks_like_markup_is_shown_as_typed_not_read(tmp_path: Path) -> None:
    """A filter, a job id in the why screen's title and a command's answer are text: read as
    Textual markup, ``[/b]`` raised MarkupError (and took the dashboard down)."""
    path = tmp_path / "brackets.yaml"
    path.write_text(BRACKETS_YAML, encoding="utf-8")
    app = DashboardApp(path, watch=False, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.seek(25)
        await pilot.press("slash", *"[/b]e", "enter")
        await pilot.pause()
        table = app.dashboard.query_one(OccurrencesTable)
        assert table.filter_text == "[/b]e" and len(table.index) == 3
        assert "/[/b]e  3 of 3" in "\n".join(screen_lines(app))
        await pilot.press("w")
        await pilot.pause()
        assert "Why? [/b]etl@20" in "\n".join(screen_lines(app))
        await pilot.press("escape", "colon", *"status [/b]etl 20", "enter")
        await until(lambda: app._notifications, "the command's answer")
        toast = list(app._notifications)[-1]  # the answer, as a toast that shows it as typed
        assert (toast.message, toast.markup) == ("status: [/b]etl@20 is SUCCEEDED", False)
        assert "[red]w1" in "\n".join(pane_text(app, "workers"))
