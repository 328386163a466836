"""``@value`` must behave exactly as ``@dataclass(frozen=True, slots=True)``, only faster."""

from __future__ import annotations

import dataclasses
import gc
import inspect
import io
import pickle

import pytest

from engine.model import events as ev
from engine.model.compact_pickle import leading_values
from engine.model.values import WIDE, is_value, mutable_record, value


@value
class Base:
    tick: int


@value
class Child(Base):
    name: str
    size: int = 3
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)


@value
class Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


def test_fields_defaults_and_factories_are_those_of_the_dataclass() -> None:
    child = Child(1, "a")
    assert (child.tick, child.name, child.size, child.tags) == (1, "a", 3, ())
    assert Child(tick=2, name="b", size=4, tags=("x",)) == Child(2, "b", 4, ("x",))
    assert dataclasses.replace(child, size=9) == Child(1, "a", 9)
    assert repr(child) == "Child(tick=1, name='a', size=3, tags=())"


def test_values_stay_frozen_hashable_and_comparable() -> None:
    child = Child(1, "a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.size = 4  # type: ignore[misc]
    assert hash(child) == hash(Child(1, "a"))
    assert child != Child(1, "b")
    assert not hasattr(child, "__dict__")


def test_post_init_runs_and_missing_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="low above high"):
        Checked(2, 1)
    with pytest.raises(TypeError):
        Child(1)  # type: ignore[call-arg]


def test_pattern_matching_sees_the_fields() -> None:
    match Child(5, "z"):
        case Child(tick, name):
            assert (tick, name) == (5, "z")
        case _:
            pytest.fail("no match")


def test_the_event_log_builds_equal_events_and_round_trips_a_stretch() -> None:
    log = ev.EventLog()
    started = ev.AttemptStarted(1, "a", 0, 1, "w")
    log.add(ev.AttemptStarted, 1, "a", 0, 1, "w")
    log.append(ev.JobDeleted(3, "b"))
    log.add(ev.WorkerRegistered, 5, "w")
    assert log[0] == started and log[0] is not log[0]
    assert list(log) == [started, ev.JobDeleted(3, "b"), ev.WorkerRegistered(5, "w")]
    assert log.since(1) == log[1:] == [ev.JobDeleted(3, "b"), ev.WorkerRegistered(5, "w")]
    assert [log.first_index_at(tick) for tick in (0, 1, 2, 4, 6)] == [0, 0, 1, 2, 3]
    tail = log.records(1, 3)
    log.truncate(1)
    assert list(log) == [started]
    log.extend_records(tail)
    assert log[2] == ev.WorkerRegistered(5, "w") and len(log) == 3


def test_a_selection_of_the_log_is_its_events_of_those_kinds_with_their_indices() -> None:
    log = ev.EventLog()
    log.add(ev.WorkerRegistered, 0, "w")
    log.add(ev.AttemptStarted, 1, "a", 0, 1, "w")
    log.add(ev.JobDeleted, 3, "b")
    log.add(ev.AttemptStarted, 4, "b", 2, 1, "w")
    kinds = (ev.AttemptStarted, ev.JobDeleted)
    assert list(log.select(kinds)) == [(i, e) for i, e in enumerate(log) if type(e) in kinds]
    assert list(log.select([ev.AttemptStarted], start=2)) == [(3, log[3])]
    assert list(log.select([ev.JobScheduled])) == []


def test_stored_events_of_plain_fields_leave_the_cycle_collector() -> None:
    """The point of storing fields: after one collection the collector no longer walks them."""
    log = ev.EventLog()
    for tick in range(100):
        log.add(ev.AttemptStarted, tick, "job", tick, 1, "worker")
    gc.collect()
    assert not any(gc.is_tracked(fields) for fields in log._fields)


def test_a_pickled_log_names_its_event_classes_and_reads_back_equal() -> None:
    log = ev.EventLog()
    log.add(ev.AttemptStarted, 1, "a", 0, 1, "w")
    log.add(ev.JobDeleted, 2, "a")
    data = pickle.dumps(log)
    assert b"AttemptStarted" in data and b"JobDeleted" in data
    assert list(pickle.loads(data)) == list(log)


@value
class Wide:
    """At least ``WIDE`` fields: built through the private builder class."""

    a: int
    b: str
    c: int = 3
    d: tuple[int, ...] = dataclasses.field(default_factory=tuple)
    e: int = 5
    f: int = 6
    g: int = 7
    h: int = 8


class WideSubclass(Wide):
    """Not a value of its own: it inherits ``Wide``'s ``__init__``."""

    __slots__ = ("extra",)


def test_a_wide_value_is_built_as_its_own_class_and_stays_frozen() -> None:
    assert len(dataclasses.fields(Wide)) >= WIDE
    wide = Wide(1, "x", h=9)
    assert type(wide) is Wide
    assert (wide.a, wide.b, wide.c, wide.d, wide.h) == (1, "x", 3, (), 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        wide.a = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del wide.a
    assert hash(wide) == hash(Wide(1, "x", h=9)) and wide == Wide(1, "x", h=9)
    assert dataclasses.replace(wide, c=4) == Wide(1, "x", 4, h=9)
    assert type(pickle.loads(pickle.dumps(wide))) is Wide
    assert pickle.loads(pickle.dumps(wide)) == wide


def test_a_subclass_of_a_wide_value_keeps_its_class_and_its_fields() -> None:
    child = WideSubclass(1, "y")
    assert type(child) is WideSubclass
    assert (child.a, child.b, child.h) == (1, "y", 8)


@value
class Empty:
    pass


def pickled_as_class_and_values(made: object) -> bytes:
    class ClassAndValues(pickle.Pickler):
        def reducer_override(self, obj: object) -> object:
            if obj is not made:
                return NotImplemented
            return type(obj), dataclasses.astuple(obj)  # type: ignore[call-overload]

    buffer = io.BytesIO()
    ClassAndValues(buffer, pickle.HIGHEST_PROTOCOL).dump(made)
    return buffer.getvalue()


def test_a_pickled_value_is_its_class_and_its_fields_built_again() -> None:
    """Unpickling calls the fast ``__init__`` (and ``__post_init__``): the dataclass's own
    ``__setstate__`` looked the fields up again for every object, a fifth of a service's
    restart with 20,000 jobs. Pickles of the dataclass's form still load."""
    child = Child(1, "x", tags=("t",))
    assert leading_values(Child)(child) == (1, "x", 3, ("t",))
    assert leading_values(Child)(Child(1, "x")) == (1, "x")
    for made in (child, Base(2), Empty(), Checked(1, 2), WideSubclass(1, "y")):
        again = pickle.loads(pickle.dumps(made, pickle.HIGHEST_PROTOCOL))
        assert type(again) is type(made) and again == made
    assert pickle.loads(pickled_as_class_and_values(child)) == child  # last week's pickles
    older = object.__new__(Child)  # an older snapshot's object: its state set field by field
    older.__setstate__([1, "x", 3, ("t",)])  # type: ignore[attr-defined]
    assert older == child


@value
class Shown:
    tick: int
    name: str
    tags: tuple[str, ...] = ()
    inner: Base | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ShownByDataclass:
    tick: int
    name: str
    tags: tuple[str, ...] = ()
    inner: Base | None = None


def test_a_value_shows_compares_and_hashes_as_the_frozen_dataclass_would() -> None:
    """``@value`` makes ``__repr__``, ``__eq__`` and ``__hash__`` from the fields without
    compiling them per class (half of a server's import time); they answer as dataclass's."""
    for made in ((1, "a"), (2, "b", ("t", "u"), Base(3)), (0, "", (), None)):
        ours, theirs = Shown(*made), ShownByDataclass(*made)
        assert repr(ours).removeprefix("Shown") == repr(theirs).removeprefix("ShownByDataclass")
        assert hash(ours) == hash(theirs)
        assert ours == Shown(*made) and ours != theirs and ours != Shown(9, "z")
    assert (repr(Empty()), hash(Empty()), Empty() == Empty()) == ("Empty()", hash(()), True)
    assert (repr(Base(1)), hash(Base(1))) == ("Base(tick=1)", hash((1,)))
    assert Child(1, "x") != Base(1), "another class is never equal"
    assert len({Shown(1, "a"), Shown(1, "a"), Shown(1, "b")}) == 2


def test_a_value_compiles_its_comparisons_only_when_first_used() -> None:
    """Most values of a server are never compared, hashed or shown: a class compiles the three
    on the first call of one, not when it is made (half of a server's import time)."""

    @value
    class Fresh:
        a: int
        b: str = "x"

    @value
    class Unused:
        a: int

    methods = ("__repr__", "__eq__", "__hash__")
    assert all(getattr(Fresh, m).__code__ is getattr(Unused, m).__code__ for m in methods)
    assert Fresh(1) == Fresh(1) and hash(Fresh(1)) == hash((1, "x"))
    assert repr(Fresh(2, "y")).endswith("Fresh(a=2, b='y')")
    assert all(getattr(Fresh, m).__code__ is not getattr(Unused, m).__code__ for m in methods)


def test_values_share_one_frozen_setattr_and_refuse_as_the_frozen_dataclass() -> None:
    """``@value`` does not have dataclass compile a ``__setattr__`` and a ``__delattr__`` per
    class (a tenth of ``cronlapse run``'s imports): all values share one of each, which refuse
    with dataclass's error and message, through inheritance too."""
    assert Base.__setattr__ is Child.__setattr__ is Wide.__setattr__ is Empty.__setattr__
    assert Base.__delattr__ is Child.__delattr__
    assert is_value(Child) and is_value(WideSubclass) and not is_value(ShownByDataclass)
    child, theirs = Child(1, "a"), ShownByDataclass(1, "a")
    for made, field in ((child, "tick"), (child, "size"), (theirs, "tick")):
        with pytest.raises(
            dataclasses.FrozenInstanceError, match=f"cannot assign to field '{field}'"
        ):
            setattr(made, field, 2)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{field}'"):
            delattr(made, field)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
        child.other = 1  # type: ignore[attr-defined]
    assert (child.tick, child.size) == (1, 3)
    assert [field.name for field in dataclasses.fields(Child)] == ["tick", "name", "size", "tags"]
    assert dataclasses.replace(child, tick=4) == Child(4, "a")


def test_a_plain_subclass_of_a_value_sets_its_own_slots_but_not_the_fields() -> None:
    child = WideSubclass(1, "y")
    child.extra = 5  # type: ignore[attr-defined]
    assert child.extra == 5  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.a = 2  # type: ignore[misc]


def test_a_value_pickled_by_the_frozen_dataclass_state_reads_back() -> None:
    """The state dataclass gives a frozen slotted class (its fields' values as a list)."""
    child = Child(1, "x", tags=("t",))
    assert child.__getstate__() == [1, "x", 3, ("t",)]  # type: ignore[attr-defined]
    older = object.__new__(Child)
    older.__setstate__(child.__getstate__())  # type: ignore[attr-defined]
    assert older == child


def test_a_value_compiles_its_init_when_first_built_with_the_same_signature() -> None:
    """Most value classes a command imports are never built: each compiles its ``__init__`` on
    its first call, and says the same signature before and after."""

    @value
    class Late:
        a: int
        b: str = "x"
        c: tuple[int, ...] = dataclasses.field(default_factory=tuple)

    stub = Late.__init__
    before = str(inspect.signature(Late))
    assert Late(1).c == () and Late(2, "y", (3,)) == Late(a=2, b="y", c=(3,))
    assert Late.__init__ is not stub and Late.__init__.__code__ is not stub.__code__
    assert str(inspect.signature(Late)) == before
    assert [*inspect.signature(Late).parameters] == ["a", "b", "c"]


def test_keyword_only_fields_are_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="keyword-only or non-init"):

        @value
        class Keyworded:
            a: int = dataclasses.field(kw_only=True)


@mutable_record
class Counter:
    name: str
    count: int = 0
    seen: list[str] = dataclasses.field(default_factory=list, compare=False, repr=False)


@dataclasses.dataclass(slots=True)
class CounterByDataclass:
    name: str
    count: int = 0
    seen: list[str] = dataclasses.field(default_factory=list, compare=False, repr=False)


def test_a_mutable_record_shows_and_compares_as_the_dataclass_compiling_both_when_used() -> None:
    """``@mutable_record`` is ``@dataclass(slots=True)`` whose ``__repr__`` and ``__eq__`` are
    compiled on their first call: dataclass compiled both for each record class."""
    compiled = "<string>"  # the file name of code made by exec, as dataclass makes its methods
    assert Counter.__eq__.__code__.co_filename != compiled, "not compiled yet"
    ours, theirs = Counter("a", 2, ["x"]), CounterByDataclass("a", 2, ["x"])
    ours.count += 1
    theirs.count += 1
    assert repr(ours).removeprefix("Counter") == repr(theirs).removeprefix("CounterByDataclass")
    assert ours == Counter("a", 3) and ours != Counter("a", 4) and ours != theirs
    assert Counter.__hash__ is None and not hasattr(ours, "__dict__")
    assert dataclasses.replace(ours, count=5) == Counter("a", 5)
    assert Counter.__eq__.__code__.co_filename == compiled
