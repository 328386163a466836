"""Every front end opens a crontab, a manifest or a timer by recognising it, as it tells a seed
001 script from a scenario: by name, then by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.sources import SourceKind, recognise
from engine.model.problems import Problem
from tests.conftest import Cli
from tui.model.session import LoadFailed, load_session

CORPUS = Path(__file__).parents[1] / "importers" / "corpus"
SCENARIOS = Path(__file__).parents[2] / "scenarios"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (CORPUS / "user.crontab", SourceKind.CRONTAB),
        (CORPUS / "etc" / "crontab", SourceKind.CRONTAB),
        (CORPUS / "etc" / "cron.d" / "certbot", SourceKind.CRONTAB),
        (CORPUS / "k8s" / "batch.yaml", SourceKind.KUBERNETES),
        (CORPUS / "systemd" / "backup.timer", SourceKind.SYSTEMD),
        (CORPUS / "systemd" / "backup.service", SourceKind.SCENARIO),
        (SCENARIOS / "demo.yaml", SourceKind.SCENARIO),
        (SCENARIOS / "seed-001-aging-cascade.txt", SourceKind.SCRIPT),
        (CORPUS / "no-such-file", SourceKind.SCENARIO),
    ],
)
def test_files_are_recognised_by_name_and_content(path: Path, kind: SourceKind) -> None:
    """A file that is none of the others (or cannot be read) is left to the scenario loader,
    which says what is wrong with it."""
    assert recognise(str(path)) is kind


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ("# m h dom mon dow command\n*/5 * * * * /usr/bin/poll\n", SourceKind.CRONTAB),
        ("MAILTO=ops@example.com\n0 3 * * * /bin/backup\n", SourceKind.CRONTAB),
        ("@daily /usr/local/bin/rotate\n", SourceKind.CRONTAB),
        ("[Unit]\nDescription=x\n\n[Timer]\nOnCalendar=daily\n", SourceKind.SYSTEMD),
        ("scenario: not a crontab\njobs: []\n", SourceKind.SCENARIO),
        ("hello world\n", SourceKind.SCENARIO),
    ],
)
def test_a_file_without_a_telling_name_is_recognised_by_its_first_lines(
    tmp_path: Path, content: str, kind: SourceKind
) -> None:
    path = tmp_path / "schedule"
    path.write_text(content)
    assert recognise(str(path)) is kind


def test_a_yaml_file_is_a_manifest_only_with_top_level_kubernetes_keys(tmp_path: Path) -> None:
    manifest, scenario = tmp_path / "jobs.yml", tmp_path / "fleet.yaml"
    manifest.write_text("apiVersion: batch/v1\nkind: CronJob\n")
    scenario.write_text("scenario: x\npolicy:\n  backoff:\n    kind: fixed\n    base: 5\n")
    assert (recognise(str(manifest)), recognise(str(scenario))) == (
        SourceKind.KUBERNETES,
        SourceKind.SCENARIO,
    )


def test_a_txt_file_is_a_script_by_its_name_unless_it_is_in_cron_d(tmp_path: Path) -> None:
    (tmp_path / "cron.d").mkdir()
    assert recognise(str(tmp_path / "missing.TXT")) is SourceKind.SCRIPT
    assert recognise(str(tmp_path / "cron.d" / "jobs.txt")) is SourceKind.CRONTAB


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "user.crontab",
        CORPUS / "k8s" / "batch.yaml",
        CORPUS / "systemd" / "weekday-report.timer",
    ],
)
def test_check_and_run_open_a_recognised_file_as_its_imported_scenario(
    cli: Cli, path: Path
) -> None:
    assert cli("check", str(path))[:2] == (0, "1 file, 0 expectations, 0 mismatches\n")
    status, out, _ = cli("run", str(path), "--until", "1440")
    assert status == 0 and "AttemptStarted" in out


def test_check_reports_a_recognised_files_problems_at_their_place(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "broken.timer"
    path.write_text("[Timer]\nOnCalendar=Mon 25:00\n")
    status, _, err = cli("check", str(path))
    assert status == 2
    assert err == f"{path}:2:16: OnCalendar=: hour '25': expected values from 0 to 23\n"


def test_the_dashboard_loads_a_timer_and_points_at_a_bad_line() -> None:
    session = load_session(CORPUS / "systemd" / "tmp-cleanup.timer")
    assert session.kind == "scenario" and "tmp-cleanup" in session.engine.query.jobs()
    assert session.name == "systemd tmp-cleanup.timer"


def test_the_dashboard_shows_an_imports_problems_with_their_place(tmp_path: Path) -> None:
    path = tmp_path / "team.crontab"
    path.write_text("0 0 * * *\n")
    with pytest.raises(LoadFailed) as caught:
        load_session(path)
    assert caught.value.problems == [
        Problem(str(path), 1, 10, "", "expected 5 time fields then a command")
    ]
