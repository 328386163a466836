"""A job's ``source:`` (where an imported job came from, for the exporters): text the scenario
keeps by job id and the engine never reads, so a job with one runs as the job without it."""

from __future__ import annotations

import pytest

from engine.scenario import ScenarioInvalid, ScenarioRunner, parse_scenario

FLEET = """\
scenario: sources
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 1440}
workers: [w1]
jobs:
  - {id: a, cron: "0 * * * *", duration: 5%s}
"""
SOURCE = ', source: {format: crontab, line: 7, text: "# nightly\\n0 * * * * /bin/a"}'


def test_the_source_is_kept_by_job_id_and_the_run_is_the_same() -> None:
    with_source = parse_scenario(FLEET % SOURCE, "with.yaml")
    without = parse_scenario(FLEET % "", "without.yaml")
    assert with_source.sources == {
        "a": {"format": "crontab", "line": "7", "text": "# nightly\n0 * * * * /bin/a"}
    }
    assert without.sources == {}
    assert with_source.jobs == without.jobs
    runs = [ScenarioRunner(scenario) for scenario in (with_source, without)]
    for runner in runs:
        runner.run()
    assert list(runs[0].engine.log) == list(runs[1].engine.log)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            ", source: [a, b]",
            "with.yaml:5:53: jobs[0].source: expected a mapping of names to text, got a list",
        ),
        (", source: {text: [a]}", "with.yaml:5:60: jobs[0].source.text: expected text, got a list"),
    ],
)
def test_a_source_that_is_not_names_to_text_is_refused_at_its_place(
    source: str, message: str
) -> None:
    with pytest.raises(ScenarioInvalid) as refused:
        parse_scenario(FLEET % source, "with.yaml")
    assert [str(problem) for problem in refused.value.problems] == [message]
