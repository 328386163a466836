"""Errors that point at the line: every problem in a scenario file names where it is and why.

A scenario is validated completely before anything runs, and every problem found is kept, so a
user fixes a file in one pass instead of one error per run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place in a file, 1-based (PyYAML's marks are 0-based)."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class ScenarioError:
    """One problem: ``file:line:column: key.path: what was expected``."""

    source: str
    pos: Position | None
    path: str
    """The key path, e.g. ``jobs[2].daily``; empty for problems of the file as a whole."""
    message: str

    def __str__(self) -> str:
        where = self.source if self.pos is None else f"{self.source}:{self.pos}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ScenarioInvalid(Exception):
    """A file that must not run; ``errors`` holds every problem found, in file order."""

    def __init__(self, errors: Iterable[ScenarioError]) -> None:
        self.errors = sorted(errors, key=lambda e: e.pos or Position(0, 0))
        super().__init__("\n".join(str(error) for error in self.errors))


class Problems:
    """Collects the errors of one file; identical ones (a generated job repeating its template's
    mistake 2,000 times) are kept once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._errors: dict[tuple[Position | None, str, str], ScenarioError] = {}

    def add(self, pos: Position | None, path: str, message: str) -> None:
        self._errors.setdefault(
            (pos, path, message), ScenarioError(self.source, pos, path, message)
        )

    @property
    def errors(self) -> list[ScenarioError]:
        return list(self._errors.values())

    def __bool__(self) -> bool:
        return bool(self._errors)

    def raise_if_any(self) -> None:
        if self._errors:
            raise ScenarioInvalid(self._errors.values())


KEY_SYNONYMS: dict[str, tuple[str, ...]] = {
    "name": ("id", "scenario", "job", "worker"),
    "title": ("scenario",),
    "desc": ("description",),
    "job_id": ("id", "job"),
    "worker_id": ("worker", "id"),
    "deps": ("depends_on",),
    "dependencies": ("depends_on",),
    "requires": ("depends_on",),
    "after": ("depends_on",),
    "interval": ("every",),
    "period": ("every",),
    "start": ("first", "epoch"),
    "time": ("at",),
    "when": ("at",),
    "tz": ("timezone",),
    "zone": ("timezone",),
    "runtime": ("duration",),
    "retries": ("max_retries",),
    "end": ("until",),
    "stop": ("until",),
    "concurrencypolicy": ("overlap",),
    "concurrency_policy": ("overlap",),
    "overlap_policy": ("overlap",),
    "max_active_runs": ("max_active",),
    "concurrency": ("max_active",),
}
"""Words from other schedulers' files that no edit distance leads to the key meant, with the
keys each may mean, most likely first; the first one valid where the word was written wins."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest choice, or an empty string when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def did_you_mean_key(word: str, keys: Iterable[str]) -> str:
    """:func:`did_you_mean` for a key, which also knows the usual synonyms of the keys
    (``name`` for ``id``): an unknown id or name is only ever compared by spelling."""
    keys = list(keys)
    for synonym in KEY_SYNONYMS.get(word.lower(), ()):
        if synonym in keys:
            return f" (did you mean {synonym!r}?)"
    return did_you_mean(word, keys)


def one_of(choices: Iterable[str]) -> str:
    """``'a', 'b' or 'c'`` for messages."""
    quoted = [repr(choice) for choice in choices]
    if len(quoted) <= 1:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def path_key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def path_index(path: str, index: int) -> str:
    return f"{path}[{index}]"
