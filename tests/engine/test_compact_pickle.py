"""The engine's mutable records pickle as their class and their leading non-default fields
(:mod:`engine.model.compact_pickle`): a service's snapshot holds one job record per job."""

from __future__ import annotations

import copyreg
import dataclasses
import io
import pickle

from engine.model.compact_pickle import pickled_compactly
from engine.model.records import Job, JobSpec
from engine.schedules.kinds import Every


def job(**changed: object) -> Job:
    spec = JobSpec("a", Every(60, 60))
    made = Job(spec, submission=0, order_key=b"\x00a", next_due=60, dispatches_at_submit=0)
    return dataclasses.replace(made, **changed)


def same(left: Job, right: Job) -> bool:
    """Equal, the fields left out of equality included."""
    return left == right and (left.front, left.gen) == (right.front, right.gen)


def test_a_job_with_its_defaults_pickles_its_leading_fields_only() -> None:
    plain = job()
    cls, values = plain.__reduce__()
    assert cls is Job and values == (plain.spec, 0, b"\x00a", 60, 0)
    assert same(pickle.loads(pickle.dumps(plain, pickle.HIGHEST_PROTOCOL)), plain)


def test_a_field_past_the_defaults_keeps_the_fields_before_it() -> None:
    changed = job(paused_through=90, front=(60, 0), gen=3)
    _cls, values = changed.__reduce__()
    assert len(values) == len(dataclasses.fields(Job))
    assert same(pickle.loads(pickle.dumps(changed, pickle.HIGHEST_PROTOCOL)), changed)


def test_a_default_collection_unpickles_as_a_new_one() -> None:
    first, second = pickle.loads(pickle.dumps([job(), job()], pickle.HIGHEST_PROTOCOL))
    first.open[60] = None
    assert second.open == {}, "each record has an open dictionary of its own"


def test_a_value_equal_to_its_default_but_of_another_type_is_kept() -> None:
    @pickled_compactly
    @dataclasses.dataclass(slots=True)
    class Flag:
        name: str
        on: object = False

    assert Flag("x", 0).__reduce__() == (Flag, ("x", 0))
    assert Flag("x", False).__reduce__() == (Flag, ("x",))


def test_a_job_pickled_with_its_slots_state_still_loads() -> None:
    """What a snapshot written before held: the class, then a dictionary of every slot."""

    class SlotsState(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            if type(obj) is not Job:
                return NotImplemented
            slots = {field.name: getattr(obj, field.name) for field in dataclasses.fields(Job)}
            return copyreg.__newobj__, (Job,), (None, slots)

    changed = job(paused_through=90, gen=3)
    buffer = io.BytesIO()
    SlotsState(buffer, pickle.HIGHEST_PROTOCOL).dump(changed)
    assert b"paused_through" in buffer.getvalue(), "the old format names every slot"
    assert same(pickle.loads(buffer.getvalue()), changed)
