"""``@pickled_compactly``: a mutable record pickles as its class and its leading fields' values.

A snapshot of a service holds one :class:`~engine.model.records.Job` per job, most of whose 28
fields keep their defaults. Pickled the default way, a slotted dataclass is its class and a
dictionary of every slot's name and value, which unpickling sets one by one: with 20,000 jobs,
half of the snapshot's bytes and of its unpickling time. Pickled as ``(cls, values)``, with the
trailing values that are their field's default left out, unpickling calls the dataclass's own
``__init__`` with the values given, and the defaults fill the rest (a default factory makes a
fresh collection, as for a new record).

Pickles written the default way still load: the class keeps the default ``__setstate__``.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, TypeVar

T = TypeVar("T")


def pickled_compactly(cls: type[T]) -> type[T]:
    """Class decorator (outside ``@dataclass``): give ``cls`` a ``__reduce__`` of its class and
    its fields' values in order, up to the last that is not its field's default."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    for field in fields:
        if field.kw_only or not field.init:
            raise TypeError(f"{cls.__name__}.{field.name} is not a positional __init__ field")
    defaults = tuple(_default(field) for field in fields)
    values = operator.attrgetter(*(field.name for field in fields))

    def __reduce__(self: Any) -> tuple[type, tuple]:
        given = values(self)
        end = len(given)
        while end and _is_default(given[end - 1], defaults[end - 1]):
            end -= 1
        return cls, given[:end]

    __reduce__.__qualname__ = f"{cls.__qualname__}.__reduce__"
    cls.__reduce__ = __reduce__  # type: ignore[method-assign, assignment]
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
