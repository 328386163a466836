"""Journaled records: ``save()`` and ``restore()`` derived from a record's dataclass fields.

A keyframe (:mod:`engine.rewind.frames`) saves the fields of each record changed since the one
before and restores them on a rewind. Tuples written by hand per class had to be kept in step
with the fields, and a field added to a record but forgotten there silently kept its new value
across a rewind. So every field is journaled unless its metadata says otherwise:

- :data:`IDENTITY`: set when the record is made and never written again (a key, a creation tick);
- :data:`BOOKKEEPING`: the keyframes' own notes on the record, which they manage themselves:
  ``gen``, the debug mode's stamp, and ``versions`` (:data:`VERSIONS`).

A field holding a mutable value declares a copy rule (:func:`copy_rule`): ``save`` turns the value
into an immutable one and ``restore`` rebuilds it, because one save may be restored many times
(every rewind to its keyframe). A field with a ``default_factory`` (a mutable default) must have
one.

The two functions are generated per class as straight-line code, as :mod:`dataclasses` generates
``__init__``: a keyframe saves every record changed since the one before, and the generated
code is exactly what a hand-written tuple costs, which a loop over field names is not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, fields
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeVar, overload

from engine.model.compact_pickle import UNPICKLED
from engine.model.values import value

T = TypeVar("T")


class Journal(Enum):
    """How the journal treats a field (the ``"journal"`` key of its metadata)."""

    FIELD = "field"
    """Saved and restored (the default)."""
    IDENTITY = "identity"
    """Never changes after the record is made: nothing to save."""
    BOOKKEEPING = "bookkeeping"
    """The journal's own stamps; neither saved nor compared."""


IDENTITY: Mapping[str, Any] = MappingProxyType({"journal": Journal.IDENTITY})
"""Field metadata: set when the record is made and never written again."""

BOOKKEEPING: Mapping[str, Any] = MappingProxyType({"journal": Journal.BOOKKEEPING})
"""Field metadata: a keyframe stamp (``gen``), not part of the record's value."""

VERSIONS: Mapping[str, Any] = MappingProxyType({"journal": Journal.BOOKKEEPING, UNPICKLED: True})
"""Field metadata: the record's values at the keyframes that saved it
(:class:`engine.rewind.frames.Frames`), None until one does. A recording's, so not pickled nor
copied (:data:`~engine.model.compact_pickle.UNPICKLED`): the field is ``init=False``. Kept on the
record rather than in a dictionary by the record's ``id()`` (records are not hashable), which
made a keyframe look up every record touched since the one before in a table of every record
it ever saved."""


def copy_rule(save: Callable[[Any], Any], restore: Callable[[Any], Any]) -> Mapping[str, Any]:
    """Field metadata for a journaled field holding a mutable value: ``save`` makes an immutable
    copy of it and ``restore`` rebuilds a fresh value from that copy (possibly many times)."""
    return MappingProxyType({"journal": Journal.FIELD, "copy": (save, restore)})


def kind(f: Field) -> Journal:
    return f.metadata.get("journal", Journal.FIELD)


@value
class RecordJournal:
    """What the journal knows about one record class."""

    journaled: tuple[str, ...]
    """The fields ``save()`` returns, in order."""
    identity: tuple[str, ...]
    copied: tuple[str, ...]
    """The journaled fields with a copy rule."""
    identities: Callable[[Any], tuple]
    """A record's identity fields' values, as a tuple."""


def journal_of(cls: type) -> RecordJournal:
    return cls.__record_journal__  # type: ignore[attr-defined]


def _compile(source: str, scope: dict[str, Any]) -> dict[str, Any]:
    """Define the functions in ``source``, which may use the names in ``scope``."""
    exec(source, scope)
    return scope


@overload
def journaled(cls: type[T], *, hot: tuple[str, ...] = ()) -> type[T]: ...
@overload
def journaled(cls: None = None, *, hot: tuple[str, ...] = ()) -> Callable[[type[T]], type[T]]: ...
def journaled(cls: type[T] | None = None, *, hot: tuple[str, ...] = ()) -> Any:
    """Class decorator (outside ``@dataclass``), bare or with arguments: give ``cls`` ``save()``
    and ``restore(saved)`` over its journaled fields, applying each field's copy rule.

    ``hot`` names the fields that change between two saves of a record; the others (its *cold*
    fields) mostly do not. A keyframe saves a record again with its save before
    (``save(before)``): when the cold fields still hold the very objects saved there, the save
    is the hot fields' values and that earlier whole save, sharing its cold values. At seed
    000's sizes a job's 20 cold fields never changed between two of its saves, which cost 152
    bytes a save (7.9 MB of 52,000 saves) where the short one costs 72."""
    if cls is None:
        return lambda cls: _journaled(cls, hot)
    return _journaled(cls, hot)


def _journaled(cls: type[T], hot: tuple[str, ...]) -> type[T]:
    names, copies, identities = [], {}, []
    for f in fields(cls):  # type: ignore[arg-type]
        if kind(f) is Journal.IDENTITY:
            identities.append(f.name)
        elif kind(f) is Journal.FIELD:
            names.append(f.name)
            if "copy" in f.metadata:
                copies[f.name] = f.metadata["copy"]
            elif f.default_factory is not MISSING:
                raise TypeError(f"{cls.__name__}.{f.name} is mutable: it needs a copy rule")
    if unknown := set(hot) - set(names):
        raise TypeError(f"{cls.__name__}: hot fields {sorted(unknown)} are not journaled")
    cold = [name for name in names if name not in hot]
    if hot and len(cold) < 2:
        raise TypeError(
            f"{cls.__name__}: a short save is shorter than a whole one with two cold fields or more"
        )
    if hot and (copied := set(copies) & set(cold)):
        raise TypeError(
            f"{cls.__name__}: a field with a copy rule changes as a copy, so hot: {sorted(copied)}"
        )
    names = [*cold, *hot]  # a whole save: the cold fields first (a short save shares them)
    scope: dict[str, Any] = {}
    for name, (save, restore) in copies.items():
        scope[f"_save_{name}"], scope[f"_restore_{name}"] = save, restore
    saved = [f"_save_{name}(self.{name})" if name in copies else f"self.{name}" for name in names]
    targets = [f"_{name}" if name in copies else f"self.{name}" for name in names]
    rebuilt = "".join(f"    self.{name} = _restore_{name}(_{name})\n" for name in copies)
    identified = "".join(f"self.{name}, " for name in identities)
    if hot:
        short = len(hot) + 1
        hot_saved, hot_targets = saved[len(cold) :], targets[len(cold) :]
        same = " and ".join(f"before[{at}] is self.{name}" for at, name in enumerate(cold))
        source = (
            f"def save(self, before=None):\n"
            f"    if before is not None:\n"
            f"        if len(before) == {short}:\n"
            f"            before = before[-1]\n"
            f"        if {same}:\n"
            f"            return ({', '.join(hot_saved)}, before)\n"
            f"    return ({', '.join(saved)},)\n"
            f"def restore(self, saved, held=None):\n"
            f"    whole = saved[-1] if len(saved) == {short} else saved\n"
            f"    if held is not None and (held[-1] if len(held) == {short} else held) is whole:\n"
            f"        if whole is not saved:\n"
            f"            {', '.join(hot_targets)}, _ = saved\n"
            f"        else:\n"
            f"            {', '.join(['_'] * len(cold) + hot_targets)}, = saved\n"
            f"{_indented(rebuilt)}"
            f"        return\n"
            f"    if whole is not saved:\n"
            f"        {', '.join(hot_targets)}, saved = saved\n"
            f"        {', '.join(targets[: len(cold)] + ['_'] * len(hot))}, = saved\n"
            f"    else:\n"
            f"        {', '.join(targets)}, = saved\n{rebuilt}"
        )
    else:
        source = (
            f"def save(self, before=None):\n    return ({', '.join(saved)},)\n"
            f"def restore(self, saved, held=None):\n    {', '.join(targets)}, = saved\n{rebuilt}"
        )
    functions = _compile(f"{source}def identities(self):\n    return ({identified})\n", scope)
    functions["save"].__doc__ = (
        f"The journaled fields of a {cls.__name__}, copied where mutable; given its save before, "
        "maybe a short save (see :func:`journaled`)."
    )
    functions["restore"].__doc__ = (
        f"Set a {cls.__name__}'s journaled fields from ``save()``. Given ``held``, the save whose "
        "values it holds (not changed since), only the hot fields if the two share their cold "
        "ones: a rewind sets a job's 3 hot fields, not its 23."
    )
    for name in ("save", "restore"):
        functions[name].__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, functions[name])
    journal = RecordJournal(tuple(names), tuple(identities), tuple(copies), functions["identities"])
    cls.__record_journal__ = journal  # type: ignore[attr-defined]
    return cls


def _indented(lines: str) -> str:
    """Generated lines one level deeper."""
    return "".join(f"    {line}\n" for line in lines.splitlines())


def record_list(cls: type) -> Mapping[str, Any]:
    """Field metadata for a list of journaled ``cls`` records (an occurrence's attempts): the
    list and each record's fields are restored, the records themselves kept (others may hold
    them). The copy is flat, ``(record, field, ...)`` per record, generated like ``save``."""
    journal = journal_of(cls)
    if journal.copied:
        raise TypeError(f"{cls.__name__} has mutable fields: a list of them cannot be copied flat")
    values = ", ".join(f"_{name}" for name in journal.journaled)
    fields_ = ", ".join(f"record.{name}" for name in journal.journaled)
    functions = _compile(
        f"def save(records):\n    return tuple([(record, {fields_}) for record in records])\n"
        f"def restore(saved):\n    records = []\n"
        f"    for record, {values} in saved:\n        {fields_} = {values}\n"
        f"        records.append(record)\n    return records\n",
        {},
    )
    return copy_rule(functions["save"], functions["restore"])


def values(record: Any) -> tuple[tuple, tuple]:
    """Every field's value but the bookkeeping, saved as the journal saves it: identity fields,
    then ``save()`` (for the keyframes' debug mode, which compares them across a keyframe)."""
    return record.__record_journal__.identities(record), record.save()


def changed_field(record: Any, before: tuple[tuple, tuple]) -> tuple[str, Any, Any] | None:
    """The first field whose value differs from ``before`` (from :func:`values`), with the old
    and the new value; None if none does."""
    journal = journal_of(type(record))
    names = journal.identity + journal.journaled
    now = values(record)
    for name, was, new in zip(names, (*before[0], *before[1]), (*now[0], *now[1]), strict=True):
        if was != new:
            return name, was, new
    return None
