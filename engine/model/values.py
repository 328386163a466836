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

A wide value (``WIDE`` fields or more: a job definition has 21) is built faster still. A call of a
slot's descriptor costs about 0.1 µs, a plain ``self.field = ...`` on a class without a
``__setattr__`` of its own a fifth of that; so its ``__init__`` turns the object into a private
subclass that adds nothing but the default ``__setattr__``, assigns the fields plainly, and turns
it back (a job definition: 3.0 µs to 1.2 µs). Below ``WIDE`` fields the two class changes cost
more than they save.

``@mutable_record`` is the mutable counterpart for the engine's records: ``@dataclass(slots=True)``
with ``__repr__`` and ``__eq__`` made as a value's are, on their first call.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from typing import Any, TypeVar

from engine.model.compact_pickle import by_extend, leading_values

T = TypeVar("T")

WIDE = 8
"""From this many fields on, ``__init__`` assigns through the unfrozen builder class."""


def value(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass with a fast ``__init__``."""
    own = _own_methods(cls)
    # dataclass generates no __init__, __repr__, __eq__ or __hash__ here: it compiles each of them
    # for each class, which was half of what a server's restart spent importing its modules.
    # They are made below from the fields: __init__ as before, the others on their first call.
    # A class without a docstring gets one here: dataclass would write it from the signature
    # of object.__init__ (init=False), read through inspect and tokenize.
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    # Not dataclass's frozen=True: it compiles a __setattr__ and a __delattr__ for each class,
    # a tenth of what ``cronlapse run`` spent importing; every value shares the ones below.
    made = _frozen_by_shared_hooks(
        dataclasses.dataclass(slots=True, init=False, repr=False, eq=False)(_without_own_hooks(cls))
    )
    if undocumented:  # what dataclass writes, without the types
        made.__doc__ = f"{cls.__name__}({', '.join(f.name for f in dataclasses.fields(made))})"
    made.__init__ = _init_on_first_call(made)  # type: ignore[misc]
    for name, method in _compared(made).items():
        if name not in own:
            setattr(made, name, method)
    # Pickled as its class and its fields' values up to the last that is not its default, so
    # unpickling runs the fast ``__init__``: the dataclass's own ``__setstate__`` looks the
    # fields up again for every object, a fifth of a service's restart with 20,000 jobs.
    # Pickles written as the class and a tuple of every field's value, or by the dataclass's
    # ``__getstate__``, still load.
    return by_extend(made, leading_values(made))


def mutable_record(cls: type[T]) -> type[T]:
    """Make ``cls`` a mutable, slotted dataclass, ``@dataclass(slots=True)``, whose ``__repr__``
    and ``__eq__`` are compiled on their first call, as a value's are: dataclass compiles both
    for each class, and the engine's records are compared and shown in tests and debugging only
    (``cronlapse run`` of seed-000-example-1: 9 M of its 716 M instructions, callgrind)."""
    own = _own_methods(cls)
    made = dataclasses.dataclass(slots=True, repr=False, eq=False)(cls)
    for name, method in _compared(made).items():
        if name in ("__repr__", "__eq__") and name not in own:
            setattr(made, name, method)
    if "__eq__" not in own:
        made.__hash__ = None  # type: ignore[assignment]  # as dataclass leaves a mutable class
    return made


def _own_methods(cls: type) -> set[str]:
    """Which of ``__repr__``, ``__eq__`` and ``__hash__`` the body of ``cls`` defines."""
    own = {name for name in ("__repr__", "__eq__", "__hash__") if name in cls.__dict__}
    if "__hash__" in own and cls.__dict__["__hash__"] is None and "__eq__" in own:
        own.discard("__hash__")  # set by Python for a class body's __eq__, not by its author
    return own


def is_value(cls: type) -> bool:
    """Whether ``cls`` is frozen by ``@value`` (or inherits from such a class): dataclass's own
    ``__dataclass_params__.frozen`` is False for it, since dataclass did not freeze it."""
    return getattr(cls, "__setattr__", None) is _frozen_setattr


def _without_own_hooks(cls: type[T]) -> type[T]:
    """``cls``, refused as dataclass refuses a frozen class that assigns its own way."""
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    return cls


def _frozen_by_shared_hooks(cls: type[T]) -> type[T]:
    """``cls`` with what dataclass gives a frozen slotted class, the same functions for all:
    assignment refused, and the state as the list of the fields' values (for pickles of that
    form: a value pickles by :func:`~engine.model.compact_pickle.by_extend`)."""
    cls.__setattr__ = _frozen_setattr  # type: ignore[assignment,method-assign]
    cls.__delattr__ = _frozen_delattr  # type: ignore[assignment,method-assign]
    for name, hook in (("__getstate__", _field_values), ("__setstate__", _set_field_values)):
        if name not in cls.__dict__:
            setattr(cls, name, hook)
    return cls


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    """A value's ``__setattr__``, what dataclass compiles for a frozen class, shared by all:
    refuses its fields (any name, on the value class itself), with dataclass's error."""
    if _frozen(type(self), name):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    """A value's ``__delattr__``: refuses as :func:`_frozen_setattr` does."""
    if _frozen(type(self), name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _frozen(cls: type, name: str) -> bool:
    """Whether attribute ``name`` is frozen on an instance of ``cls``: every name on a value
    class, the fields on a plain subclass of one (which may add slots of its own)."""
    return "__dataclass_fields__" in cls.__dict__ or name in cls.__dataclass_fields__  # type: ignore[attr-defined]


def _field_values(self: Any) -> list[Any]:
    """``__getstate__`` as dataclass gives a frozen slotted class: the fields' values."""
    return [getattr(self, field.name) for field in dataclasses.fields(self)]


def _set_field_values(self: Any, state: list[Any]) -> None:
    """``__setstate__`` as dataclass gives a frozen slotted class, for pickles of that form."""
    for field, field_value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, field.name, field_value)


def _compared(cls: type) -> dict[str, Any]:
    """``__repr__``, ``__eq__`` and ``__hash__`` as ``dataclass`` generates them for a frozen
    class (the fields shown, ``repr``, and compared, ``compare``, in order, as a tuple), each
    compiled the first time one of them is called: a class whose values are never compared,
    hashed or shown (most events in a server) compiles none, and the others compile once the
    same code dataclass would, as fast."""
    fields = dataclasses.fields(cls)
    shown = [field.name for field in fields if field.repr]
    compared = [field.name for field in fields if field.compare]
    hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]

    def compiled() -> dict[str, Any]:
        def attributes(owner: str, names: list[str]) -> str:
            return "(" + "".join(f"{owner}.{name}," for name in names) + ")"

        pairs = ", ".join(f"{name}={{self.{name}!r}}" for name in shown)
        source = "\n".join(
            [
                "def __repr__(self):",
                f'    return self.__class__.__qualname__ + f"({pairs})"',
                "def __eq__(self, other):",
                "    if other.__class__ is self.__class__:",
                f"        return {attributes('self', compared)} == {attributes('other', compared)}",
                "    return NotImplemented",
                "def __hash__(self):",
                f"    return hash({attributes('self', hashed)})",
            ]
        )
        namespace: dict[str, Any] = {}
        exec(source, namespace)
        namespace["__repr__"] = reprlib.recursive_repr()(namespace["__repr__"])
        return {name: namespace[name] for name in ("__repr__", "__eq__", "__hash__")}

    def lazily(name: str) -> Any:
        def first_call(self: Any, *args: Any) -> Any:
            for method_name, method in compiled().items():
                if cls.__dict__.get(method_name) in stubs:
                    method.__qualname__ = f"{cls.__qualname__}.{method_name}"
                    setattr(cls, method_name, method)
            return cls.__dict__[name](self, *args)

        first_call.__name__ = first_call.__qualname__ = name
        return first_call

    methods = {name: lazily(name) for name in ("__repr__", "__eq__", "__hash__")}
    stubs = list(methods.values())
    return methods


def _init_on_first_call(cls: type) -> Any:
    """An ``__init__`` that compiles ``cls``'s own (:func:`_fast_init`) when first called, puts
    it in its place and runs it. Most values a command imports are never built (``cronlapse
    run`` of seed-000-example-1 builds 36 of its 119 classes): compiled when made, they cost
    that run 21 M of its 737 M instructions (callgrind). It has the signature the compiled one
    has (``MISSING`` for a default factory's parameter)."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for field in dataclasses.fields(cls):
        if field.kw_only or not field.init:
            raise TypeError(
                f"@value does not support keyword-only or non-init fields ({field.name})"
            )
        default = field.default
        if default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            default = inspect.Parameter.empty
        parameters.append(
            inspect.Parameter(field.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
        )

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _fast_init(cls)
        cls.__init__ = init  # type: ignore[misc]
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return __init__


def _fast_init(cls: type) -> Any:
    """``cls``'s ``__init__``: each field stored through its slot's descriptor (see the module's
    docstring), or for a wide value assigned through its builder class."""
    namespace: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    parameters, defaults, stores, plain = [], [], [], []
    for field in dataclasses.fields(cls):
        name = field.name
        namespace[f"_set_{name}"] = _slot(cls, name).__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=MISSING")
            defaults.append(f"    if {name} is MISSING: {name} = _factory_{name}()")
        else:
            parameters.append(name)
        stores.append(f"    _set_{name}(self, {name})")
        plain.append(f"        self.{name} = {name}")
    body = defaults + stores
    if len(stores) >= WIDE:
        namespace["_cls"], namespace["_builder"] = cls, _builder(cls)
        namespace["_set_class"] = object.__setattr__
        body = [
            *defaults,
            "    if type(self) is _cls:",
            '        _set_class(self, "__class__", _builder)',
            *plain,
            "        self.__class__ = _cls",
            "    else:  # a subclass that did not define its own __init__",
            *("    " + line for line in stores),
        ]
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _builder(cls: type) -> type:
    """A subclass of ``cls`` with the same layout and the default attribute assignment (both
    hooks: ``__setattr__`` and ``__delattr__`` fill one type slot), so that a plain assignment
    takes the fast path. It shows among ``cls.__subclasses__()``, but no instance of it outlives
    the ``__init__`` that made it."""
    return type(
        f"_{cls.__name__}Builder",
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
            "__qualname__": f"_{cls.__qualname__}Builder",
        },
    )


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of slot ``name``, wherever in the class's ancestry it is declared."""
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__slots__", ()):
            return klass.__dict__[name]
    raise TypeError(f"{cls.__qualname__}.{name} is not a slot")
