"""``@pickled_compactly``: a mutable record pickles as its class and its leading fields' values.

A snapshot of a service holds one :class:`~engine.model.records.Job` per job, most of whose 28
fields keep their defaults. Pickled the default way, a slotted dataclass is its class and a
dictionary of every slot's name and value, which unpickling sets one by one: with 20,000 jobs,
half of the snapshot's bytes and of its unpickling time. Pickled as its class and its values,
with the trailing values that are their field's default left out, unpickling calls the
dataclass's own ``__init__`` with the values given, and the defaults fill the rest (a default
factory makes a fresh collection, as for a new record).

The values do not travel as a tuple (:func:`by_extend`): pickle keeps every tuple it loads in
its memo until the whole load ends, so a snapshot with 20,000 jobs held 40,000 dead tuples
(about 7 MB) through its load, and the memory they freed at its end stayed with the process,
in pools between the records that live on. They travel as the items of a list, which the
unpickler hands to the new record's ``extend`` in one list it drops at once.

Pickles written before still load: the class keeps the default ``__setstate__`` (slots written
as a dictionary), and a ``(cls, values)`` reduction calls the class with the values.
"""

from __future__ import annotations

import copy
import copyreg
import dataclasses
import operator
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def pickled_compactly(cls: type[T]) -> type[T]:
    """Class decorator (outside ``@dataclass``): ``cls`` pickles as its class and its fields'
    values in order, up to the last that is not its field's default."""
    return by_extend(cls, leading_values(cls))


UNPICKLED = "unpickled"
"""A field's metadata key: true for a field that is not part of the record's value but something
else's note on it (a recording's, :mod:`engine.rewind.frames`). It is left out of the pickle and
of copies, so it must not be an ``__init__`` parameter: a loaded or copied record gets its
default."""


def leading_values(cls: type) -> Callable[[Any], tuple]:
    """A function of a ``cls`` record: its fields' values in order, up to the last that is not
    its field's default (all of them positional ``__init__`` parameters), but those marked
    :data:`UNPICKLED`."""
    fields = []
    for field in dataclasses.fields(cls):
        if field.metadata.get(UNPICKLED):
            if field.init:
                raise TypeError(f"{cls.__name__}.{field.name} is not pickled: it needs init=False")
        elif field.kw_only or not field.init:
            raise TypeError(f"{cls.__name__}.{field.name} is not a positional __init__ field")
        else:
            fields.append(field)
    defaults = tuple(_default(field) for field in fields)
    if len(fields) < 2:  # attrgetter gives a tuple from two names on
        name = fields[0].name if fields else None
        values: Callable[[Any], tuple] = lambda self: (getattr(self, name),) if name else ()  # noqa: E731
    else:
        values = operator.attrgetter(*(field.name for field in fields))

    def leading(self: Any) -> tuple:
        given = values(self)
        end = len(given)
        while end and _is_default(given[end - 1], defaults[end - 1]):
            end -= 1
        return given[:end]

    return leading


def by_extend(cls: type[T], arguments: Callable[[Any], tuple]) -> type[T]:
    """Give ``cls`` a ``__reduce__`` that rebuilds a record as ``cls.__init__(record,
    *arguments(record))`` without a tuple of the arguments in the pickle.

    The record is made with ``cls.__new__`` (pickle's ``NEWOBJ``, its arguments an empty tuple,
    which is not memoized), and the arguments follow as list items (``APPENDS``): the unpickler
    passes them to the record's ``extend`` as one new list, which is freed once it returns. A
    record with no arguments to give (every field its default) is rebuilt by calling the class,
    as pickle makes no ``extend`` call for no items.
    ``copy`` would pass them to ``append`` one by one instead, so the class copies itself
    (``__copy__``, ``__deepcopy__``) as its pickle would rebuild it."""
    for name in ("extend", "__copy__", "__deepcopy__"):
        if name in cls.__dict__:
            raise TypeError(f"{cls.__qualname__} has its own {name}")

    def __reduce__(self: Any) -> tuple:
        values = arguments(self)
        if not values:  # pickle calls no ``extend`` for no items: the record would stay unset
            return type(self), ()
        return copyreg.__newobj__, (type(self),), None, iter(values)

    def extend(self: Any, values: list) -> None:
        self.__init__(*values)

    def __copy__(self: Any) -> Any:
        return type(self)(*arguments(self))

    def __deepcopy__(self: Any, memo: dict[int, Any]) -> Any:
        return type(self)(*copy.deepcopy(arguments(self), memo))

    extend.__doc__ = "Pickle's hook (``APPENDS``): set the fields as ``__init__`` would."
    for function in (__reduce__, extend, __copy__, __deepcopy__):
        function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"
        setattr(cls, function.__name__, function)
    return cls


_NO_DEFAULT = object()


def _default(field: dataclasses.Field) -> Any:
    """The value ``__init__`` gives ``field`` when it is not passed (a factory's: a new one)."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return _NO_DEFAULT


def _is_default(value: Any, default: Any) -> bool:
    """Whether ``value`` may be left to ``__init__``: its default, of the same type (``0`` is
    not ``False``, and an empty collection of another type is not the factory's)."""
    return value is default or (type(value) is type(default) and value == default)
