"""Completion for the command line: command names, job and worker ids, keys and values.

``candidates(line, engine)`` gives every way to complete the last word (tab shows them and
cycles through them); ``complete(line, engine)`` the whole line with the first of them (what
Textual's suggester shows greyed after the cursor), or None. What each word is comes from the
command tables (:data:`~tui.model.commandline.COMMANDS`: the engine's vocabulary and the
dashboard's own commands); candidates come from the engine at the current tick, so a job
scheduled a moment ago completes at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple

from engine.core import Engine
from engine.model.records import BackfillOrder, CatchUp
from engine.scenario.vocabulary import OPTIONS, Verb
from tui.model.commandline import COMMANDS, AppCommand
from tui.model.rows import natural_key


class Candidates(NamedTuple):
    """The ways to complete a line's last word: ``head + word`` for each word in ``words``."""

    head: str
    words: list[str]

    def line(self, index: int) -> str:
        return self.head + self.words[index]


def complete(line: str, engine: Engine) -> str | None:
    """``line`` with its last word completed, or None when nothing fits."""
    found = candidates(line, engine)
    return found.line(0) if found.words else None


def candidates(line: str, engine: Engine) -> Candidates:
    """Every word that completes the last word of ``line`` (not the word itself), in order."""
    words = line.split(" ")
    current = words[-1]
    before = [word for word in words[:-1] if word]
    head = line[: len(line) - len(current)]
    if not before:
        return _matching(head, current, COMMANDS)
    spec = COMMANDS.get(before[0].lower())
    kinds = () if spec is None else _kinds(spec)
    if not kinds:
        return Candidates(head, [])
    position = len(before) - 1
    kind = kinds[min(position, len(kinds) - 1)]
    if position >= len(kinds) and kind != "option":
        return Candidates(head, [])
    assert spec is not None
    return _matching(head, current, _candidates(spec, kind, current, before, engine))


def _kinds(spec: Verb | AppCommand) -> tuple[str, ...]:
    """What each word after the command's name is: its arguments, then options if it has any."""
    if isinstance(spec, AppCommand):
        return spec.args
    return tuple(param.kind for param in spec.params) + (("option",) if spec.options else ())


def _candidates(
    spec: Verb | AppCommand, kind: str, current: str, before: list[str], engine: Engine
) -> Iterable[str]:
    if kind == "job":
        return sorted(engine.query.jobs(), key=natural_key)
    if kind == "worker":
        return sorted(engine.query.workers(), key=natural_key)
    if kind == "scheduled":
        job = engine.query.job(before[1]) if len(before) > 1 else None
        if job is None:
            return []
        ticks = list(job.open)
        if job.next_due is not None:
            ticks.append(job.next_due)
        return [str(tick) for tick in sorted(set(ticks))]
    if kind == "outcome":
        return ["ok", "fail"]
    if kind == "catch_up":
        return [c.value for c in CatchUp]
    if kind == "order":
        return [order.value for order in BackfillOrder]
    if kind == "option" and isinstance(spec, Verb):
        key, equals, _ = current.partition("=")
        if equals:
            option = OPTIONS.get(key)
            return [f"{key}={value}" for value in (option.values if option else ())]
        return [f"{key}=" for key in spec.options]
    if kind == "path":
        return _paths(current)
    return []


def _matching(head: str, current: str, words: Iterable[str]) -> Candidates:
    return Candidates(
        head, [word for word in words if word.startswith(current) and word != current]
    )


def _paths(current: str) -> list[str]:
    """Files and directories that start with ``current`` (directories end in ``/``)."""
    directory, _, prefix = current.rpartition("/")
    base = directory or "."
    try:
        names = sorted(os.listdir(os.path.expanduser(base) if directory else base))
    except OSError:
        return []
    found = []
    for name in names:
        if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
            continue
        path = f"{directory}/{name}" if directory else name
        if os.path.isdir(os.path.expanduser(path)):
            path += "/"
        found.append(path)
    return found
