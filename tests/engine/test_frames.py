"""Keyframes along a recording (engine/rewind/frames.py): what a restore costs, in counts.

The exactness of every restore (each state equals a fresh run) is tested by the history's walks
(test_history.py) and the replay property (test_keyframe_replay.py); here, the complexity: a
restore sets the records that changed between the two states, not every record, and recording
keeps nothing between keyframes.
"""

from __future__ import annotations

import heapq
import itertools
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Engine
from engine.model.commands import PauseJob, RegisterWorker, Result, ScheduleJob
from engine.model.records import Job, JobSpec, Occurrence, Worker
from engine.play.history import History
from engine.play.ticks import TickDriver, TimedCommand, at_ticks
from engine.rewind import deltas, frames
from engine.rewind.heap import Heap, HeapChanges, UnloggedWrite
from engine.schedules.kinds import Every, Once
from tests.engine.state_fingerprint import state_fingerprint

JOBS = 10
IDLE_JOBS = 500
TICKS = 3_000


def busy_history(span_cost: int, archive: bool = False) -> History:
    """Ten jobs falling due every tick on three workers, and 500 that ran once at the start:
    every tick changes records, most records never change again (an ``archive``-ing engine
    archives a run a tick)."""
    commands = [(0, RegisterWorker(f"w{index}")) for index in range(3)]
    commands += [(0, ScheduleJob(JobSpec(f"j{index}", Every(0, 1)))) for index in range(JOBS)]
    commands += [(0, ScheduleJob(JobSpec(f"once{i}", Once(0)))) for i in range(IDLE_JOBS)]
    return History(
        lambda: Engine(archive=archive), at_ticks(commands), until=TICKS, span_cost=span_cost
    )


@pytest.fixture
def looked_up(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many records each restore set the values of."""
    counts: list[int] = []
    restore = frames.Frames.restore

    def counting_restore(self: frames.Frames, index: int) -> None:
        counts.append(0)
        restore(self, index)

    for record_class in (Job, Worker, Occurrence):
        set_values = record_class.restore

        def counting_set(
            record: object, saved: tuple, held: tuple | None = None, set_values=set_values
        ) -> None:
            counts[-1] += 1
            set_values(record, saved, held)

        monkeypatch.setattr(record_class, "restore", counting_set)
    monkeypatch.setattr(frames.Frames, "restore", counting_restore)
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


def test_recording_keeps_a_keyframe_per_span() -> None:
    span_cost = 50
    history = busy_history(span_cost)
    history.seek(TICKS)
    cost = TICKS + len(history.engine.log)  # ticks played and events
    assert cost // (2 * span_cost) < len(history.keyframes) <= cost // span_cost + 2


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


@pytest.fixture
def ticks_played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ticks every history played (replays included), in order: those it ended and those
    it gave commands for (each once in a row)."""
    played: list[int] = []
    apply, finish = TickDriver.apply, TickDriver.finish

    def counting_apply(self: TickDriver, timed: TimedCommand) -> Result:
        if not played or played[-1] != timed.tick:
            played.append(timed.tick)
        return apply(self, timed)

    def counting_finish(self: TickDriver, tick: int) -> None:
        if not played or played[-1] != tick:
            played.append(tick)
        finish(self, tick)

    monkeypatch.setattr(TickDriver, "apply", counting_apply)
    monkeypatch.setattr(TickDriver, "finish", counting_finish)
    return played


def test_a_jump_forward_across_an_archived_stretch_re_extends_the_archive(ticks_played) -> None:
    """Going back truncates the archive; going forward again puts the runs it held back rather
    than replaying up to the keyframe ahead (and taking every keyframe on the way again)."""
    history = busy_history(span_cost=100, archive=True)
    history.seek(TICKS)
    archived = len(history.engine.query.records())
    keyframes = list(history.keyframes)
    history.seek(20)
    del ticks_played[:]
    history.seek(TICKS)
    assert ticks_played == [] and list(history.keyframes) == keyframes
    assert len(history.engine.query.records()) == archived
    history.seek(1500)  # a restore forward from tick 20's keyframe, then a short replay
    history.seek(TICKS - 50)
    assert len(ticks_played) <= 2 * 100


ARCHIVING_COMMANDS = at_ticks(
    [(0, RegisterWorker("w1")), (0, RegisterWorker("w2"))]
    + [(0, ScheduleJob(JobSpec(f"job{i}", Every(i, 3 + i), max_attempts=2))) for i in range(4)]
)
ARCHIVING_UNTIL = 120
_FRESH: dict[int, dict] = {}


def archiving_history(span_cost: int) -> History:
    """Four jobs on two workers whose simulated runs fail and retry, archived as they end."""
    return History(
        lambda: Engine(seed=5, archive=True),
        ARCHIVING_COMMANDS,
        until=ARCHIVING_UNTIL,
        span_cost=span_cost,
    )


def fresh_state(tick: int) -> dict:
    if tick not in _FRESH:
        history = archiving_history(span_cost=10**9)
        history.seek(tick)
        _FRESH[tick] = state_fingerprint(history.engine)
    return _FRESH[tick]


@settings(max_examples=40, deadline=None)
@given(
    span_cost=st.integers(5, 40),
    seeks=st.lists(st.integers(0, ARCHIVING_UNTIL), min_size=1, max_size=6),
)
def test_a_rewind_across_an_archived_stretch_and_back_restores_it_exactly(span_cost, seeks):
    """Recorded to the end, then back and forth in any order: the archive is truncated going
    back and re-extended going forward past keyframes, and every state is a fresh run's."""
    history = archiving_history(span_cost)
    history.seek(ARCHIVING_UNTIL)
    assert len(history.engine._store.archive) > 40  # type: ignore[arg-type]
    for tick in [*seeks, ARCHIVING_UNTIL]:
        history.seek(tick)
        assert state_fingerprint(history.engine) == fresh_state(tick), tick


def test_a_command_while_rewound_forgets_the_archived_rows_of_the_future_it_replaces() -> None:
    """Rows truncated before a command are another future's: going forward after it must not
    put them back (pausing jobs at tick 20 archives fewer runs after it)."""
    history = archiving_history(span_cost=10)
    history.seek(ARCHIVING_UNTIL)
    history.seek(20)
    for index in range(3):
        assert history.apply(PauseJob(f"job{index}")).accepted
    history.seek(ARCHIVING_UNTIL)
    history.seek(30)
    history.seek(ARCHIVING_UNTIL)
    fresh_run = History(
        lambda: Engine(seed=5, archive=True),
        ARCHIVING_COMMANDS,
        until=ARCHIVING_UNTIL,
        user=list(history.user_commands),
    )
    fresh_run.seek(ARCHIVING_UNTIL)
    assert state_fingerprint(history.engine) == state_fingerprint(fresh_run.engine)


def test_a_keyframe_saves_the_live_runs_new_or_changed_since_the_last_only(monkeypatch) -> None:
    """200 long runs stay live and unchanged while ten jobs run every tick beside them: a
    keyframe of an archiving engine keeps which runs are live, and saves only those that are
    new or changed (not the 200 again each time)."""
    saves: list[int] = []
    save = Occurrence.save

    def counting_save(self: Occurrence, before: tuple | None = None) -> tuple:
        saves.append(1)
        return save(self, before)

    commands = [(0, RegisterWorker(f"w{index}")) for index in range(203)]
    commands += [
        (0, ScheduleJob(JobSpec(f"long{i}", Once(0), duration=10_000))) for i in range(200)
    ]
    commands += [(0, ScheduleJob(JobSpec(f"j{index}", Every(1, 1)))) for index in range(3)]
    history = History(lambda: Engine(archive=True), at_ticks(commands), until=600, span_cost=50)
    history.seek(10)
    monkeypatch.setattr(Occurrence, "save", counting_save)
    keyframes = len(history.keyframes)
    history.seek(600)
    taken = len(history.keyframes) - keyframes
    assert taken >= 10
    assert len(saves) <= taken * 2 * 50  # each keyframe: the runs new in its span, a few a tick
    assert len(saves) < taken * 200


entries = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=3).map(tuple)
copies = st.tuples(st.lists(entries, max_size=80).map(tuple), st.integers(0, 9), entries)
"""A container's copy: a heap's items (entries, long enough to be kept by position), a counter
and a short tuple."""


@settings(max_examples=60)
@given(
    before=copies,
    changes=st.lists(st.tuples(st.integers(0, 79), entries)),
    cut=st.integers(0, 80),
    last=entries,
)
def test_a_containers_delta_rebuilds_its_copy_with_the_very_objects(
    before, changes, cut, last
) -> None:
    """A keyframe keeps a container's copy as a delta from the one before: rebuilt, it is equal
    and holds the same objects (a queue tests its entries by identity)."""
    items = list(before[0][:cut])
    for position, entry in changes:
        if position < len(items):
            items[position] = entry
        else:
            items.append(entry)
    after = (tuple(items), before[1] + 1, last)
    rebuilt = deltas.apply(before, deltas.delta(before, after))
    assert rebuilt == after
    assert all(map(operator.is_, rebuilt[0], after[0])) and rebuilt[2] is after[2]


def test_a_large_copy_is_kept_by_positions_while_at_most_half_of_them_change() -> None:
    """A delta keeps a large tuple by the positions that changed (those past the copy
    before's end included) while they are at most half of it, and whole past that."""
    before = tuple(object() for _ in range(100))
    new = tuple(object() for _ in range(60))
    for after, whole in (
        (before[:50] + new[:50], False),
        (before[:49] + new[:51], True),
        (before[:40] + new[:10] + before[50:90], False),
        (before[:80], False),
        (before + new[:50], False),
        (before[:60] + new[:60], False),
        (before[:59] + new[:60], True),
        (before + new + new, True),
    ):
        change = deltas.delta(before, after)
        assert (change is after) is whole
        if not whole:
            assert isinstance(change, deltas.Positions)
            assert deltas.apply(before, change) == after


def test_a_large_copy_whose_positions_all_shift_is_kept_whole_after_a_sample_of_them(
    monkeypatch,
) -> None:
    """A copy of a dictionary's keys in their order (a state's keys in the occurrence index)
    shifts every position after the first key removed: a delta keeps it whole once a sample of
    its positions says most changed, without comparing half of them one by one."""
    compared: list[int] = []

    def counting_is_not(first: object, second: object) -> bool:
        compared.append(1)
        return first is not second

    monkeypatch.setattr(deltas, "is_not", counting_is_not)
    keys = {object(): None for _ in range(1_000)}
    before = tuple(keys)
    del keys[before[10]]
    keys[object()] = None
    after = tuple(keys)
    assert deltas.delta(before, after) is after
    assert len(compared) <= deltas.SAMPLE + 1


def test_a_command_after_the_last_keyframe_forgets_the_archived_rows_it_replaces() -> None:
    """An open-ended run has no keyframe at its end: a command issued after the last one drops
    no keyframe, yet the rows a rewind hid there are another future's. Going back and forth
    across the keyframes recorded after it gives a fresh run's states."""
    history = History(lambda: Engine(seed=5, archive=True), ARCHIVING_COMMANDS, span_cost=40)
    history.seek(ARCHIVING_UNTIL)
    last = history.keyframes[-1]
    assert 0 <= last < ARCHIVING_UNTIL - 2
    history.seek(last + 1)
    for index in range(3):
        assert history.apply(PauseJob(f"job{index}")).accepted
    fresh_run = History(
        lambda: Engine(seed=5, archive=True),
        ARCHIVING_COMMANDS,
        user=list(history.user_commands),
    )
    for tick in (ARCHIVING_UNTIL * 2, last + 2, ARCHIVING_UNTIL * 2):
        history.seek(tick)
        fresh_run.seek(tick)
        assert state_fingerprint(history.engine) == state_fingerprint(fresh_run.engine), tick


def test_a_run_born_at_a_keyframe_and_changed_after_it_is_its_birth_again_there() -> None:
    """A restore skips the records born on the way (they hold the values they were born with
    while outside the state): one changed by a replay past the keyframe it was born at, then
    left behind by a jump back before it, must be put back to those values, or a jump forward
    to that keyframe shows the replay's."""
    history = archiving_history(span_cost=10)
    history.seek(ARCHIVING_UNTIL)
    for label in history.keyframes[1:-1]:
        history.seek(label + 2)
        history.seek(0)
        history.seek(label)
        assert state_fingerprint(history.engine) == fresh_state(label), label


def test_a_jump_gathers_the_records_changed_on_the_way_not_those_born() -> None:
    """A job scheduled every tick that never changes after: a jump across the run looks at the
    records changed on the way (two busy jobs, the workers), not at the thousands born."""
    commands = [(0, RegisterWorker(f"w{index}")) for index in range(2)]
    commands += [(0, ScheduleJob(JobSpec(f"busy{index}", Every(0, 1)))) for index in range(2)]
    commands += [(t, ScheduleJob(JobSpec(f"late{t}", Once(10**6)))) for t in range(1, TICKS)]
    history = History(lambda: Engine(archive=True), at_ticks(commands), until=TICKS, span_cost=100)
    history.seek(TICKS)
    frames_ = history._frames
    for tick in (0, TICKS, 10, TICKS // 2):
        history.seek(tick)
        assert frames_.gathered < TICKS / 4, tick  # 3,000 jobs born on the way


def test_a_heap_pushed_onto_without_its_log_fails_the_keyframes_check() -> None:
    """A keyframe keeps a heap as what was pushed and popped since the one before: an item
    pushed past the log would not come back on a rewind, and the debug mode says so."""
    engine = Engine()
    keyframes = engine.record_keyframes(check=True)
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("j", Every(5, 5))))
    keyframes.take(0)
    heapq.heappush(engine._cursors.due.items, (7, 0, "j"))
    with pytest.raises(UnloggedWrite):
        keyframes.take(1)


@settings(max_examples=60)
@given(
    first=st.lists(st.integers(0, 50), max_size=30),
    spans=st.lists(st.lists(st.one_of(st.none(), st.integers(0, 50)), max_size=20), max_size=6),
)
def test_a_heap_rebuilt_from_its_changes_holds_the_same_items_and_pops_them_in_order(
    first, spans
) -> None:
    """Spans of pushes (numbers) and pops (None) on a heap that logs them: rebuilt from the
    first copy and each span's changes, it holds the very items, and pops the same."""
    heap = Heap()
    sequence = itertools.count()
    for value in first:
        heapq.heappush(heap.items, (value, next(sequence)))
    copy = heap.snapshot()
    heap.log_changes()
    changes = []
    for span in spans:
        for op in span:
            if op is None:
                if heap.items:  # popped as the heap's owners pop, logged
                    heap.popped.append(heapq.heappop(heap.items))  # type: ignore[union-attr]
            else:
                item = (op, next(sequence))
                heapq.heappush(heap.items, item)
                heap.pushed.append(item)  # type: ignore[union-attr]
        changes.append(heap.changes())
    rebuilt = list(Heap.rebuild(copy, changes))
    assert sorted(map(id, rebuilt)) == sorted(map(id, heap.items))
    popped = [heapq.heappop(rebuilt) for _ in range(len(rebuilt))]
    assert all(map(operator.is_, popped, [heapq.heappop(heap.items) for _ in popped]))


def test_a_keyframe_copies_the_heaps_whole_only_when_it_copies_every_container_whole(
    monkeypatch,
) -> None:
    """The heaps log what is pushed and popped: a keyframe in between two whole ones keeps that,
    not a copy of every item (a restore rebuilds the copy), and a step back to it is exact."""
    copied: list[int] = []
    snapshot = Heap.snapshot

    def counting_snapshot(self: Heap) -> tuple:
        copied.append(1)
        return snapshot(self)

    monkeypatch.setattr(Heap, "snapshot", counting_snapshot)
    history = busy_history(span_cost=40)
    history.seek(TICKS)
    taken = len(history.keyframes)
    whole = len(range(0, taken, frames.WHOLE_EVERY))
    heaps = 3  # the due heap, the timers' and the ready queue's
    assert taken > 2 * frames.WHOLE_EVERY
    assert len(copied) == heaps * whole
    history.seek(TICKS - 100)
    fresh = busy_history(span_cost=10 * TICKS)
    fresh.seek(TICKS - 100)
    assert state_fingerprint(history.engine) == state_fingerprint(fresh.engine)


def test_a_heaps_changes_are_worked_out_when_read_or_as_a_run_ends_not_when_recorded(
    monkeypatch,
) -> None:
    """A keyframe keeps what a heap logged as it is: a run forward works out (compares the ids
    of) only the changes a step back from its end reads, those after the last whole copy, and
    a jump further back those its rebuild reads, each once."""
    worked_out: list[HeapChanges] = []
    work_out = HeapChanges.work_out

    def counting_work_out(self: HeapChanges) -> None:
        if self._logs is not None:
            worked_out.append(self)
        work_out(self)

    monkeypatch.setattr(HeapChanges, "work_out", counting_work_out)
    history = busy_history(span_cost=40)
    history.seek(TICKS)
    heaps_changed = 2  # the due heap and the ready queue's (no timers)
    assert len(history.keyframes) > 3 * frames.WHOLE_EVERY
    assert 0 < len(worked_out) <= heaps_changed * frames.WHOLE_EVERY
    after_the_run = len(worked_out)
    history.step_back()
    assert len(worked_out) == after_the_run
    history.seek(TICKS // 3)
    assert len(worked_out) > after_the_run
    assert len(set(map(id, worked_out))) == len(worked_out)
    fresh = busy_history(span_cost=10 * TICKS)
    fresh.seek(TICKS // 3)
    assert state_fingerprint(history.engine) == state_fingerprint(fresh.engine)


def test_a_keyframe_keeps_a_live_tables_records_and_the_debug_mode_their_keys() -> None:
    """A live table holds each record under its ``key``: a keyframe keeps its records only and
    a restore keys them again, so the debug mode refuses a record held under another key."""
    engine = Engine(archive=True)
    recorded = engine.record_keyframes(check=True)
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("a", Every(0, 5), duration=3)))
    TickDriver(engine).finish(1)
    recorded.take(1)
    (live,) = recorded._live
    assert recorded._frames[-1].live == (tuple(live.values()),)
    key, run = live.popitem()
    live[("b", 0)] = run
    with pytest.raises(ValueError, match=r"holds \('a', 0\) under \('b', 0\)"):
        recorded.take(2)
    live.pop(("b", 0))
    live[key] = run
    recorded.restore(0)
    recorded.restore(1)
    assert dict(live) == {key: run}


def test_a_keyframe_finds_a_live_tables_new_records_at_its_end_and_the_debug_mode_checks_it():
    """A live table gains records only as new ones, at its end: a keyframe saves its last
    records, up to the last one known, and the debug mode refuses a record it held before put
    back in after a new one (a keyframe would not see the new one)."""
    engine = Engine(archive=True)
    recorded = engine.record_keyframes(check=True)
    engine.apply(RegisterWorker("w1"))
    engine.apply(RegisterWorker("w2"))
    engine.apply(ScheduleJob(JobSpec("a", Once(0), duration=30)))
    TickDriver(engine).finish(1)
    recorded.take(1)
    (live,) = recorded._live
    (held,) = live.items()
    engine.apply(ScheduleJob(JobSpec("b", Once(2), duration=30)))
    TickDriver(engine).finish(2)
    assert [run.key for run in frames._new_live(live)] == [("b", 2)]
    del live[held[0]]
    live[held[0]] = held[1]
    with pytest.raises(ValueError, match="enters a live table only as a new one"):
        recorded.take(2)


def test_a_keyframe_saves_nothing_of_a_run_archived_in_its_span_yet_a_rewind_puts_it_back(
    monkeypatch,
) -> None:
    """Runs live at one keyframe and archived before the next left the state for good: the
    next keyframe saves none of them (only their values before), and a rewind past it puts
    them back in the live table with those values."""
    commands = [(0, RegisterWorker(f"w{index}")) for index in range(20)]
    commands += [(0, ScheduleJob(JobSpec(f"r{i}", Once(0), duration=15))) for i in range(20)]
    history = History(lambda: Engine(archive=True), at_ticks(commands), until=40, span_cost=10)
    history.seek(5)
    live_then = state_fingerprint(history.engine)
    saved: list[Occurrence] = []
    save = Occurrence.save

    def counting_save(self: Occurrence, before: tuple | None = None) -> tuple:
        saved.append(self)
        return save(self, before)

    monkeypatch.setattr(Occurrence, "save", counting_save)
    history.seek(40)
    assert saved == []
    monkeypatch.undo()
    history.seek(5)
    assert state_fingerprint(history.engine) == live_then
