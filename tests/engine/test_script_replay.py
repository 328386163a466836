"""One tick driver: a seed 001 script replayed by the history (the dashboard's path) prints, in
order, the event lines ``cronlapse script`` prints.

The dashboard does not parse the script a second time: it replays the commands the protocol
session recorded with their tick and phase. Before the tick driver, the dashboard put a ``FAIL``
given at the start of a tick after that tick's own events, and ``DONE a 2`` showed where the
protocol printed ``DONE a 4``; sorting both sides hid the difference, so nothing is sorted here.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from script_strategies import SeededChooser, dependency_graphs, random_script, scripts

from engine.facades.script import event_line, execute_script
from engine.play.history import History
from tui.model.script import script_run

pytestmark = pytest.mark.integration

EVENT_WORDS = {"START", "DONE", "FAILATTEMPT", "FAILED", "CANCEL"}


def replayed_events(lines: list[str], rewind_to: int | None = None) -> list[str]:
    """The event lines of the dashboard's history of ``lines`` at its last tick (optionally after
    going there, back to ``rewind_to`` and there again), up to where the protocol stopped."""
    run = script_run(lines)
    history = History(run.new_engine, run.timeline, run.until)
    history.seek(run.until)
    if rewind_to is not None:
        history.seek(min(rewind_to, run.until))
        history.seek(run.until)
    return [
        line
        for event in history.engine.log
        if event.tick < run.clock and (line := event_line(event)) is not None
    ]


def test_a_fail_at_the_start_of_a_tick_comes_before_that_tick_s_events() -> None:
    """The issue's example: the attempt ending at 2 fails, is retried at once, and ends at 4."""
    lines = ["INIT 1 0", "SUBMIT a 0 2 2 0", "TICK 2", "FAIL a 1", "TICK 10"]
    expected = ["START a 0", "FAILATTEMPT a 2 1", "START a 2", "DONE a 4"]
    assert [line for line in execute_script(lines).output if line != "OK a"] == expected
    assert replayed_events(lines) == expected


def test_commands_after_the_last_tick_are_shown_without_inventing_later_events() -> None:
    lines = ["INIT 1 0", "SUBMIT a 0 3 1 0", "TICK 1", "SUBMIT b 0 1 1 0"]
    run = script_run(lines)
    assert run.until == 1
    assert replayed_events(lines) == ["START a 0"]


def protocol_events(lines: list[str]) -> list[str]:
    return [line for line in execute_script(lines).output if line.split()[0] in EVENT_WORDS]


@settings(max_examples=200)
@given(scripts())
def test_history_replays_random_scripts_line_for_line(lines: list[str]) -> None:
    assert replayed_events(lines) == protocol_events(lines)


SEEDED_SCRIPTS = 2_000
CHUNKS = 20


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_history_replays_thousands_of_seeded_scripts_line_for_line(chunk: int) -> None:
    """The same property over 2,000 scripts from a seeded generator: hypothesis spends most of
    its time drawing, so it covers the bulk at a tenth of the cost (a failure names its seed)."""
    size = SEEDED_SCRIPTS // CHUNKS
    for seed in range(chunk * size, (chunk + 1) * size):
        lines = random_script(SeededChooser(seed))
        assert replayed_events(lines) == protocol_events(lines), f"seed {seed}: {lines}"


@settings(max_examples=200)
@given(dependency_graphs(), st.integers(0, 40))
def test_history_replays_cascades_line_for_line_after_a_rewind(
    lines: list[str], rewind_to: int
) -> None:
    assert replayed_events(lines, rewind_to) == protocol_events(lines)
