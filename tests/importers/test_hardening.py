"""Bad input to every importer: a ``file:line`` message naming what was expected, exit status 1
(2 for a bad option, a usage error), nothing written, and never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from import_helpers import cronlapse

from cronlapse.importers.crontab import parse_crontab
from cronlapse.importers.files import ImportProblems
from cronlapse.importers.kubernetes import parse_manifest
from cronlapse.importers.systemd import parse_timer
from engine.model.commands import PauseJob
from engine.scenario import load_scenario, parse_scenario

KINDS = {"crontab": "crontab", "k8s": "Kubernetes manifest", "systemd": "systemd timer"}

BAD = {
    "bad cron field": {
        "crontab": ("0 0 * 13 * /bin/x\n", ":1:7: month field '13' is invalid"),
        "k8s": (
            "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\n"
            "spec: {schedule: '0 0 * 13 *'}\n",
            ":4:18: spec.schedule: month field '13' is invalid",
        ),
        "systemd": ("[Timer]\nOnCalendar=*-13-01\n", ":2:14: OnCalendar=: month '13'"),
    },
    "unknown time zone": {
        "crontab": ("CRON_TZ=Europe/Atlantis\n0 0 * * * /bin/x\n", ":1:9: CRON_TZ: unknown"),
        "k8s": (
            "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\n"
            "spec: {schedule: '@daily', timeZone: Europe/Atlantis}\n",
            ":4:38: spec.timeZone: unknown time zone",
        ),
        "systemd": (
            "[Timer]\nOnCalendar=daily Europe/Atlantis\n",
            ":2:18: OnCalendar=: unknown time zone 'Europe/Atlantis'",
        ),
    },
}


def _import(tmp_path: Path, kind: str, content: bytes) -> tuple[int, str, str, Path]:
    source, output = tmp_path / f"input.{kind}", tmp_path / "out.yaml"
    source.write_bytes(content)
    status, out, err = cronlapse("import", kind, str(source), "-o", str(output))
    assert "Traceback" not in err and not output.exists()
    return status, out, err, source


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", BAD)
def test_a_bad_field_names_file_line_column_and_what_was_expected(
    tmp_path: Path, kind: str, case: str
) -> None:
    text, problem = BAD[case][kind]
    status, out, err, source = _import(tmp_path, kind, text.encode())
    assert (status, out) == (1, "")
    assert err.startswith(f"cronlapse import: {source}{problem}"), err


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file, not a {}"),
        (b"caf\xe9\n", "not UTF-8 text (byte 3)"),
        (b"# padding\n" * 100_001, "larger than 1,000,000 bytes; not a {}"),
    ],
)
def test_binary_and_huge_files_are_refused(
    tmp_path: Path, kind: str, content: bytes, problem: str
) -> None:
    status, _, err, source = _import(tmp_path, kind, content)
    assert status == 1
    assert err == f"cronlapse import: {source}: {problem.format(KINDS[kind])}\n"


@pytest.mark.parametrize("kind", KINDS)
def test_a_missing_file_or_a_directory_is_said_so(tmp_path: Path, kind: str) -> None:
    """A directory of crontabs is read as cron reads /etc/cron.d (test_crontab_rules.py)."""
    status, _, err = cronlapse("import", kind, str(tmp_path / "nope"), str(tmp_path))
    assert status == 1
    assert err.splitlines() == [
        f"cronlapse import: {tmp_path / 'nope'}: cannot read: No such file or directory",
        (
            f"cronlapse import: {tmp_path}: nothing to import: no crontab entry"
            if kind == "crontab"
            else f"cronlapse import: {tmp_path}: cannot read: Is a directory"
        ),
    ]


def test_an_unknown_kind_of_file_is_refused_with_the_kinds_there_are() -> None:
    status, out, err = cronlapse("import", "nomad", "jobs.hcl")
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        "cronlapse import: nomad: cannot read: No such file or directory "
        "(nor is it a kind: crontab, k8s, systemd)",
        "cronlapse import: jobs.hcl: cannot read: No such file or directory",
    ]


def test_an_unknown_kubernetes_kind_is_listed_not_imported(tmp_path: Path) -> None:
    source = tmp_path / "m.yaml"
    source.write_text(
        "kind: Widget\napiVersion: example.com/v1\nmetadata: {name: w}\n---\n"
        "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\nspec: {schedule: '@daily'}\n"
    )
    status, out, err = cronlapse("import", "k8s", str(source))
    assert status == 0 and '- {id: "a"' in out
    assert err == f"cronlapse import: not imported: {source}:1:1: Widget w: not a CronJob\n"


_WORDS = (
    *("mon", "Sat", "UTC", "Europe/Berlin", "Mon..Fri", "@reboot", "@daily", "CRON_TZ="),
    *("[Timer]\n", "[Service]\n", "OnCalendar=", "OnBootSec=", "OnUnitActiveSec="),
    *("RandomizedDelaySec=", "Persistent=", "kind: CronJob\n", "apiVersion: batch/v1\n"),
    *("metadata: {name: a}\n", "spec:\n  ", "schedule: ", "timeZone: ", "kind: List\n"),
    *("items:\n- ", "jobTemplate: {spec: ", "backoffLimit: "),
)
_PIECES = st.sampled_from([*"*/-,.~:0123456789 \n\t=[]#@{}'\"&|!\\LW", *_WORDS])


@pytest.mark.parametrize("parse", [parse_crontab, parse_manifest, parse_timer])
@given(text=st.lists(_PIECES, max_size=40).map("".join))
def test_any_text_is_read_or_refused_with_problems_never_a_crash(parse: object, text: str) -> None:
    try:
        parse(text)  # type: ignore[operator]
    except ImportProblems as problems:
        assert problems.problems and all(":" in str(problem) for problem in problems.problems)


_PAST_9999 = "tick 5259600 with 60-second ticks is past the year 9999"
_FAR = [
    (
        "crontab",
        "0 3 * * * /bin/x\n",
        ["--from", "9999-12-25T00:00:00"],
        "--days: 7 days from 9999-12-25T00:00:00 run past the year 9999: expected fewer days "
        "or an earlier --from",
        2,
    ),
    (
        "crontab",
        "0 3 * * * /bin/x\n",
        ["--from", "0001-01-01T00:00:00"],
        "--from: 0001-01-01T00:00:00 is out of range: expected a time from 0001-01-02",
        2,
    ),
    (
        "crontab",
        "CRON_TZ=Europe/Berlin\n0 3 * * * /bin/x\n",
        ["--from", "2026-03-29T02:30:00"],
        "--from: 2026-03-29T02:30:00 does not exist in Europe/Berlin",
        2,
    ),
    (
        "systemd",
        "[Timer]\nOnBootSec=10y\n",
        ["--from", "9995-01-01T00:00:00"],
        f"{{source}}:2: OnBootSec=10y: cannot be simulated: at: {_PAST_9999}",
        1,
    ),
    (
        "systemd",
        "[Timer]\nOnBootSec=" + "9" * 400 + "y\n",
        [],
        "{source}:2:11: OnBootSec=: too long: expected a time span of at most 1000 years",
        1,
    ),
    (
        "systemd",
        "[Timer]\nOnCalendar=daily\nUnit=a/b\n",
        [],
        "{source}:3:6: Unit=: expected a unit name such as backup.service, got 'a/b'",
        1,
    ),
]


@pytest.mark.parametrize(("kind", "text", "options", "problem", "status"), _FAR)
def test_an_import_the_scenario_could_not_run_is_refused_at_its_source(
    tmp_path: Path, kind: str, text: str, options: list[str], problem: str, status: int
) -> None:
    """What the importer reads can be valid where it came from and still not fit a scenario (a
    first run past the year 9999, a clock that starts in a skipped hour): the import names the
    file, line and option, where it wrote a scenario that did not load or ended in a traceback.
    An option's problem is a usage error (exit 2), a file's exits 1."""
    source, output = tmp_path / f"input.{kind}", tmp_path / "out.yaml"
    source.write_text(text)
    done, out, err = cronlapse("import", kind, str(source), "-o", str(output), *options)
    assert (done, out, output.exists()) == (status, "", False)
    assert err.startswith(f"cronlapse import: {problem.format(source=source)}"), err
    assert err.count("\n") == 1, err  # once, though the option is checked twice


_NEVER_FIRES = "never fires: day-of-month field '{day}' never occurs in month field '2'"
_NEVER = [
    (
        "crontab",
        "0 3 * * * /usr/bin/backup\n0 0 31 2 * /usr/bin/leap\n",
        "{source}:2: 0 0 31 2 * /usr/bin/leap: " + _NEVER_FIRES.format(day=31),
        ["backup"],
    ),
    (
        "k8s",
        "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: leap}\n"
        "spec: {schedule: '0 0 30 2 *', suspend: true}\n---\n"
        "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: held}\n"
        "spec: {schedule: '@hourly', suspend: true}\n",
        "{source}:1: CronJob leap: " + _NEVER_FIRES.format(day=30),
        ["held"],
    ),
    (
        "systemd",
        "[Timer]\nOnCalendar=*-02-30 00:00\nOnCalendar=daily\n",
        "{source}:2: OnCalendar=*-02-30 00:00: " + _NEVER_FIRES.format(day=30),
        ["input.systemd"],
    ),
]


@pytest.mark.parametrize(("kind", "text", "reason", "jobs"), _NEVER)
def test_a_schedule_that_never_fires_is_left_out_and_said(
    tmp_path: Path, kind: str, text: str, reason: str, jobs: list[str]
) -> None:
    """Cron, Kubernetes and systemd accept a February 30th and never run it: its job is not
    imported, as ``@reboot`` is not, and the rest of the fleet is (a suspended CronJob after it
    is still the one paused)."""
    source, output = tmp_path / f"input.{kind}", tmp_path / "out.yaml"
    source.write_text(text)
    status, out, err = cronlapse("import", kind, str(source), "-o", str(output))
    reason = reason.format(source=source)
    written = f"{len(jobs)} job" + ("" if len(jobs) == 1 else "s")
    assert (status, out) == (0, f"wrote {output}: {written}\n")
    assert err == f"cronlapse import: not imported: {reason}\n"
    written = output.read_text()
    assert f"# Not imported: {reason}\n" in written
    scenario = load_scenario(output)
    assert [job.job_id for job in scenario.jobs] == jobs
    paused = [c.command.job_id for c in scenario.commands if isinstance(c.command, PauseJob)]
    assert paused == (["held"] if kind == "k8s" else [])


_VALID_HEADS = {
    "crontab": "0 3 * * * /usr/bin/backup\n",
    "k8s": "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\nspec: {schedule: '@daily'}\n",
    "systemd": "[Timer]\nOnBootSec=5min\nOnCalendar=Mon *-*-* 03:00\n",
}
_STARTS = st.sampled_from(
    [
        "2026-01-05T00:00:00",
        "2026-03-29T02:30:00",
        "2026-10-25T02:30:00",
        "0001-01-02T00:00:00",
        "9999-12-25T00:00:00",
        "2026-01-05T00:00:00+14:00",
    ]
)


@settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    kind=st.sampled_from(sorted(KINDS)),
    head=st.booleans(),
    text=st.lists(_PIECES, max_size=40).map("".join),
    start=_STARTS,
    days=st.sampled_from([1, 7, 3660]),
    duration=st.sampled_from([1, 90, 10**6]),
)
def test_an_import_either_says_why_not_or_writes_a_scenario_that_loads(
    tmp_path: Path, kind: str, head: bool, text: str, start: str, days: int, duration: int
) -> None:
    """(``head`` starts the file with a valid one, so that many examples import.)"""
    source, output = tmp_path / f"input.{kind}", tmp_path / "out.yaml"
    source.write_text((_VALID_HEADS[kind] if head else "") + text)
    output.unlink(missing_ok=True)
    options = ["--from", start, "--days", str(days), "--duration", str(duration)]
    status, _, err = cronlapse("import", kind, str(source), "-o", str(output), *options)
    assert status in (0, 1, 2), err
    if status == 0:
        parse_scenario(output.read_text(), str(output))
    else:
        assert err.startswith("cronlapse import: ") and not output.exists(), err
