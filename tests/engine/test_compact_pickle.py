"""The engine's records pickle as their class and their leading non-default fields
(:mod:`engine.model.compact_pickle`): a service's snapshot holds one job record per job, and its
load keeps nothing alive that the state it loads does not hold."""

from __future__ import annotations

import copy
import copyreg
import dataclasses
import gc
import io
import pickle

import pytest

from engine.core import Engine
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.compact_pickle import UNPICKLED, leading_values, pickled_compactly
from engine.model.policies import Backoff, NotificationPolicy, Policy, WorkerPool
from engine.model.presets import seed_003_policy
from engine.model.records import NO_OPEN_RUNS, CatchUp, Job, JobSpec
from engine.parts.notifications import Notification
from engine.rewind.frames import _versions_of
from engine.schedules.kinds import Every


def job(**changed: object) -> Job:
    spec = JobSpec("a", Every(60, 60))
    made = Job(spec, submission=0, order_key=b"\x00a", next_due=60, dispatches_at_submit=0)
    return dataclasses.replace(made, **changed)


def same(left: Job, right: Job) -> bool:
    """Equal, the fields left out of equality included."""
    return left == right and (left.front, left.gen) == (right.front, right.gen)


def pickled(obj: object) -> bytes:
    return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)


def test_a_job_with_its_defaults_pickles_its_leading_fields_only() -> None:
    plain = job()
    assert leading_values(Job)(plain) == (plain.spec, 0, b"\x00a", 60, 0)
    assert b"paused_through" not in pickled(plain)
    assert same(pickle.loads(pickled(plain)), plain)
    assert len(pickled(plain)) < len(pickled(job(paused_through=90)))


def test_a_field_past_the_defaults_keeps_the_fields_before_it() -> None:
    changed = job(paused_through=90, front=(60, 0), gen=3)
    assert len(leading_values(Job)(changed)) == len(dataclasses.fields(Job)) - 1, "versions"
    assert same(pickle.loads(pickled(changed)), changed)


def test_a_records_keyframe_versions_are_neither_pickled_nor_copied() -> None:
    """They are a recording's (engine.rewind.frames), which a copy or a load is not part of."""
    recorded = job(paused_through=90)
    recorded.versions = object()
    for rebuilt in (
        pickle.loads(pickled(recorded)),
        copy.copy(recorded),
        copy.deepcopy(recorded),
        dataclasses.replace(recorded),
    ):
        assert same(rebuilt, recorded) and rebuilt.versions is None
    notification = Notification(("j", 0, "email"), 0)
    notification.versions = object()
    assert pickle.loads(pickled(notification)).versions is None


def test_a_field_left_out_of_the_pickle_must_not_be_an_init_parameter() -> None:
    with pytest.raises(TypeError, match="needs init=False"):

        @pickled_compactly
        @dataclasses.dataclass(slots=True)
        class Noted:
            name: str
            note: object = dataclasses.field(default=None, metadata={UNPICKLED: True})


def test_a_definition_pickles_up_to_its_last_field_that_is_not_its_default() -> None:
    spec = JobSpec("a", Every(60, 60), catch_up=CatchUp.LATEST)
    given = leading_values(JobSpec)(spec)
    assert given[-1] is CatchUp.LATEST and len(given) < len(dataclasses.fields(JobSpec))
    assert pickle.loads(pickled(spec)) == spec


@pytest.mark.parametrize(
    "made",
    [Policy(), Backoff(), NotificationPolicy(), seed_003_policy()],
    ids=["policy", "backoff", "notifications", "seed-003"],
)
def test_a_value_whose_fields_all_hold_their_defaults_round_trips(made: object) -> None:
    """Nothing follows its class in the pickle: pickle calls no ``extend`` for no values, so
    the class is called instead (a ``seed-003`` policy's default notification policy loaded
    with no fields set)."""
    assert pickle.loads(pickled(made)) == made
    assert copy.deepcopy(made) == made


def reachable(root: object) -> set[int]:
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) not in seen and not isinstance(obj, type):
            seen.add(id(obj))
            stack.extend(gc.get_referents(obj))
    return seen


def test_a_load_memoizes_nothing_the_loaded_state_does_not_hold() -> None:
    """Pickle's memo keeps what it holds until the load ends: a tuple of each record's values
    was 7 MB of a snapshot with 20,000 jobs, whose memory stayed with the process after."""
    jobs = [job(next_due=60 * n, paused_through=90, front=(60, n)) for n in range(3)]
    jobs[1].open = {120: None}
    unpickler = pickle.Unpickler(io.BytesIO(pickled(jobs)))
    loaded = unpickler.load()
    assert all(same(left, right) for left, right in zip(loaded, jobs, strict=True))
    held = reachable(loaded)
    memoized = unpickler.memo.copy().values()
    names = (str, type)  # the classes and the names they were found by
    stray = [obj for obj in memoized if not isinstance(obj, names) and id(obj) not in held]
    assert stray == []


def test_a_record_copies_as_its_pickle_rebuilds_it() -> None:
    changed = job(paused_through=90, front=(60, 0), gen=3)
    changed.open = {60: None}
    shallow, deep = copy.copy(changed), copy.deepcopy(changed)
    assert same(shallow, changed) and same(deep, changed)
    assert shallow.open is changed.open and deep.open is not changed.open
    spec = JobSpec("a", Every(60, 60), depends_on=("b",))
    assert copy.copy(spec) == spec and copy.deepcopy(spec) == spec


def test_a_job_without_open_runs_loads_with_the_shared_read_only_mapping() -> None:
    """An empty dictionary a job was 1.3 MB of a server with 20,000 jobs stored."""
    first, second = pickle.loads(pickled([job(), job()]))
    assert first.open is second.open is NO_OPEN_RUNS and first.open == {}
    with pytest.raises(TypeError):
        first.open[60] = None
    opened = pickle.loads(pickled(job(open={60: None}, paused_through=90)))
    assert opened.open == {60: None} and type(opened.open) is dict
    emptied = pickle.loads(pickled(job(open={}, paused_through=90)))
    assert emptied.open == {} and emptied.paused_through == 90


def test_a_value_equal_to_its_default_but_of_another_type_is_kept() -> None:
    @pickled_compactly
    @dataclasses.dataclass(slots=True)
    class Flag:
        name: str
        on: object = False

    assert leading_values(Flag)(Flag("x", 0)) == ("x", 0)
    assert leading_values(Flag)(Flag("x", False)) == ("x",)


def test_a_job_pickled_with_its_slots_state_still_loads() -> None:
    """What a snapshot written before held: the class, then a dictionary of every slot."""

    class SlotsState(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            if type(obj) is not Job:
                return NotImplemented
            slots = {
                field.name: getattr(obj, field.name)
                for field in dataclasses.fields(Job)
                if field.name != "versions"  # a field added since
            }
            return copyreg.__newobj__, (Job,), (None, slots)

    changed = job(paused_through=90, gen=3)
    buffer = io.BytesIO()
    SlotsState(buffer, pickle.HIGHEST_PROTOCOL).dump(changed)
    assert b"paused_through" in buffer.getvalue(), "the old format names every slot"
    loaded = pickle.loads(buffer.getvalue())
    assert same(loaded, changed)
    assert list(_versions_of([loaded])) == [None], "unset, read as none"


def test_a_job_gives_its_open_runs_dictionary_back_once_they_are_over() -> None:
    engine = Engine(Policy())
    engine.apply(RegisterWorker("w"))
    assert engine.apply(ScheduleJob(JobSpec("j", Every(10, 100), duration=5))).accepted
    assert engine.query.job("j").open is NO_OPEN_RUNS
    engine.advance(12)
    assert list(engine.query.job("j").open) == [10], "its running run"
    engine.advance(20)
    assert engine.query.job("j").open is NO_OPEN_RUNS


class _OlderWorkerPool:
    """Pickles as a ``WorkerPool`` did before its set of idle ids was the slot ``ids``: as any
    object of slots, ``(None, {slot: value})``, the set under ``_idle``."""

    def __reduce_ex__(self, protocol: object) -> tuple:
        slots = {"_heap": [(b"w1", "w1"), (b"w2", "w2")], "_idle": {"w1", "w2"}}
        return object.__new__, (WorkerPool,), (None, slots)


def test_a_worker_pool_an_older_cronlapse_pickled_loads_and_a_pool_round_trips() -> None:
    older = pickle.loads(pickle.dumps(_OlderWorkerPool()))
    assert isinstance(older, WorkerPool) and older.ids == {"w1", "w2"}
    assert older.pop() == "w1" and older.ids == {"w2"}
    pool = WorkerPool()
    pool.add("w2", b"w2")
    pool.add("w1", b"w1")
    for copied in (pickle.loads(pickle.dumps(pool)), copy.deepcopy(pool)):
        assert copied.snapshot() == pool.snapshot()
        assert copied.pop() == "w1"
