"""What holds for any fleet: a herd's jobs move only later, within the window and their hour;
the written fleet reads back as the fleet the proof played; the same fleet, the same advice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.advise import AdviceOptions, advise, read_fleet
from cronlapse.analyses.advise.findings import Kind
from cronlapse.analyses.advise.writer import scenario_text
from engine.scenario import parse_scenario

_JOB = st.tuples(
    st.integers(0, 59),  # minute
    st.sampled_from(["0", "3", "*"]),  # hour
    st.integers(1, 30),  # duration
    st.sampled_from(["", ", catch_up: latest", ", overlap: Forbid"]),
)


def _fleet_text(jobs: list[tuple[int, str, int, str]], workers: int) -> str:
    lines = [
        "scenario: drawn",
        'clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 720}',
        "workers: [" + ", ".join(f"w{n}" for n in range(1, workers + 1)) + "]",
        "jobs:",
    ]
    for index, (minute, hour, duration, extra) in enumerate(jobs):
        cron = f"{minute} {hour} * * *"
        lines.append(f'  - {{id: j{index:02d}, cron: "{cron}", duration: {duration}{extra}}}')
    return "\n".join(lines) + "\n"


@settings(max_examples=20)
@given(
    st.lists(_JOB, min_size=1, max_size=7),
    st.integers(1, 4),
    st.integers(1, 60),
)
def test_advice_moves_herds_within_the_window_and_writes_what_it_proved(
    jobs: list[tuple[int, str, int, str]], workers: int, window: int
) -> None:
    text = _fleet_text(jobs, workers)
    fleet = read_fleet("drawn.yaml", text)
    advice = advise(fleet, AdviceOptions(window=window))
    for step in advice.steps:
        if step.finding.kind is not Kind.HERD or step.proposal is None:
            continue
        for change in step.proposal.changes:
            rest = change.split(": cron ")[1]
            old, new = rest.split(" -> ")
            old_minute, new_minute = int(old.split()[0]), int(new.split()[0])
            assert old_minute < new_minute <= min(old_minute + window, 59)
            assert old.split()[1:] == new.split()[1:]
    assert advise(read_fleet("drawn.yaml", text), AdviceOptions(window=window)) == advice
    if advice.taken:
        written = parse_scenario(scenario_text(advice), "advised.yaml")
        assert written.jobs == advice.advised.scenario.jobs
        assert written.workers == advice.advised.scenario.workers
