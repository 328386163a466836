"""One way in: ``open_source`` tells what a path (or ``-``) is and opens it, or says every
problem it has as the one Problem type."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from cronlapse.sources import STDIN_NAME, SourceInvalid, SourceKind, open_source
from engine.model.problems import Problem

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "importers" / "corpus"
SCENARIO = "scenario: two jobs\nworkers: [w1]\njobs:\n  - {id: a, at: 5}\n  - {id: b, every: 10}\n"
SCRIPT = "INIT 2 3\nSUBMIT A 1 2 1 0\nTICK 5\n"


def refused(path: str | Path, **options: bool) -> list[Problem]:
    with pytest.raises(SourceInvalid) as caught:
        open_source(path, **options)
    return caught.value.problems


def test_a_scenario_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text(SCENARIO)
    source = open_source(str(path))
    assert (source.kind, source.source, source.name) == (SourceKind.SCENARIO, str(path), "two jobs")
    assert source.scenario is not None and source.script is None
    assert [job.job_id for job in source.scenario.jobs] == ["a", "b"]
    assert source.text == SCENARIO and source.notices == ()


def test_a_scenarios_parsed_document_is_kept_but_not_part_of_what_it_is(tmp_path: Path) -> None:
    """A sweep edits the tree the opener parsed (``Source.document``); two opens of one file are
    still equal sources, and a source's repr does not print a whole parsed tree."""
    path = tmp_path / "fleet.yaml"
    path.write_text(SCENARIO)
    first, second = open_source(str(path)), open_source(str(path))
    assert first.document is not None and first.document is not second.document
    assert first == second
    assert "document" not in repr(first)


def test_a_script_is_played(tmp_path: Path) -> None:
    path = tmp_path / "seed.txt"
    path.write_text(SCRIPT)
    source = open_source(path)
    assert (source.kind, source.name, source.scenario) == (SourceKind.SCRIPT, "seed", None)
    assert source.script is not None
    assert source.script.output == ("OK A", "START A 0", "DONE A 2")


def test_a_scripts_rejected_lines_are_problems_at_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("INIT 2 3\nSUBMIT A 1 x 1 0\nJUMP\n")
    assert refused(path) == [
        Problem(str(path), 2, 1, "", "duration must be an integer, got 'x'"),
        Problem(str(path), 3, 1, "", "unknown command 'JUMP'"),
    ]


def test_a_crontab_is_imported_and_says_what_it_left_out() -> None:
    source = open_source(CORPUS / "user.crontab")
    assert source.kind is SourceKind.CRONTAB and source.scenario is not None
    assert source.text.startswith("# Imported by `cronlapse import crontab`")
    assert any("@reboot runs when cron starts" in notice for notice in source.notices)
    assert all(notice.startswith("not imported: ") for notice in source.notices)


def test_a_kubernetes_manifest_is_imported() -> None:
    source = open_source(CORPUS / "k8s" / "batch.yaml")
    assert source.kind is SourceKind.KUBERNETES and source.scenario is not None
    assert source.scenario.jobs


def test_a_systemd_timer_is_imported() -> None:
    source = open_source(CORPUS / "systemd" / "tmp-cleanup.timer")
    assert source.kind is SourceKind.SYSTEMD and source.name == "systemd tmp-cleanup.timer"


def test_an_importers_problem_keeps_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "team.crontab"
    path.write_text("0 0 * * *\n")
    assert refused(path) == [Problem(str(path), 1, 10, "", "expected 5 time fields then a command")]


def test_dash_is_a_scenario_on_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SCENARIO.encode())))
    source = open_source("-")
    assert (source.kind, source.source) == (SourceKind.SCENARIO, STDIN_NAME)
    assert source.scenario is not None and source.scenario.source == STDIN_NAME


def test_dash_is_a_file_for_a_front_end_that_never_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The dashboard reloads its file: it opens ``-`` as the file of that name."""
    monkeypatch.setattr(sys, "stdin", None)
    monkeypatch.chdir(tmp_path)
    assert refused("-", stdin=False) == [
        Problem("-", None, None, "", "cannot read: No such file or directory")
    ]


@pytest.mark.parametrize("name", ["missing.yaml", "missing.txt", "missing.timer", "missing"])
def test_a_file_that_cannot_be_read_is_one_problem_of_the_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    assert refused(path) == [
        Problem(str(path), None, None, "", "cannot read: No such file or directory")
    ]


def test_a_directory_cannot_be_read(tmp_path: Path) -> None:
    assert refused(tmp_path) == [
        Problem(str(tmp_path), None, None, "", "cannot read: Is a directory")
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("empty.yaml", "the file is empty: expected a mapping with 'scenario:'"),
        ("empty.txt", "the script is empty: its first command must be INIT"),
    ],
)
def test_an_empty_file_says_what_it_should_start_with(
    tmp_path: Path, name: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text("")
    assert refused(path) == [Problem(str(path), 1, 1, "", message)]


def test_an_invalid_scenario_lists_every_problem_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    jobs = "  - {id: a, every: often}\n  - {id: b, at: 5, colour: red}\n"
    path.write_text(f"scenario: x\nworkers: [w1]\njobs:\n{jobs}")
    problems = refused(path)
    assert [(p.line, p.path) for p in problems] == [(4, "jobs[0].every"), (5, "jobs[1].colour")]
    with pytest.raises(SourceInvalid) as caught:
        open_source(path)
    assert caught.value.source == str(path)
