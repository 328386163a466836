"""A timer is one job however many triggers it has, its drop-ins count, its service's limit is
the one its Type= obeys, and what systemd accepts is imported or listed, never refused."""

from __future__ import annotations

from pathlib import Path

from import_helpers import cronlapse

from cronlapse.importers.fleet import ImportOptions, import_fleet
from engine.model import events as ev
from engine.scenario import ScenarioRunner


def _fleet(*paths: Path, **options: object):
    return import_fleet("systemd", [str(path) for path in paths], ImportOptions(**options))


def _starts(fleet) -> dict[str, list[int]]:
    runner = ScenarioRunner(fleet.scenario)
    runner.run()
    starts: dict[str, list[int]] = {}
    for event in runner.engine.log:
        if isinstance(event, ev.AttemptStarted):
            starts.setdefault(event.job_id, []).append(event.tick)
    return starts


def _write(directory: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)


def test_two_calendar_lines_are_one_job_that_runs_once_when_both_fire(tmp_path: Path) -> None:
    """systemd.timer(5): a timer with several triggers elapses when the earliest does and starts
    its one unit; on Sundays both lines name 02:30, and one run starts."""
    _write(
        tmp_path,
        {
            "backup.timer": "[Timer]\nOnCalendar=*-*-* 02:30\nOnCalendar=Sun 02:30\n"
            "OnCalendar=Mon 14:00\nPersistent=true\n",
            "backup.service": "[Service]\nExecStart=/bin/backup\n",
        },
    )
    fleet = _fleet(tmp_path / "backup.timer")
    assert fleet.jobs == 1
    assert 'cron: ["30 2 * * *", "30 2 * * 0", "0 14 * * 1"]' in fleet.text
    starts = _starts(fleet)
    assert list(starts) == ["backup"]
    assert starts["backup"] == [150, 840] + [1440 * day + 150 for day in range(1, 7)]


def test_calendar_and_boot_triggers_are_one_job(tmp_path: Path) -> None:
    _write(tmp_path, {"mix.timer": "[Timer]\nOnCalendar=*-*-* 03:00\nOnBootSec=10min\n"})
    fleet = _fleet(tmp_path / "mix.timer")
    assert fleet.jobs == 1 and 'cron: "0 3 * * *", first: 10,' in fleet.text
    assert _starts(fleet)["mix"][:3] == [10, 180, 1440 + 180]


def test_a_calendar_run_restarts_on_unit_active_sec(tmp_path: Path) -> None:
    """OnUnitActiveSec= counts from the unit's last start (systemd.timer(5)), and the daily
    calendar run starts it: 00:00, then every 6 hours, the count restarting each midnight."""
    _write(tmp_path, {"combo.timer": "[Timer]\nOnCalendar=daily\nOnUnitActiveSec=6h\n"})
    fleet = _fleet(tmp_path / "combo.timer", days=2)
    assert fleet.skipped == ()
    assert 'cron: "0 0 * * *", repeat: 360,' in fleet.text
    assert _starts(fleet)["combo"] == [0, 360, 720, 1080, 1440, 1800, 2160, 2520, 2880]


def test_drop_ins_are_read_in_lexical_order_after_the_unit(tmp_path: Path) -> None:
    """systemd.unit(5): NAME.timer.d/*.conf, then NAME.service.d/*.conf, read after the unit in
    the lexical order of their names; an empty OnCalendar= clears the lines before it."""
    _write(
        tmp_path,
        {
            "rotate.timer": "[Timer]\nOnCalendar=daily\n",
            "rotate.timer.d/20-later.conf": "[Timer]\nOnCalendar=*-*-* 04:15\n",
            "rotate.timer.d/10-reset.conf": "[Timer]\nOnCalendar=\nOnCalendar=*-*-* 05:00\n",
            "rotate.timer.d/notes.txt": "[Timer]\nOnCalendar=*-*-* 06:00\n",
            "rotate.service": "[Service]\nExecStart=/bin/rotate\n",
            "rotate.service.d/override.conf": "[Service]\nExecStart=/bin/rotate --all\n",
        },
    )
    fleet = _fleet(tmp_path / "rotate.timer")
    assert 'cron: ["0 5 * * *", "15 4 * * *"]' in fleet.text
    assert 'payload: "/bin/rotate --all"' in fleet.text
    assert f"{tmp_path}/rotate.timer.d/20-later.conf:2: OnCalendar=*-*-* 04:15" in fleet.text
    assert "drop-ins read: rotate.timer.d/10-reset.conf, rotate.timer.d/20-later.conf" in (
        fleet.text
    )


def test_the_header_says_where_drop_ins_are_looked_for(tmp_path: Path) -> None:
    _write(tmp_path, {"a.timer": "[Timer]\nOnCalendar=daily\n"})
    assert "Drop-ins are read from NAME.timer.d/ and NAME.service.d/ next to each timer" in (
        _fleet(tmp_path / "a.timer").text
    )


def test_a_oneshot_service_is_limited_by_timeout_start_sec_not_runtime_max_sec(
    tmp_path: Path,
) -> None:
    """systemd.service(5): RuntimeMaxSec= has no effect on Type=oneshot; TimeoutStartSec= is
    the limit of its run."""
    _write(
        tmp_path,
        {
            "b.timer": "[Timer]\nOnCalendar=daily\n",
            "b.service": "[Service]\nType=oneshot\nExecStart=/bin/b\nTimeoutStartSec=20min\n"
            "RuntimeMaxSec=5min\n",
        },
    )
    text = _fleet(tmp_path / "b.timer").text
    assert "timeout: 20," in text
    assert "RuntimeMaxSec=5min: no effect on Type=oneshot (systemd.service(5))" in text


def test_a_simple_service_is_limited_by_runtime_max_sec(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "b.timer": "[Timer]\nOnCalendar=daily\n",
            "b.service": "[Service]\nExecStart=/bin/b\nTimeoutStartSec=20min\nRuntimeMaxSec=5min\n",
        },
    )
    text = _fleet(tmp_path / "b.timer").text
    assert "timeout: 5," in text
    assert "TimeoutStartSec=20min: the limit of a simple service's start-up" in text


def test_a_template_service_is_instantiated(tmp_path: Path) -> None:
    """systemd.unit(5): report@daily.service, when no such file exists, is an instance of the
    template report@.service, with %i the instance name."""
    _write(
        tmp_path,
        {
            "report@daily.timer": "[Timer]\nOnCalendar=*-*-* 06:00\n",
            "report@.service": "[Service]\nType=oneshot\nExecStart=/usr/bin/report %i\n",
        },
    )
    fleet = _fleet(tmp_path / "report@daily.timer")
    assert 'payload: "/usr/bin/report daily"' in fleet.text
    assert "not found" not in fleet.text


def test_an_event_with_no_cron_form_is_listed_and_the_fleet_imported(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "once.timer": "[Timer]\nOnCalendar=2026-03-01 10:00\n",
            "half.timer": "[Timer]\nOnCalendar=*:0/15:30\nOnCalendar=hourly\n",
            "ok.timer": "[Timer]\nOnCalendar=daily\n",
        },
    )
    status, out, err = cronlapse(
        "import", "systemd", *(str(tmp_path / f"{n}.timer") for n in ("once", "half", "ok"))
    )
    assert status == 0, err
    assert f"not imported: {tmp_path}/once.timer:2: OnCalendar=2026-03-01 10:00: a year" in err
    assert f"not imported: {tmp_path}/half.timer:2: OnCalendar=*:0/15:30: seconds 30" in err
    assert '{id: "half", cron: "0 * * * *"' in out and '{id: "ok", cron: "0 0 * * *"' in out
    assert '"once"' not in out
