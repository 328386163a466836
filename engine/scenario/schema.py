"""Typed reads of positioned YAML values, each reporting what it expected where it was wrong.

Every reader returns the value, or None after recording an error in :class:`Problems`; callers
build nothing from a None, and the loader refuses the file when any error was recorded. The
readers never stop at the first problem: a mapping with three bad keys reports three errors.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection
from collections.abc import Mapping as MappingType
from typing import TypeVar

from engine.model.problems import Code
from engine.scenario.errors import Problems, did_you_mean_key, one_of, path_index, path_key
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence

T = TypeVar("T")

MAX_TICK = 10**15
"""The largest tick a scenario may name: beyond seed 000's 10**12, small enough to stay exact."""


def describe(node: Node) -> str:
    """How a value reads in a message: ``a list``, ``the string 'x'``, ``the number 5``."""
    if isinstance(node, Mapping):
        return "a mapping"
    if isinstance(node, Sequence):
        return "a list"
    value = node.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"the string {shown!r}"
    return f"the number {node.text}"


class Reader:
    """Reads values out of a positioned tree into ``problems``."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems

    def error(self, node: Node, path: str, message: str) -> None:
        """Record a problem at ``node``, unless it stands in for one already reported."""
        if isinstance(node, Scalar) and node.poisoned:
            return
        self.problems.add(node.pos, path, message)

    def expected(self, node: Node, path: str, what: str) -> None:
        self.error(node, path, f"expected {what}, got {describe(node)}")

    # ------------------------------------------------------------- containers

    def mapping(
        self,
        node: Node,
        path: str,
        keys: Collection[str],
        required: Collection[str] = (),
    ) -> dict[str, Node] | None:
        """The entries of a mapping whose keys are all in ``keys``; unknown keys are reported
        with the nearest valid one, missing required keys at the mapping."""
        if not isinstance(node, Mapping):
            what = "a mapping"
            if required:
                what += " with " + ", ".join(repr(key) for key in required)
            self.expected(node, path, what)
            return None
        entries: dict[str, Node] = {}
        for key, value in node.entries:
            if key.text in keys:
                entries[key.text] = value
                continue
            hint = did_you_mean_key(key.text, keys)
            message = f"unknown key {key.text!r}{hint}"
            if not hint:
                message += f": expected {one_of(sorted(keys))}"
            self.problems.add(
                key.pos, path_key(path, key.text), message, Code.UNKNOWN_KEY, key.text
            )
        for key in required:
            if key not in entries:
                self.error(node, path, f"missing required key {key!r}")
        return entries

    def sequence(self, node: Node, path: str, what: str = "a list") -> tuple[Node, ...] | None:
        if isinstance(node, Sequence):
            return node.items
        self.expected(node, path, what)
        return None

    def items(self, node: Node, path: str, what: str = "a list") -> list[tuple[str, Node]]:
        """``(path, item)`` for each item of a list (none when it is not a list)."""
        items = self.sequence(node, path, what) or ()
        return [(path_index(path, index), item) for index, item in enumerate(items)]

    # ---------------------------------------------------------------- scalars

    def integer(
        self, node: Node, path: str, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        """A whole number in ``[minimum, maximum]``."""
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, int) or isinstance(value, bool):
            self.expected(node, path, _range_text("a whole number", minimum, maximum))
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            self.expected(node, path, _range_text("a whole number", minimum, maximum))
            return None
        return value

    def tick(self, node: Node, path: str, minimum: int = 0) -> int | None:
        return self.integer(node, path, minimum, MAX_TICK)

    def number(self, node: Node, path: str, minimum: float, maximum: float) -> float | None:
        """A finite number (whole or decimal) in ``[minimum, maximum]``."""
        value = node.value if isinstance(node, Scalar) else None
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
        ):
            self.expected(node, path, f"a number from {minimum} to {maximum}")
            return None
        if not minimum <= value <= maximum:
            self.expected(node, path, f"a number from {minimum} to {maximum}")
            return None
        return float(value)

    def string(self, node: Node, path: str, what: str = "a string") -> str | None:
        """A non-blank string."""
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, str):
            self.expected(node, path, what)
            return None
        if not value.strip():
            self.error(node, path, f"expected {what}, got a blank string")
            return None
        return value

    def identifier(self, node: Node, path: str, what: str) -> str | None:
        """An id as written: a string, or a bare number such as ``7`` read as ``"7"``.

        Ids end up in seed 000's ``job,scheduled,attempt,worker`` strings, so commas are refused.
        """
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(value, int) and not isinstance(value, bool):
            assert isinstance(node, Scalar)
            value = node.text
        if not isinstance(value, str) or not value.strip():
            self.expected(node, path, what)
            return None
        if "," in value or len(value) > 100:
            self.error(
                node, path, f"{value[:40]!r} is not a valid id: use 1-100 characters, no ','"
            )
            return None
        return value

    def boolean(self, node: Node, path: str) -> bool | None:
        value = node.value if isinstance(node, Scalar) else None
        if not isinstance(value, bool):
            self.expected(node, path, "true or false")
            return None
        return value

    def choice(self, node: Node, path: str, choices: MappingType[str, T]) -> T | None:
        """One of ``choices``' names (case-insensitive), as its value."""
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(value, str):
            for name, result in choices.items():
                if name.lower() == value.lower():
                    return result
            lowered = {name.lower(): name for name in choices}
            close = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
            hint = f" (did you mean {lowered[close[0]]!r}?)" if close else ""
            self.error(node, path, f"expected {one_of(choices)}, got {value!r}{hint}")
            return None
        self.expected(node, path, one_of(choices))
        return None


def is_null(node: Node | None) -> bool:
    return isinstance(node, Scalar) and node.value is None and not node.poisoned


def _range_text(what: str, minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"{what} from {minimum} to {maximum}"
    if minimum is not None:
        return f"{what} >= {minimum}"
    if maximum is not None:
        return f"{what} <= {maximum}"
    return what
