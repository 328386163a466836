"""The written scenario reads back exactly, whatever text the imported files held."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cronlapse.importers.scenario_text import Horizon, ImportedJob, scenario_text
from engine.scenario import parse_scenario

HORIZON = Horizon("2026-01-05T00:00:00", "UTC", 1)
ANY_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=20)
"""Any characters but lone surrogates (a file read as UTF-8 holds none)."""


def _scenario(title: str, comment: str, payload: str) -> str:
    job = ImportedJob("job", {"cron": "0 3 * * *", "payload": payload}, (comment,), "crontab:1")
    return scenario_text(title, [comment], HORIZON, 1, [job])


def test_control_characters_and_line_breaks_are_escaped_not_written_raw() -> None:
    text = _scenario("t\x7f", "echo \x01 \u2028 jobs: []", "a\x85b\u2029c\x9f")
    assert "\x01" not in text and "\u2028" not in text and "\x85" not in text
    scenario = parse_scenario(text, "imported.yaml")
    assert scenario.name == "t\x7f"
    assert [job.payload for job in scenario.jobs] == ["a\x85b\u2029c\x9f"]


@given(title=ANY_TEXT.filter(str.strip), comment=ANY_TEXT, payload=ANY_TEXT)
def test_any_text_in_a_title_a_comment_or_a_payload_reads_back(
    title: str, comment: str, payload: str
) -> None:
    """(A title is never blank: the importers name the scenario after the files.)"""
    scenario = parse_scenario(_scenario(title, comment, payload), "imported.yaml")
    assert scenario.name == title
    assert [(job.job_id, job.payload) for job in scenario.jobs] == [("job", payload)]
