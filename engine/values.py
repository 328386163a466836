"""``@value``: a frozen, slotted dataclass that is cheap to build.

The engine builds small immutable values on every call and every event (commands, events, results,
ready entries, job definitions). ``@dataclass(frozen=True)`` generates an ``__init__`` that sets
each field through ``object.__setattr__``, looked up anew per field: measured here, a 14-field
frozen value took 5 to 7 times as long to build as the same class unfrozen, and seed 000's maximum
workload builds a few hundred thousand of them.

``@value`` keeps everything ``dataclass(frozen=True, slots=True)`` gives (equality, hashing, repr,
pattern matching, ``FrozenInstanceError`` on assignment, ``dataclasses.replace``) and swaps only
the ``__init__`` for one that stores each field through its slot's descriptor, fetched once when
the class is made. The generated ``__init__`` takes the same parameters with the same defaults,
and runs ``__post_init__`` if the class has one.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def value(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass with a fast ``__init__``."""
    made = dataclasses.dataclass(frozen=True, slots=True)(cls)
    made.__init__ = _fast_init(made)  # type: ignore[misc]
    return made


def _fast_init(cls: type) -> Any:
    namespace: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    parameters, body = [], []
    for field in dataclasses.fields(cls):
        name = field.name
        if field.kw_only or not field.init:
            raise TypeError(f"@value does not support keyword-only or non-init fields ({name})")
        namespace[f"_set_{name}"] = _slot(cls, name).__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=MISSING")
            body.append(f"    if {name} is MISSING: {name} = _factory_{name}()")
        else:
            parameters.append(name)
        body.append(f"    _set_{name}(self, {name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    return init


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of slot ``name``, wherever in the class's ancestry it is declared."""
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__slots__", ()):
            return klass.__dict__[name]
    raise TypeError(f"{cls.__qualname__}.{name} is not a slot")
