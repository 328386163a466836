"""Completion for the command line: command names, job and worker ids, keys and values.

``complete(line, engine)`` returns the whole line with its last word completed (what Textual's
suggester shows greyed after the cursor), or None. Candidates come from the engine at the current
tick, so a job scheduled a moment ago completes at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from engine.core import Engine
from engine.model import PRIORITY_LEVELS, CatchUp
from tui.model.commandline import COMMANDS, MODIFY_OPTIONS, SCHEDULE_OPTIONS
from tui.model.rows import natural_key

_VALUES = {
    "catch_up": [c.value for c in CatchUp],
    "priority": list(PRIORITY_LEVELS),
    "timeout": ["none"],
}


def complete(line: str, engine: Engine) -> str | None:
    """``line`` with its last word completed, or None when nothing fits."""
    words = line.split(" ")
    current = words[-1]
    before = [word for word in words[:-1] if word]
    head = line[: len(line) - len(current)]
    if not before:
        return _first(head, current, COMMANDS)
    spec = COMMANDS.get(before[0].lower())
    if spec is None or not spec.args:
        return None
    position = len(before) - 1
    kind = spec.args[min(position, len(spec.args) - 1)]
    if position >= len(spec.args) and kind != "option":
        return None
    return _first(head, current, _candidates(kind, current, before, engine))


def _candidates(kind: str, current: str, before: list[str], engine: Engine) -> Iterable[str]:
    if kind == "job":
        return sorted(engine.jobs, key=natural_key)
    if kind == "worker":
        return sorted(engine.workers, key=natural_key)
    if kind == "scheduled":
        job = engine.jobs.get(before[1]) if len(before) > 1 else None
        if job is None:
            return []
        ticks = list(job.open)
        if job.next_due is not None:
            ticks.append(job.next_due)
        return [str(tick) for tick in sorted(set(ticks))]
    if kind == "outcome":
        return ["ok", "fail"]
    if kind == "catch_up":
        return _VALUES["catch_up"]
    if kind == "option":
        keys = MODIFY_OPTIONS if before[0].lower() == "modify" else SCHEDULE_OPTIONS
        key, equals, _ = current.partition("=")
        if equals:
            return [f"{key}={value}" for value in _VALUES.get(key, [])]
        return [f"{key}=" for key in keys]
    if kind == "path":
        return _paths(current)
    return []


def _first(head: str, current: str, candidates: Iterable[str]) -> str | None:
    for candidate in candidates:
        if candidate.startswith(current) and candidate != current:
            return head + candidate
    return None


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
