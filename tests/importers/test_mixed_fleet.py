"""One fleet from files of different kinds (issue 37, item 2): ``cronlapse import FILE...``
recognises each file (or takes its kind from a kind word before it), keeps job ids unique across
the files, sizes the workers for the whole fleet, and can add the jobs to a scenario a user
already has (``--into``), refusing a clash at its place and writing nothing half-way."""

from __future__ import annotations

from pathlib import Path

from import_helpers import cronlapse

from cronlapse.importers.pool import workers_needed
from engine.model.commands import PauseJob
from engine.scenario import parse_scenario

IMPORTS = Path(__file__).resolve().parents[2] / "scenarios" / "imports"
CRONTAB = str(IMPORTS / "team.crontab")
MANIFEST = str(IMPORTS / "reporting-cronjobs.yaml")
TIMER = str(IMPORTS / "timers" / "backup.timer")


def _ids(text: str) -> list[str]:
    return [spec.job_id for spec in parse_scenario(text, "<import>").jobs]


def test_files_of_three_kinds_are_recognised_into_one_scenario() -> None:
    status, out, _ = cronlapse("import", CRONTAB, MANIFEST, TIMER)
    assert status == 0
    assert _ids(out) == [
        "load-warehouse",
        "refresh-dashboards",
        "vacuum-db",
        "nightly-report",
        "cache-warmer",
        "quarterly-cleanup",
        "backup",
    ]
    assert out.startswith(
        f"# Imported by `cronlapse import` from {CRONTAB}, {MANIFEST}, {TIMER}.\n"
        "# One tick is a minute; cron, the CronJob controller and systemd start every due run "
        "when it falls due, so the scenario has as many workers as runs can be active at once"
    )


def test_the_workers_are_sized_for_the_whole_fleet_and_workers_still_overrides() -> None:
    status, out, _ = cronlapse("import", CRONTAB, MANIFEST, TIMER, "--duration", "90")
    scenario = parse_scenario(out, "<import>")
    assert status == 0
    needed = workers_needed(scenario.jobs, 7 * 1440).workers
    assert len(scenario.workers) == needed > 1
    status, out, _ = cronlapse("import", CRONTAB, "--workers", "3", MANIFEST, TIMER)
    assert status == 0 and len(parse_scenario(out, "<import>").workers) == 3


def test_a_kind_word_names_the_kind_of_the_files_after_it(tmp_path: Path) -> None:
    notes = tmp_path / "jobs.txt"  # a .txt file would be read as a seed 001 script
    notes.write_text("0 3 * * * /usr/local/bin/rotate-logs\n", encoding="utf-8")
    status, out, _ = cronlapse("import", "crontab", str(notes), "systemd", TIMER)
    assert status == 0 and _ids(out) == ["rotate-logs", "backup"]


def test_a_clash_between_files_of_different_kinds_adds_the_kind_and_says_so(
    tmp_path: Path,
) -> None:
    crontab = tmp_path / "ops.crontab"
    crontab.write_text("0 1 * * * /usr/local/bin/backup --all\n", encoding="utf-8")
    status, out, err = cronlapse("import", str(crontab), TIMER)
    assert status == 0
    assert _ids(out) == ["backup", "backup-systemd"]
    renamed = f"{TIMER}:6: id backup-systemd: backup is already the id of {crontab}:1"
    assert f"cronlapse import: renamed: {renamed}\n" in err
    assert f"# Renamed: {renamed}\n" in out


def test_a_clash_between_files_of_one_kind_is_numbered(tmp_path: Path) -> None:
    first, second = tmp_path / "a.crontab", tmp_path / "b.crontab"
    first.write_text("0 1 * * * /usr/local/bin/backup\n", encoding="utf-8")
    second.write_text("0 2 * * * /opt/bin/backup\n", encoding="utf-8")
    status, out, err = cronlapse("import", str(first), str(second))
    assert status == 0 and _ids(out) == ["backup", "backup-2"]
    assert f"renamed: {second}:1: id backup-2: backup is already the id of {first}:1" in err


def test_a_file_of_no_kind_is_refused_with_the_kind_words(tmp_path: Path) -> None:
    scenario = tmp_path / "fleet.yaml"
    scenario.write_text("scenario: mine\njobs: []\n", encoding="utf-8")
    status, out, err = cronlapse("import", CRONTAB, str(scenario))
    assert (status, out) == (1, "")
    assert err == (
        f"cronlapse import: {scenario}: not recognised as a crontab, a Kubernetes manifest or "
        "a systemd timer: name its kind before it (crontab FILE, k8s FILE, systemd FILE)\n"
    )


def test_a_kind_word_without_files_is_a_usage_error() -> None:
    status, _, err = cronlapse("import", CRONTAB, "k8s")
    assert status == 2
    assert err == "cronlapse import: k8s: expected a FILE after k8s (a file named k8s: ./k8s)\n"


HAND_WRITTEN = """\
# The team's own what-ifs: keep this comment.
scenario: team
clock: {epoch: "2026-01-05T00:00:00", timezone: "UTC", tick: 60, until: 1440}
workers:
  - w1
jobs:
  # a job written by hand
  - id: reindex
    cron: "0 5 * * *"
    duration: 2

timeline:
  - {at: 600, pause: {job: reindex}}
"""


def test_into_adds_the_jobs_and_keeps_the_scenario_as_written(tmp_path: Path) -> None:
    scenario = tmp_path / "team.yaml"
    scenario.write_text(HAND_WRITTEN, encoding="utf-8")
    status, out, _ = cronlapse("import", MANIFEST, "--into", str(scenario), "--duration", "90")
    assert (status, out) == (0, f"wrote {scenario}: added 3 jobs\n")
    text = scenario.read_text(encoding="utf-8")
    kept = iter(text.splitlines())
    assert all(line in kept for line in HAND_WRITTEN.splitlines())  # in order, none lost
    merged = parse_scenario(text, str(scenario))
    assert [spec.job_id for spec in merged.jobs] == [
        "reindex",
        "nightly-report",
        "cache-warmer",
        "quarterly-cleanup",
    ]
    assert len(merged.workers) == workers_needed(merged.jobs, 1440).workers > 1
    pauses = [entry.action for entry in merged.timeline if isinstance(entry.action, PauseJob)]
    assert [pause.job_id for pause in pauses] == ["quarterly-cleanup", "reindex"]
    assert "    duration: 2\n  # Added by `cronlapse import --into` from " in text


def test_into_a_scenario_with_flow_lists(tmp_path: Path) -> None:
    scenario = tmp_path / "empty.yaml"
    scenario.write_text(
        "scenario: empty\nclock: {epoch: 2026-01-05T00:00:00, timezone: UTC, tick: 60}\n"
        "workers: [w1]\njobs: []\n",
        encoding="utf-8",
    )
    status, out, _ = cronlapse("import", CRONTAB, TIMER, "--into", str(scenario), "-o", "-")
    merged = parse_scenario(out, "<merged>")
    assert status == 0
    assert [spec.job_id for spec in merged.jobs] == _ids(cronlapse("import", CRONTAB, TIMER)[1])


def test_into_says_the_zone_of_a_crontab_entry_without_cron_tz(tmp_path: Path) -> None:
    scenario = tmp_path / "berlin.yaml"
    scenario.write_text(
        'scenario: b\nclock: {epoch: "2026-01-05T00:00:00", timezone: Europe/Berlin, tick: 60}\n'
        "workers: [w1]\njobs: []\n",
        encoding="utf-8",
    )
    crontab = tmp_path / "ops.crontab"
    crontab.write_text("0 3 * * * /usr/local/bin/rotate-logs\n", encoding="utf-8")
    status, out, _ = cronlapse("import", str(crontab), "--into", str(scenario), "-o", "-")
    assert status == 0
    assert '{id: "rotate-logs", cron: "0 3 * * *", timezone: "UTC",' in out


def test_into_refuses_a_clash_at_its_place_and_writes_nothing(tmp_path: Path) -> None:
    scenario = tmp_path / "team.yaml"
    scenario.write_text(HAND_WRITTEN.replace("reindex", "backup"), encoding="utf-8")
    before = scenario.read_text(encoding="utf-8")
    status, out, err = cronlapse("import", CRONTAB, TIMER, "--into", str(scenario))
    assert (status, out) == (1, "")
    assert err == (
        f"cronlapse import: {TIMER}:6: OnCalendar=*-*-* 01:00:00: id 'backup' is already the "
        f"id of {scenario}:8's job: rename one of them\n"
    )
    assert scenario.read_text(encoding="utf-8") == before
    assert [path.name for path in tmp_path.iterdir()] == ["team.yaml"]


def test_into_a_scenario_with_problems_names_them(tmp_path: Path) -> None:
    scenario = tmp_path / "broken.yaml"
    scenario.write_text("scenario: broken\njobs: [{id: a, every: zero}]\n", encoding="utf-8")
    status, _, err = cronlapse("import", CRONTAB, "--into", str(scenario))
    assert status == 1 and err.startswith(f"cronlapse import: {scenario}:2:")
