"""Keyframes along a recording (engine/rewind/frames.py): what a restore costs, in counts.

The exactness of every restore (each state equals a fresh run) is tested by the history's walks
(test_history.py) and the replay property (test_keyframe_replay.py); here, the complexity: a
restore sets the records that changed between the two states, not every record, and recording
keeps nothing between keyframes.
"""

from __future__ import annotations

import pytest

from engine.core import Engine
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.play.history import History
from engine.play.ticks import at_ticks
from engine.rewind import frames
from engine.schedules.kinds import Every, Once

JOBS = 10
IDLE_JOBS = 500
TICKS = 3_000


def busy_history(span_cost: int) -> History:
    """Ten jobs falling due every tick on three workers, and 500 that ran once at the start:
    every tick changes records, most records never change again."""
    commands = [(0, RegisterWorker(f"w{index}")) for index in range(3)]
    commands += [(0, ScheduleJob(JobSpec(f"j{index}", Every(0, 1)))) for index in range(JOBS)]
    commands += [(0, ScheduleJob(JobSpec(f"once{i}", Once(0)))) for i in range(IDLE_JOBS)]
    return History(Engine, at_ticks(commands), until=TICKS, span_cost=span_cost)


@pytest.fixture
def looked_up(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many records each restore looked up the values of."""
    counts: list[int] = []
    restore = frames.Frames.restore
    at = frames._Versions.at

    def counting_restore(self: frames.Frames, index: int) -> None:
        counts.append(0)
        restore(self, index)

    def counting_at(self: frames._Versions, index: int) -> tuple | None:
        counts[-1] += 1
        return at(self, index)

    monkeypatch.setattr(frames.Frames, "restore", counting_restore)
    monkeypatch.setattr(frames._Versions, "at", counting_at)
    return counts


def test_a_step_back_sets_the_records_changed_since_the_keyframe_only(looked_up) -> None:
    history = busy_history(span_cost=100)
    history.seek(TICKS)
    history.seek(TICKS - 60)  # the end is a keyframe: back to the one before, 100 ticks back
    history.step_back()
    changed_per_tick = JOBS + 3 + 3  # the jobs, the workers, the runs started and ended
    assert 0 < looked_up[-1] <= 110 * changed_per_tick
    assert looked_up[-1] < IDLE_JOBS


def test_a_jump_across_the_run_sets_each_record_changed_once(looked_up) -> None:
    history = busy_history(span_cost=100)
    history.seek(TICKS)
    engine = history.engine
    records = len(engine.query.jobs()) + len(engine.query.workers()) + len(engine.query.records())
    changes = len(engine.log)  # each event changes one record or more
    history.seek(20)
    assert looked_up[-1] <= records < changes
    history.seek(TICKS)
    assert looked_up[-1] <= records


def test_recording_keeps_a_keyframe_per_span_and_no_undo_information() -> None:
    span_cost = 50
    history = busy_history(span_cost)
    history.seek(TICKS)
    cost = TICKS + len(history.engine.log)  # ticks played and events
    assert cost // (2 * span_cost) < len(history.keyframes) <= cost // span_cost + 2
    journal = history.engine.journal
    assert journal.generations == [0] and journal.saves == [[]] and journal.undos == [[]]


def test_the_end_of_a_bounded_run_is_a_keyframe_so_going_back_there_replays_nothing() -> None:
    history = busy_history(span_cost=10_000)
    history.seek(TICKS)
    assert history.keyframes[-1] == TICKS
    count = len(history.keyframes)
    history.step_back()
    assert len(history.keyframes) == count
    history.seek(TICKS)
    assert history.engine.now == TICKS and len(history.keyframes) == count
    assert history._frames.base == count - 1
