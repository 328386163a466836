"""Errors that point at the line: every problem in a scenario file names where it is and why.

A scenario is validated completely before anything runs, and every problem found is kept, so a
user fixes a file in one pass instead of one error per run. Each is a
:class:`~engine.model.problems.Problem` (``file:line:column: key.path: message``), the one type
every refusal in cronlapse has.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.model.problems import Code, Problem


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place in a file, 1-based (PyYAML's marks are 0-based)."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


def located(
    source: str,
    pos: Position | None,
    path: str,
    message: str,
    code: Code | None = None,
    subject: str = "",
) -> Problem:
    """The problem at ``pos`` of ``source`` (None: of the file as a whole)."""
    line, column = (None, None) if pos is None else (pos.line, pos.column)
    return Problem(source, line, column, path, message, code, subject)


class ScenarioInvalid(Exception):
    """A file that must not run; ``problems`` holds every problem found, in file order."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(problems, key=lambda problem: problem.order)
        super().__init__("\n".join(str(problem) for problem in self.problems))


class Problems:
    """Collects the problems of one file; identical ones (a generated job repeating its
    template's mistake 2,000 times) are kept once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._found: dict[tuple[Position | None, str, str], Problem] = {}

    def add(
        self,
        pos: Position | None,
        path: str,
        message: str,
        code: Code | None = None,
        subject: str = "",
    ) -> None:
        key = (pos, path, message)
        if key not in self._found:
            self._found[key] = located(self.source, pos, path, message, code, subject)

    def __iter__(self) -> Iterator[Problem]:
        return iter(list(self._found.values()))

    def __bool__(self) -> bool:
        return bool(self._found)

    def raise_if_any(self) -> None:
        if self._found:
            raise ScenarioInvalid(self._found.values())


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
