"""``cronlapse import systemd``: timers (and their services) become jobs that fire as systemd's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from import_helpers import cronlapse

from cronlapse.importers.files import ImportProblems
from cronlapse.importers.systemd import parse_timer, read_timer
from engine.model import events as ev
from engine.scenario import ScenarioRunner, load_scenario, parse_scenario

TIMERS = Path(__file__).parent / "corpus" / "systemd"


def _starts(path: Path) -> dict[str, list[int]]:
    runner = ScenarioRunner(load_scenario(str(path)))
    assert runner.run() == []
    starts: dict[str, list[int]] = {}
    for event in runner.engine.log:
        if isinstance(event, ev.AttemptStarted):
            starts.setdefault(event.job_id, []).append(event.tick)
    return starts


def test_a_calendar_timer_and_its_service_give_schedule_command_user_and_timeout() -> None:
    timer = read_timer(str(TIMERS / "backup.timer"))
    (schedule,) = timer.schedules
    assert (schedule.line, schedule.source) == (6, "OnCalendar=*-*-* 01:00:00")
    assert schedule.cron == "6 1 * * *"  # 01:00 plus the delay drawn from seed 0 (6 of 30 min)
    assert timer.description == "Nightly restic backup of /srv"
    assert timer.command == "/usr/bin/restic backup --one-file-system /srv"
    # RuntimeMaxSec=2h has no effect on its Type=oneshot (systemd.service(5)): no timeout.
    assert (timer.user, timer.timeout_minutes, timer.persistent) == ("backup", None, True)
    assert "backup.service: After=, EnvironmentFile=, Wants=: not modelled" in timer.notes


def test_unit_names_the_service_and_the_zone_suffix_is_the_jobs_zone() -> None:
    timer = read_timer(str(TIMERS / "weekday-report.timer"))
    (schedule,) = timer.schedules
    assert (schedule.cron, schedule.timezone) == ("30 7 * * 1-5", "Europe/London")
    assert timer.command == "/opt/reports/bin/sales-report --mail sales@example.com"
    assert timer.timeout_minutes is None  # RuntimeMaxSec=20min on a Type=oneshot service
    assert "sales-report.service: Build and mail the sales report" in timer.notes


def test_several_oncalendar_lines_are_kept_in_order_and_an_empty_one_clears(
    tmp_path: Path,
) -> None:
    timer = read_timer(str(TIMERS / "month-end.timer"))
    assert [s.cron for s in timer.schedules] == ["0 23 L * *", "0 18 * * 6#1"]
    reset = tmp_path / "r.timer"
    reset.write_text("[Timer]\nOnCalendar=daily\nOnCalendar=\nOnCalendar=hourly\n")
    assert [s.cron for s in read_timer(str(reset)).schedules] == ["0 * * * *"]


def test_monotonic_timers_start_after_boot_and_repeat_after_each_start() -> None:
    (schedule,) = read_timer(str(TIMERS / "tmp-cleanup.timer")).schedules
    assert (schedule.first, schedule.every, schedule.cron) == (15, 60, None)


def test_on_unit_inactive_sec_counts_from_the_end_of_each_run(tmp_path: Path) -> None:
    path = tmp_path / "poll.timer"
    path.write_text("[Timer]\nOnActiveSec=2min\nOnUnitInactiveSec=10min\n")
    (schedule,) = read_timer(str(path), duration=5).schedules
    assert (schedule.first, schedule.every) == (2, 15)


def test_on_unit_active_sec_alone_never_elapses_so_it_is_not_imported(tmp_path: Path) -> None:
    path = tmp_path / "lonely.timer"
    path.write_text("[Timer]\nOnUnitActiveSec=1h\n")
    timer = read_timer(str(path))
    assert timer.schedules == []
    assert timer.skipped == [
        f"{path}:2: OnUnitActiveSec= alone never elapses: systemd counts "
        "from the unit's last start, and nothing starts it first"
    ]


def test_settings_not_modelled_are_noted_one_by_one() -> None:
    notes = read_timer(str(TIMERS / "fstrim.timer")).notes
    assert notes == [
        "[Unit] Documentation=: not modelled",
        "[Unit] ConditionVirtualization=: not modelled",
        "AccuracySec=1h: systemd may start a run up to that late (at a point fixed per boot); "
        "cronlapse starts it on time",
        "[Install] WantedBy=: how the timer is enabled; no effect on runs",
        "RandomizedDelaySec=100min: drawn 82 min (seed 0), added to its run times",
        "fstrim.service: not found next to the timer; the job has no command",
    ]


@given(st.integers(0, 2**32), st.integers(1, 86400))
def test_the_random_delay_is_seeded_and_never_longer_than_asked(seed: int, most: int) -> None:
    text = f"[Timer]\nOnBootSec=1min\nOnUnitActiveSec=1d\nRandomizedDelaySec={most}\n"
    first = parse_timer(text, "t.timer", seed).schedules[0].first
    again = parse_timer(text, "t.timer", seed).schedules[0].first
    assert first == again
    assert first is not None and 1 <= first <= 1 + -(-most // 60)


def test_seeds_draw_different_delays() -> None:
    text = "[Timer]\nOnCalendar=*-*-* 01:00\nRandomizedDelaySec=1h\n"
    crons = {parse_timer(text, "t.timer", seed).schedules[0].cron for seed in range(20)}
    assert len(crons) > 10


def test_a_delay_that_cannot_shift_the_schedule_is_said_and_the_times_kept() -> None:
    text = "[Timer]\nOnCalendar=Mon 23:30\nRandomizedDelaySec=1h\n"
    timer = parse_timer(text, "t.timer", seed=1)
    assert timer.schedules[0].cron == "30 23 * * 1"
    assert "not yet supported for OnCalendar=Mon 23:30" in timer.notes[0]


def test_the_imported_timers_run_when_systemd_would_start_them(tmp_path: Path) -> None:
    output = tmp_path / "timers.yaml"
    files = [
        str(TIMERS / name) for name in ("backup.timer", "tmp-cleanup.timer", "month-end.timer")
    ]
    status, out, err = cronlapse("import", "systemd", *files, "-o", str(output), "--days", "35")
    assert (status, out, err) == (0, f"wrote {output}: 3 jobs\n", "")
    text = output.read_text()
    assert 'catch_up: "latest"' in text  # Persistent=true
    starts = _starts(output)
    assert starts["backup"][:2] == [66, 66 + 1440]  # 01:00 + 6 min, each day
    assert starts["tmp-cleanup"][:3] == [15, 75, 135]
    # One job for both lines: Saturday 31 January, 23:00, then the first Saturday, 7 February
    assert starts["month-end"] == [1440 * 26 + 23 * 60, 1440 * 33 + 18 * 60]


def test_a_timer_in_another_zone_fires_at_its_local_time(tmp_path: Path) -> None:
    output = tmp_path / "report.yaml"
    status, _, _ = cronlapse(
        "import",
        "systemd",
        str(TIMERS / "weekday-report.timer"),
        "-o",
        str(output),
        "--from",
        "2026-03-23T00:00:00",
        "--days",
        "7",
    )
    assert status == 0
    # 07:30 in London: GMT on Monday to Friday 23-27 March 2026 (BST starts on the 29th).
    assert _starts(output)["weekday-report"] == [450 + 1440 * day for day in range(5)]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[Timer]\nOnCalendar=*-*-* 25:00\n", "t:2:18: OnCalendar=: hour '25': expected values"),
        (
            "[Timer]\nOnCalendar=*-*-* 10:00 Mars/Olympus\n",
            "t:2:24: OnCalendar=: unknown time zone 'Mars/Olympus'",
        ),
        ("[Timer]\nOnCalendar=Mon Wed\n", "t:2:16: OnCalendar=: 'Wed': expected WEEKDAYS"),
        (
            "[Timer]\nOnCalendar=garbage\n",
            "t:2:12: OnCalendar=: 'garbage' is not a calendar event: expected WEEKDAYS "
            "YEAR-MONTH-DAY HOUR:MINUTE[:SECOND] [ZONE]",
        ),
        (
            "[Timer]\nOnCalendar=Mon garbage\n",
            "t:2:16: OnCalendar=: unknown time zone 'garbage'",
        ),
        (
            "[Timer]\nOnCalendar=Europe/Lndon\n",
            "t:2:12: OnCalendar=: unknown time zone 'Europe/Lndon'",
        ),
        ("[Timer]\nOnCalendar=daily\nRandomizedDelaySec=soon\n", "t:3:20: RandomizedDelaySec=: "),
        ("[Timer]\nOnCalendar=daily\nPersistent=maybe\n", "t:3:12: Persistent=: expected true"),
        ("[Timer]\nOnBootSec=1\nOnUnitActiveSec=30s\n", "t:3:17: OnUnitActiveSec=: shorter than"),
        ("[Unit]\nDescription=x\n", "t:1:1: expected OnCalendar= or OnBootSec=/OnActiveSec= in a"),
        ("[Timer]\nPersistent=true\n", "t:1:1: expected OnCalendar= or OnBootSec="),
        ("[Timer]\nOnCalendar daily\n", "t:2:1: expected [Section], Key=value or a # comment"),
        ("OnCalendar=daily\n", "t:1:1: expected a [Section] header before the first setting"),
    ],
)
def test_a_bad_timer_names_its_place_and_what_was_expected(text: str, problem: str) -> None:
    with pytest.raises(ImportProblems) as caught:
        parse_timer(text, "t")
    assert str(caught.value.problems[0]).startswith(problem), caught.value.problems


def test_a_bad_service_is_reported_at_its_own_place(tmp_path: Path) -> None:
    (tmp_path / "job.timer").write_text("[Timer]\nOnCalendar=daily\n")
    (tmp_path / "job.service").write_text("[Service]\nRuntimeMaxSec=a while\n")
    status, out, err = cronlapse("import", "systemd", str(tmp_path / "job.timer"))
    assert (status, out) == (1, "")
    where = f"{tmp_path / 'job.service'}:2:15"
    assert err == (
        f"cronlapse import: {where}: RuntimeMaxSec=: expected a time span such as 90, 5min or "
        "1h 30min\n"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "a binary file, not a systemd timer"),
        (b"[Timer]\nOnCalendar=caf\xe9\n", "not UTF-8 text"),
        (b"#" * 1_000_001, "larger than 1,000,000 bytes"),
    ],
)
def test_files_that_are_no_timer_are_refused_and_nothing_is_written(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    source, output = tmp_path / "x.timer", tmp_path / "out.yaml"
    source.write_bytes(content)
    status, out, err = cronlapse("import", "systemd", str(source), "-o", str(output))
    assert status == 1 and out == "" and problem in err
    assert "Traceback" not in err and not output.exists()


def test_an_event_that_is_one_unknown_word_is_not_understood_not_a_zone(tmp_path: Path) -> None:
    """``OnCalendar=garbage`` is no event, not a zone mistyped."""
    source = tmp_path / "job.timer"
    source.write_text("[Timer]\nPersistent=true\nOnCalendar=garbage\n")
    status, out, err = cronlapse("import", "systemd", str(source))
    assert (status, out) == (1, "")
    assert err == (
        f"cronlapse import: {source}:3:12: OnCalendar=: 'garbage' is not a calendar event: "
        "expected WEEKDAYS YEAR-MONTH-DAY HOUR:MINUTE[:SECOND] [ZONE], each part optional, such "
        "as 'Mon..Fri *-*-* 02:30:00', 'daily' or 'daily UTC'\n"
    )


@pytest.mark.parametrize("zone", ["UTC", "utc", "Europe/Paris"])
def test_a_zone_alone_is_refused_as_systemd_refuses_it_and_the_rest_imported(
    tmp_path: Path, zone: str
) -> None:
    # calendarspec.c reads a zone only after a space; "OnCalendar=UTC" fails to parse, and the
    # timer ignores the line (test-calendarspec.c: calendar_spec_from_string(" UTC") < 0)
    alone = tmp_path / "alone.timer"
    alone.write_text(f"[Timer]\nOnCalendar={zone}\n")
    nightly = tmp_path / "nightly.timer"
    nightly.write_text("[Timer]\nOnCalendar=daily\n")
    status, out, err = cronlapse("import", "systemd", str(alone), str(nightly))
    assert status == 0
    assert err == (
        f"cronlapse import: not imported: {alone}:2: OnCalendar={zone}: a zone alone, which "
        f"systemd refuses (it ignores the line): a zone follows an event, as in 'daily {zone}'\n"
    )
    assert [job.job_id for job in parse_scenario(out, "t.yaml").jobs] == ["nightly"]


def test_persistent_has_no_effect_on_a_timer_without_on_calendar(tmp_path: Path) -> None:
    # systemd.timer(5), Persistent=: "only has an effect on timers configured with OnCalendar="
    timer = tmp_path / "sweep.timer"
    timer.write_text("[Timer]\nOnBootSec=15min\nOnUnitActiveSec=6h\nPersistent=true\n")
    status, out, _ = cronlapse("import", "systemd", str(timer))
    assert status == 0
    assert "catch_up" not in out.split("jobs:")[1].split("source:")[0]
    assert "# Persistent=true: no effect without OnCalendar= (no catch-up)" in out
