"""An outage that begins at the tick a run is due, in the tick the job is defined, misses that
run as one beginning a tick later does not: either way, ``catch_up: latest`` starts only the
latest missed run when the scheduler is back (issue 37's repro)."""

from __future__ import annotations

import pytest
from scenario_helpers import scenario

from engine.model import events as ev
from engine.scenario import ScenarioRunner

TEXT = """\
scenario: boundary
clock: {{epoch: "2026-01-05T10:00:00", timezone: UTC, tick: 60, until: 400}}
workers: [w1, w2]
scheduler_down: [{{from: {start}, to: 301}}]
jobs:
  - {{id: hourly, cron: "0 * * * *", duration: 1, catch_up: latest}}
"""


def starts(start: int) -> list[tuple[int, int]]:
    runner = ScenarioRunner(scenario(TEXT.format(start=start)))
    runner.run()
    return [
        (event.tick, event.scheduled)
        for event in runner.engine.log
        if isinstance(event, ev.AttemptStarted)
    ]


@pytest.mark.parametrize("start", [0, 1])
def test_the_resume_starts_only_the_latest_missed_run(start: int) -> None:
    at_resume = [scheduled for tick, scheduled in starts(start) if tick == 301]
    assert at_resume == [300]


def test_a_run_due_as_the_outage_begins_is_missed_and_one_due_before_it_ran() -> None:
    assert starts(0)[0] == (301, 300)
    assert starts(1)[0] == (0, 0)
