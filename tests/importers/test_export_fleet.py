"""``cronlapse export --fleet`` (issue 37, item 4): a scenario's jobs written back as crontabs,
CronJob manifests and systemd units. An imported job goes back to its file's text as written
when nothing the format holds changed (so import, export, import is the same scenario), a
changed one has what changed rewritten, and a job from elsewhere is written in a canonical form
that imports as a job firing at the same times."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from import_helpers import cronlapse

from cronlapse.exports.fleet import write_fleet
from cronlapse.importers.fleet import ImportOptions, InputFile, import_files
from engine.scenario import Scenario, parse_scenario

IMPORTS = Path(__file__).resolve().parents[2] / "scenarios" / "imports"
BUNDLED = [
    InputFile("crontab", str(IMPORTS / "team.crontab")),
    InputFile("k8s", str(IMPORTS / "reporting-cronjobs.yaml")),
    InputFile("systemd", str(IMPORTS / "timers" / "backup.timer")),
    InputFile("systemd", str(IMPORTS / "timers" / "weekday-report.timer")),
]
KIND_OF = {".crontab": "crontab", ".yaml": "k8s", ".timer": "systemd"}
WEEK = 7 * 1440


def written(directory: Path, files: dict[str, str]) -> list[InputFile]:
    """Write ``files`` in ``directory``; the ones to import, in order."""
    inputs = []
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        kind = "crontab" if path.parent.name in ("etc", "cron.d") else KIND_OF.get(path.suffix)
        if kind is not None:
            inputs.append(InputFile(kind, str(path)))
    return inputs


def same_fleet(one: Scenario, other: Scenario) -> None:
    assert other.jobs == one.jobs
    assert (other.workers, other.clock, other.until) == (one.workers, one.clock, one.until)
    assert [entry.action for entry in other.timeline] == [entry.action for entry in one.timeline]


def fire_ticks(scenario: Scenario) -> list[list[int]]:
    return [list(spec.schedule.fire_ticks(0, WEEK)) for spec in scenario.jobs]


def test_a_fleet_written_back_as_it_came_is_the_files_and_imports_the_same(
    tmp_path: Path,
) -> None:
    imported = import_files(BUNDLED, ImportOptions()).scenario
    exported = write_fleet(imported, "source")
    assert exported.notes == ()
    assert exported.files["team.crontab"] == (IMPORTS / "team.crontab").read_text()
    for unit in ("backup.timer", "backup.service", "weekday-report.timer", "sales-report.service"):
        assert exported.files[unit] == (IMPORTS / "timers" / unit).read_text()
    manifest = exported.files["reporting-cronjobs.yaml"]
    original = (IMPORTS / "reporting-cronjobs.yaml").read_text()
    # the List's CronJobs one document each, then the Deployment beside them and the last CronJob
    assert manifest.endswith(original[original.index("apiVersion: apps/v1\nkind: Deployment") :])
    again = import_files(written(tmp_path, exported.files), ImportOptions()).scenario
    same_fleet(imported, again)


@pytest.mark.parametrize("kind", ["crontab", "k8s", "systemd"])
def test_each_format_imports_as_jobs_firing_at_the_same_times(tmp_path: Path, kind: str) -> None:
    imported = import_files(BUNDLED, ImportOptions()).scenario
    exported = write_fleet(imported, kind)
    paused = (
        "quarterly-cleanup: written as running: it is paused from the start, which only a "
        "CronJob (spec.suspend) can say"
    )
    assert exported.notes == (() if kind == "k8s" else (paused,))
    again = import_files(written(tmp_path, exported.files), ImportOptions()).scenario
    by_ticks = sorted(fire_ticks(again))
    assert by_ticks == sorted(fire_ticks(imported))


def _rescheduled(scenario: Scenario, job_id: str, cron: str) -> Scenario:
    jobs = tuple(
        dataclasses.replace(spec, schedule=dataclasses.replace(spec.schedule, expression=cron))  # type: ignore[type-var]
        if spec.job_id == job_id
        else spec
        for spec in scenario.jobs
    )
    return dataclasses.replace(scenario, jobs=jobs)


def test_a_changed_crontab_entry_is_rewritten_and_the_rest_kept(tmp_path: Path) -> None:
    imported = import_files(BUNDLED[:1], ImportOptions()).scenario
    changed = _rescheduled(imported, "load-warehouse", "45 3 * * *")
    text = write_fleet(changed, "crontab").files["team.crontab"]
    original = (IMPORTS / "team.crontab").read_text()
    assert text == original.replace(
        "30 2 * * * /opt/etl/bin/load-warehouse", "45 3 * * * /opt/etl/bin/load-warehouse"
    )
    again = import_files(written(tmp_path, {"team.crontab": text}), ImportOptions()).scenario
    assert again.jobs == changed.jobs


def test_a_changed_cronjob_keeps_the_fields_the_import_did_not_model(tmp_path: Path) -> None:
    imported = import_files(BUNDLED[1:2], ImportOptions()).scenario
    changed = _rescheduled(imported, "cache-warmer", "15 * * * *")
    manifest = write_fleet(changed, "k8s").files["reporting-cronjobs.yaml"]
    assert "schedule: 15 * * * *" in manifest or "schedule: '15 * * * *'" in manifest
    cache_warmer = manifest[manifest.index("name: cache-warmer") :]
    assert "- wget -qO- http://cache/warm" in cache_warmer
    assert "timeZone" not in cache_warmer.partition("---")[0]
    inputs = written(tmp_path, {"reporting-cronjobs.yaml": manifest})
    again = import_files(inputs, ImportOptions()).scenario
    assert again.jobs == changed.jobs


def test_a_changed_timer_gets_new_triggers_and_keeps_its_service(tmp_path: Path) -> None:
    imported = import_files(BUNDLED[2:3], ImportOptions()).scenario
    changed = _rescheduled(imported, "backup", "0 4 * * 1-5")
    files = write_fleet(changed, "systemd").files
    assert files["backup.service"] == (IMPORTS / "timers" / "backup.service").read_text()
    timer = files["backup.timer"]
    assert "[Timer]\nOnCalendar=Mon..Fri *-*-* 04:00:00 UTC\nPersistent=true\n" in timer
    assert "RandomizedDelaySec" not in timer and "# After midnight" in timer
    again = import_files(written(tmp_path, files), ImportOptions()).scenario
    assert fire_ticks(again) == fire_ticks(changed)


JOBS = """\
scenario: by hand
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 10080}
workers: [w1]
jobs:
  - {id: poll, every: 7}
  - {id: either-day, cron: "0 9 1 * 1"}
  - {id: last-day, cron: "0 23 L * *"}
"""


def test_what_a_format_cannot_say_is_listed_not_written() -> None:
    scenario = parse_scenario(JOBS, "by-hand.yaml")
    assert write_fleet(scenario, "crontab").notes == (
        "poll: not exported as crontab: a crontab has only cron schedules: not at, every, "
        "first, repeat",
    )
    assert write_fleet(scenario, "systemd").notes == (
        "either-day: not exported as systemd: '0 9 1 * 1': a day of the month and a weekday "
        "both restricted: systemd fires where both match, cron by its own rule (where either "
        "does, or both when one starts with *), and only the n-th weekday of a month reads "
        "back as cron",
        "last-day: not exported as systemd: '0 23 L * *': L, W and # are not written as "
        "calendar events yet",
    )
    assert [note.partition(":")[0] for note in write_fleet(scenario, "k8s").notes] == [
        "poll",
        "last-day",
    ]
    assert write_fleet(scenario, "source").notes[0] == (
        "poll: not exported: it came from no file; export it as crontab, k8s or systemd"
    )


def test_the_command_writes_the_files_in_a_directory_or_on_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    crontab = str(IMPORTS / "team.crontab")
    monkeypatch.chdir(tmp_path)  # where ``-o -`` must not make a directory named ``-``
    printed = cronlapse("export", "--fleet", "source", crontab)
    status, out, _ = printed
    assert status == 0
    assert out == "==> team.crontab <==\n" + (IMPORTS / "team.crontab").read_text()
    assert cronlapse("export", "--fleet", "source", crontab, "-o", "-") == printed
    assert not (tmp_path / "-").exists()
    target = tmp_path / "out"
    status, out, _ = cronlapse("export", "--fleet", "systemd", crontab, "-o", str(target))
    assert status == 0
    assert out.startswith(f"wrote 6 files in {target}: load-warehouse.timer, ")
    assert sorted(path.name for path in target.iterdir()) == sorted(
        f"{name}.{unit}"
        for name in ("load-warehouse", "refresh-dashboards", "vacuum-db")
        for unit in ("timer", "service")
    )


def test_fleet_without_a_file_is_a_usage_error() -> None:
    status, _, err = cronlapse("export", "--fleet", "crontab")
    assert (status, err) == (2, "cronlapse export: --fleet needs the FILE whose jobs to write\n")
