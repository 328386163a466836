"""``cronlapse import crontab``: real crontab files become scenarios that fire as cron would."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import cronlapse

from cronlapse.importers.crontab import parse_crontab, read_crontab
from cronlapse.importers.files import ImportProblems
from engine.model import events as ev
from engine.scenario import ScenarioRunner, load_scenario, parse_scenario

CORPUS = Path(__file__).parent / "corpus"
USER = CORPUS / "user.crontab"
SYSTEM = CORPUS / "etc" / "crontab"
CRON_D = CORPUS / "etc" / "cron.d" / "certbot"


def test_a_user_crontab_keeps_its_schedules_zone_commands_and_comments() -> None:
    crontab = read_crontab(str(USER))
    assert not crontab.system
    assert [(e.line, e.cron, e.timezone, e.command) for e in crontab.entries] == [
        (7, "30 2 * * *", "Europe/Berlin", "/opt/etl/bin/load-warehouse --since yesterday"),
        (10, "*/15 8-18 * * mon-fri", "Europe/Berlin", "/opt/etl/bin/refresh-dashboards"),
        (12, "0 0 * * 0", "Europe/Berlin", "/opt/etl/bin/vacuum-db"),
    ]
    assert crontab.entries[0].description == "Nightly warehouse load, after the exports land"
    assert crontab.entries[2].description is None
    assert crontab.environment["MAILTO"] == "data-oncall@example.com"
    assert crontab.skipped == [f"{USER}:13: @reboot runs when cron starts; no schedule models it"]


def test_system_crontabs_have_a_user_field() -> None:
    system = read_crontab(str(SYSTEM))
    assert system.system and {e.user for e in system.entries} == {"root"}
    assert system.entries[0].command == "cd / && run-parts --report /etc/cron.hourly"
    certbot = read_crontab(str(CRON_D))
    assert certbot.system and certbot.entries[0].cron == "0 */12 * * *"
    assert certbot.entries[0].command.endswith("certbot -q renew")


def test_the_imported_scenario_fires_when_cron_would(tmp_path: Path) -> None:
    output = tmp_path / "team.yaml"
    status, out, err = cronlapse("import", "crontab", str(USER), "-o", str(output))
    assert (status, out) == (0, f"wrote {output}: 3 jobs\n")
    assert "@reboot" in err
    scenario = load_scenario(str(output))
    runner = ScenarioRunner(scenario, until=1440 * 7 - 1)  # Monday 5 to Sunday 11 January 2026
    assert runner.run() == []
    starts: dict[str, list[int]] = {}
    for event in runner.engine.log:
        if isinstance(event, ev.AttemptStarted):
            starts.setdefault(event.job_id, []).append(event.tick)
    # 02:30 in Berlin each day; a tick is a minute from Monday 00:00 Berlin.
    assert starts["load-warehouse"] == [150 + 1440 * day for day in range(7)]
    # Every 15 minutes from 08:00 to 18:45 on the five weekdays: 44 a day.
    assert len(starts["refresh-dashboards"]) == 44 * 5
    assert starts["refresh-dashboards"][:2] == [480, 495]
    assert starts["vacuum-db"] == [1440 * 6]  # @weekly: Sunday 00:00


def test_the_output_names_where_each_job_came_from() -> None:
    status, out, _ = cronlapse("import", "crontab", str(SYSTEM), str(CRON_D))
    assert status == 0
    scenario = parse_scenario(out)
    assert [definition.job_id for definition in scenario.jobs] == [
        "run-parts-cron.hourly",
        "run-parts-cron.daily",
        "run-parts-cron.weekly",
        "run-parts-cron.monthly",
        "certbot",
    ]
    assert f"# {SYSTEM}:13: 17 *\t* * *\troot\tcd / && run-parts" in out
    assert out.count("# runs as root") == 5


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("61 * * * * /bin/x\n", "f:1:1: minute field '61' is invalid"),
        ("5 * * *\n", "f:1:8: expected 5 time fields then a command"),
        ("0 0 * * fryday /bin/x\n", "f:1:9: day-of-week field 'fryday' is invalid"),
        ("0 0 0 * * /bin/x\n", "f:1:5: day-of-month field '0' is invalid"),
        ("@fortnightly /bin/x\n", "f:1:1: unknown nickname '@fortnightly'"),
        ("CRON_TZ=Mars/Olympus\n0 0 * * * /bin/x\n", "f:1:9: CRON_TZ: unknown time zone"),
    ],
)
def test_a_bad_line_names_its_place_and_what_was_expected(text: str, problem: str) -> None:
    with pytest.raises(ImportProblems) as caught:
        parse_crontab(text, "f")
    assert str(caught.value.problems[0]).startswith(problem)


def test_a_system_line_without_a_command_is_refused() -> None:
    with pytest.raises(ImportProblems, match=r"f:1:.*then the user and the command"):
        parse_crontab("0 0 * * * root\n", "f", system=True)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "a binary file, not a crontab"),
        (b"0 0 * * * caf\xe9\n", "not UTF-8 text"),
        (b"#" * 1_000_001, "larger than 1,000,000 bytes"),
    ],
)
def test_files_that_are_no_crontab_are_refused_and_nothing_is_written(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    source, output = tmp_path / "crontab", tmp_path / "out.yaml"
    source.write_bytes(content)
    status, out, err = cronlapse("import", "crontab", str(source), "-o", str(output))
    assert status == 1 and out == "" and problem in err
    assert "Traceback" not in err and not output.exists()


def test_every_problem_of_every_file_is_reported_at_once(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("61 * * * * x\n0 25 * * * y\n", encoding="utf-8")
    second.write_text("* * * * *\n", encoding="utf-8")
    status, _, err = cronlapse("import", "crontab", str(first), str(second))
    assert status == 1
    assert [line.split(": ")[1] for line in err.splitlines()] == [
        f"{first}:1:1",
        f"{first}:2:3",
        f"{second}:1:10",
    ]
