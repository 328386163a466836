"""Journaled records: save and restore follow the dataclass fields; the keyframes' debug mode
catches a record changed without a touch first."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import pytest

from engine.core import Engine
from engine.model.commands import Advance, RegisterWorker, ScheduleJob
from engine.model.journaled import (
    BOOKKEEPING,
    IDENTITY,
    Journal,
    copy_rule,
    journal_of,
    journaled,
    kind,
)
from engine.model.records import (
    Attempt,
    AttemptOutcome,
    Job,
    JobSpec,
    Occurrence,
    OccurrenceState,
    Worker,
)
from engine.parts.notifications import Notification
from engine.rewind.frames import Frames, UntouchedWrite
from engine.schedules.kinds import Every


@journaled
@dataclass(slots=True)
class Toy:
    name: str = field(metadata=IDENTITY)
    count: int = 0
    added_later: str = "new"
    tags: list[str] = field(default_factory=list, metadata=copy_rule(tuple, list))
    gen: int = field(default=0, compare=False, metadata=BOOKKEEPING)


def test_every_field_but_identity_and_bookkeeping_is_saved_and_restored():
    toy = Toy("t", 1, "before", ["a"])
    saved = toy.save()
    toy.count, toy.added_later, toy.gen = 2, "after", 7
    toy.tags.append("b")
    toy.restore(saved)
    assert (toy.name, toy.count, toy.added_later, toy.tags, toy.gen) == ("t", 1, "before", ["a"], 7)
    assert journal_of(Toy).journaled == ("count", "added_later", "tags")


def test_a_save_restored_twice_gives_independent_values():
    toy = Toy("t", tags=["a"])
    saved = toy.save()
    toy.restore(saved)
    toy.tags.append("b")
    toy.restore(saved)
    assert toy.tags == ["a"]


def test_a_mutable_field_without_a_copy_rule_is_refused():
    with pytest.raises(TypeError, match=r"Broken\.items is mutable"):

        @journaled
        @dataclass(slots=True)
        class Broken:
            items: list[int] = field(default_factory=list)


@journaled(hot=("count", "tags"))
@dataclass(slots=True)
class HotToy:
    name: str = field(metadata=IDENTITY)
    count: int = 0
    label: str = "a"
    size: int = 1
    tags: list[str] = field(default_factory=list, metadata=copy_rule(tuple, list))


def test_a_save_after_one_with_the_same_cold_fields_shares_them():
    toy = HotToy("t", tags=["x"])
    whole = toy.save()
    toy.count, toy.tags = 1, ["y"]
    short = toy.save(whole)
    toy.count = 2
    again = toy.save(short)
    assert short == (1, ("y",), whole) and again[-1] is whole  # a short save refers to a whole one
    toy.label = "b"
    changed = toy.save(again)
    assert len(changed) == len(whole) and changed[-1] is not whole
    toy.restore(short)
    assert (toy.count, toy.label, toy.size, toy.tags) == (1, "a", 1, ["y"])
    toy.restore(changed)
    assert (toy.count, toy.label, toy.size, toy.tags) == (2, "b", 1, ["y"])


def test_a_restore_from_a_save_sharing_the_cold_fields_it_holds_sets_the_hot_ones_only():
    """Given the save whose values the record holds (``held``), a restore to a save with the
    same cold fields (the same whole save) leaves them: a rewind sets a job's hot fields."""
    toy = HotToy("t", tags=["x"])
    whole = toy.save()
    toy.count, toy.tags = 1, ["y"]
    short = toy.save(whole)
    toy.size = 7  # not what ``short`` holds: shows which fields the restore writes
    toy.restore(whole, short)
    assert (toy.count, toy.size, toy.tags) == (0, 7, ["x"]), "the hot fields only"
    toy.restore(short, whole)
    assert (toy.count, toy.size, toy.tags) == (1, 7, ["y"]), "the hot fields only"
    toy.restore(short, toy.save())
    assert (toy.count, toy.size, toy.tags) == (1, 1, ["y"]), "another whole save: every field"
    toy.size = 7
    toy.restore(short)
    assert (toy.count, toy.size, toy.tags) == (1, 1, ["y"]), "nothing held known: every field"


def test_hot_fields_are_journaled_and_leave_two_cold_ones_at_least():
    with pytest.raises(TypeError, match=r"not journaled"):
        journaled(hot=("name",))(HotToy)
    with pytest.raises(TypeError, match=r"two cold fields"):
        journaled(hot=("count", "label", "tags"))(HotToy)


@pytest.mark.parametrize("cls", [Job, Occurrence, Attempt, Worker, Notification])
def test_each_record_class_accounts_for_every_field(cls):
    journal = journal_of(cls)
    bookkeeping_fields = tuple(f.name for f in fields(cls) if kind(f) is Journal.BOOKKEEPING)
    assert sorted(journal.journaled + journal.identity + bookkeeping_fields) == sorted(
        f.name for f in fields(cls)
    )


def test_an_occurrences_attempts_are_restored_in_place():
    first = Attempt(1, "w1", 0)
    occurrence = Occurrence(("a", 0), OccurrenceState.RUNNING, 2, 0, 0, 1, None, [first])
    saved = occurrence.save()
    first.ended, first.outcome = 3, AttemptOutcome.FAILED
    occurrence.attempts.append(Attempt(2, "w1", 3))
    occurrence.restore(saved)
    assert occurrence.attempts == [Attempt(1, "w1", 0)] and occurrence.attempts[0] is first


def engine_with_a_running_job() -> tuple[Engine, Frames]:
    engine = Engine(seed=1)
    frames = engine.record_keyframes(check=True)
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("a", Every(0, 5), duration=3)))
    engine.apply(Advance(1))
    frames.take(1)
    return engine, frames


def test_the_debug_mode_names_the_record_and_field_written_without_touch():
    engine, frames = engine_with_a_running_job()
    engine._workforce.workers["w1"].since = 99
    with pytest.raises(UntouchedWrite, match=r"Worker 'w1': field 'since' changed from 0 to 99"):
        frames.take(2)


def test_the_debug_mode_sees_changes_made_in_place():
    engine, frames = engine_with_a_running_job()
    engine._store.records[("a", 0)].attempts[0].ended = 2
    with pytest.raises(UntouchedWrite, match=r"Occurrence \('a', 0\): field 'attempts'"):
        frames.restore(0)


def test_the_debug_mode_accepts_touched_writes_and_is_off_by_default():
    engine, frames = engine_with_a_running_job()
    worker = engine._workforce.workers["w1"]
    engine.journal.touch(worker)
    worker.since = 99
    frames.take(2)
    quiet = Engine()
    quiet_frames = quiet.record_keyframes()
    quiet.apply(RegisterWorker("w1"))
    quiet._workforce.workers["w1"].since = 99
    quiet_frames.take(0)
