"""JSON request bodies as the positioned values the scenario readers take.

A job posted to the API is read by the same :class:`~engine.scenario.jobs.JobReader` as a job in
a scenario file, so it is accepted or refused with the same rules and messages. Those readers take
:mod:`engine.scenario.yaml_source` nodes; this module builds them from parsed JSON. A JSON body
has no lines worth quoting, so every node's position is the order in which it was met (line 1,
column N), and errors are reported by their key path (``notify[0].channel``), which the readers
compute themselves.

Bodies are bounded before they get here: :data:`MAX_BODY_BYTES` of text and :data:`MAX_DEPTH`
levels of nesting, checked by :func:`parse_body` (the JSON parser itself recurses), which also
refuses what no store can hold (NUL, lone surrogates) and integers too long to read, each with
its path, before anything reaches the engine or the database.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from itertools import count

from engine.scenario.errors import Position, path_index, path_key
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence

MAX_BODY_BYTES = 1024 * 1024
"""Largest request body accepted (413 above): a job document is a few hundred bytes."""
MAX_DEPTH = 32
"""Deepest nesting accepted in a body: a job's deepest key (``notify[0].on[0]``) is 4 levels."""
NUL = "\x00"
NUL_REFUSED = "text must not hold the NUL character (U+0000)"
"""Refused in any string of a request: PostgreSQL cannot store it in text or JSON."""
MAX_INTEGER_DIGITS = sys.int_info.default_max_str_digits
"""The longest integer a body may hold (4,300 digits): Python converts no longer one between
text and int (the engine's limits are far below it; the readers say so, with the field)."""


@dataclass(frozen=True, slots=True)
class BodyError(ValueError):
    """A body that is not acceptable JSON; ``path`` is where (empty for the whole body)."""

    path: str
    message: str


def parse_body(data: bytes) -> object:
    """The JSON value of ``data``, or :class:`BodyError`: not UTF-8, not JSON, too deep, or a
    value no store can hold (:func:`unstorable`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyError("", "the body is not UTF-8 text") from None
    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_integer,
            object_pairs_hook=_once_each,
        )
    except RecursionError:
        raise BodyError("", f"the body nests deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise BodyError("", f"invalid JSON: {error.msg} at character {error.pos}") from None
    if _depth(value) > MAX_DEPTH:
        raise BodyError("", f"the body nests deeper than {MAX_DEPTH} levels")
    refused = unstorable(value)
    if refused is not None:
        raise refused
    return value


@dataclass(frozen=True, slots=True)
class _TooLong:
    """An integer of more than :data:`MAX_INTEGER_DIGITS` digits, as parsed (the path of the
    field that holds it is only known once the whole body is)."""

    digits: int


def _integer(text: str) -> int | _TooLong:
    digits = len(text) - text.startswith("-")
    return _TooLong(digits) if digits > MAX_INTEGER_DIGITS else int(text)


def unstorable(value: object) -> BodyError | None:
    """The first string (a key or a value) no store can hold, or integer too long to read, as
    the error naming its path; None if there is none.

    NUL: PostgreSQL cannot store it in text or JSON; accepted, it failed the scheduler's journal
    commit, which ended the scheduler process. A lone surrogate (JSON's ``\\ud800``, which
    Python's parser turns into a string no UTF-8 encoder takes): accepted, it created a job
    that no answer could show, on SQLite, and stopped the scheduler on PostgreSQL."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if (refused := _text_refused(item)) is not None:
                return BodyError(path, refused)
        elif isinstance(item, _TooLong):
            message = f"expected a number of at most {MAX_INTEGER_DIGITS} digits, got {item.digits}"
            return BodyError(path, message)
        elif isinstance(item, dict):
            for key, child in item.items():
                where = path_key(path, _shown(key))
                if (refused := _text_refused(key)) is not None:
                    return BodyError(where, refused)
                stack.append((child, where))
        elif isinstance(item, list):
            stack.extend((child, path_index(path, i)) for i, child in enumerate(item))
    return None


def _text_refused(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None."""
    if NUL in text:
        return NUL_REFUSED
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # only a lone surrogate has no UTF-8 form
        return (
            f"text must be Unicode characters: a lone surrogate (U+{ord(text[error.start]):04X}) "
            "is half of a UTF-16 pair, and no store can hold it"
        )
    return None


def _shown(key: str) -> str:
    """A key as an answer can show it: its lone surrogates escaped (``\\ud800``)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _once_each(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object whose keys are each given once: Python's parser keeps the last of a key given
    twice, silently, where a scenario file's reader refuses it."""
    found: dict[str, object] = {}
    for key, value in pairs:
        if key in found:
            raise BodyError(_shown(key), f"{key!r} is given twice: give each key once")
        found[key] = value
    return found


def _refuse_constant(name: str) -> object:
    """NaN and Infinity are not JSON (Python's parser accepts them by default)."""
    raise BodyError("", f"invalid JSON: {name} is not a JSON number")


def _depth(value: object) -> int:
    """Nesting depth, iteratively (a recursive walk would fail where the limit should)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def to_node(value: object) -> Node:
    """``value`` (parsed JSON) as a positioned node; scalars keep the text a file would show."""
    return _Builder().node(value)


class _Builder:
    def __init__(self) -> None:
        self._columns = count(1)

    def _pos(self) -> Position:
        return Position(1, next(self._columns))

    def node(self, value: object) -> Node:
        pos = self._pos()
        if isinstance(value, dict):
            entries = tuple(
                (Scalar(str(key), self._pos(), str(key)), self.node(item))
                for key, item in value.items()
            )
            return Mapping(entries, pos)
        if isinstance(value, list):
            return Sequence(tuple(self.node(item) for item in value), pos)
        if value is None or isinstance(value, str | bool | int | float):
            return Scalar(value, pos, _text(value))
        raise TypeError(f"not a JSON value: {value!r}")


def _text(value: str | bool | int | float | None) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)
