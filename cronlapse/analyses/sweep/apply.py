"""Putting a variant's values into a scenario: edits of the parsed YAML tree, before it is read.

The scenario is parsed once (:func:`engine.scenario.yaml_source.parse_yaml`) and each variant is
a new tree with some nodes replaced, read by the same loader as any file: a value the scenario
could not hold is refused with the loader's message, at the place in the file it replaced. A
value for a key the file does not have is added to its mapping (``policy.order`` in a file with
no ``order``), so the loader decides whether the key exists at all.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from cronlapse.analyses.sweep.keys import WORKERS, Field, Item, KeyPath, Match, Value, VaryError
from engine.scenario.errors import Position
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence

_NUMBERED = re.compile(r"(.*?)([0-9]+)\Z")


def scalar(value: Value, pos: Position) -> Scalar:
    """A node for ``value`` as if the file had said it at ``pos``."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    return Scalar(value, pos, text)


def set_value(tree: Node, key: KeyPath, value: Value) -> Node:
    """``tree`` with ``value`` at ``key`` (``workers`` and ``seed`` as their module says)."""
    if key.special == WORKERS:
        assert isinstance(value, int)
        return _with_workers(tree, value)
    try:
        return _put(tree, key.steps, value, ())
    except _Missing as missing:
        where = _path_text(missing.reached)
        suggestion = closest_path(key.text, list(paths_in(tree)))
        raise VaryError(f"--vary {key}: the scenario has no {where}{suggestion}") from None


class _Missing(Exception):
    def __init__(self, reached: tuple) -> None:
        self.reached = reached


def _put(node: Node, steps: tuple, value: Value, done: tuple) -> Node:
    if not steps:
        return scalar(value, node.pos)
    step, rest = steps[0], steps[1:]
    here = (*done, step)
    if isinstance(step, Field):
        if not isinstance(node, Mapping):
            raise _Missing(here)
        entries = list(node.entries)
        for index, (name, child) in enumerate(entries):
            if name.text == step.name:
                entries[index] = (name, _put(child, rest, value, here))
                return Mapping(tuple(entries), node.pos)
        child = _put(Mapping((), node.pos), rest, value, here) if rest else scalar(value, node.pos)
        entries.append((Scalar(step.name, node.pos, step.name), child))
        return Mapping(tuple(entries), node.pos)
    if not isinstance(node, Sequence):
        raise _Missing(here)
    items = list(node.items)
    index = _item_index(items, step)
    if index is None:
        raise _Missing(here)
    items[index] = _put(items[index], rest, value, here)
    return Sequence(tuple(items), node.pos)


def _item_index(items: list[Node], step: Item | Match) -> int | None:
    if isinstance(step, Item):
        return step.index if step.index < len(items) else None
    for index, item in enumerate(items):
        if isinstance(item, Mapping):
            found = item.get(step.field)
            if isinstance(found, Scalar) and found.text == step.value:
                return index
    return None


def closest_path(wanted: str, paths: list[str]) -> str:
    """``; closest valid path: P`` for the path most like ``wanted``, or nothing."""
    close = difflib.get_close_matches(wanted, paths, n=1, cutoff=0.0)
    return f"; closest valid path: {close[0]}" if close else ""


def paths_in(node: Node, prefix: str = "") -> Iterator[str]:
    """Every key path in ``node``, lists' items by ``[id=...]`` when they have an id."""
    if isinstance(node, Mapping):
        for name, child in node.entries:
            path = f"{prefix}.{name.text}" if prefix else name.text
            yield path
            yield from paths_in(child, path)
    elif isinstance(node, Sequence):
        for index, item in enumerate(node.items):
            named = item.get("id") if isinstance(item, Mapping) else None
            label = f"[id={named.text}]" if isinstance(named, Scalar) else f"[{index}]"
            yield from paths_in(item, prefix + label)


def _path_text(steps: tuple) -> str:
    text = ""
    for step in steps:
        if isinstance(step, Field):
            text += f".{step.name}" if text else step.name
        elif isinstance(step, Item):
            text += f"[{step.index}]"
        else:
            text += f"[{step.field}={step.value}]"
    return text


def _with_workers(tree: Node, count: int) -> Node:
    """The first ``count`` workers of the file, then new ones named like its last."""
    if not isinstance(tree, Mapping):
        return tree
    current = tree.get(WORKERS)
    items = list(current.items) if isinstance(current, Sequence) else []
    pos = current.pos if current is not None else tree.pos
    kept = items[:count]
    taken = {_worker_id(item) for item in items}
    last = _worker_id(items[-1]) if items else None
    for name in _new_worker_ids(last, taken, count - len(kept)):
        kept.append(Scalar(name, pos, name))
    workers = Sequence(tuple(kept), pos)
    entries = [(key, workers if key.text == WORKERS else value) for key, value in tree.entries]
    if current is None:
        entries.append((Scalar(WORKERS, tree.pos, WORKERS), workers))
    return Mapping(tuple(entries), tree.pos)


def _worker_id(item: Node) -> str | None:
    if isinstance(item, Mapping):
        item = item.get("id")
    return item.text if isinstance(item, Scalar) else None


def _new_worker_ids(last: str | None, taken: set[str | None], needed: int) -> Iterator[str]:
    numbered = _NUMBERED.fullmatch(last) if last else None
    stem, width, number = ("worker-", 2, 0)
    if numbered is not None:
        stem, digits = numbered.groups()
        width, number = len(digits), int(digits)
    while needed > 0:
        number += 1
        name = f"{stem}{number:0{width}d}"
        if name not in taken:
            needed -= 1
            yield name
