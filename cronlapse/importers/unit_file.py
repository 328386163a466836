"""systemd unit files (systemd.syntax(7)): ``[Section]`` headers and ``Key=value`` settings.

Comments start with ``#`` or ``;``; a line ending in a backslash continues on the next (joined
with a space, as systemd does). Each setting keeps its line and the column of its value, so that
an importer's messages can point at it.

Time spans (systemd.time(7)) and booleans are read here too, as every unit type writes them;
which files make up a unit (its drop-ins) is :mod:`cronlapse.importers.drop_ins`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cronlapse.importers.files import ImportProblems, at
from engine.model.problems import Problem

_SECTION = re.compile(r"\[([^\[\]]+)\]")
_KEY = re.compile(r"[A-Za-z0-9_-]+")

_TIME_UNITS = {
    **dict.fromkeys(("usec", "us", "µs"), 1e-6),
    **dict.fromkeys(("msec", "ms"), 1e-3),
    **dict.fromkeys(("seconds", "second", "sec", "s", ""), 1.0),
    **dict.fromkeys(("minutes", "minute", "min", "m"), 60.0),
    **dict.fromkeys(("hours", "hour", "hr", "h"), 3600.0),
    **dict.fromkeys(("days", "day", "d"), 86400.0),
    **dict.fromkeys(("weeks", "week", "w"), 604800.0),
    **dict.fromkeys(("months", "month", "M"), 2629800.0),
    **dict.fromkeys(("years", "year", "y"), 31557600.0),
}
"""systemd.time(7)'s time span units (a month is 30.44 days, a year 365.25)."""
_SPAN_PART = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-zµ]*)")


@dataclass(frozen=True, slots=True)
class Setting:
    section: str
    key: str
    value: str
    path: str
    """The file it is in: a unit's settings and its drop-ins' are read as one list."""
    line: int
    column: int
    """1-based column of the value."""

    def problem(self, message: str, offset: int = 0) -> Problem:
        """A problem of this setting, at its value (``offset`` characters into it)."""
        return at(self.path, self.line, self.column + offset, f"{self.key}=: {message}")


def parse_unit(text: str, path: str) -> list[Setting]:
    """The settings of a unit file's text, in order; raises :class:`ImportProblems`."""
    settings: list[Setting] = []
    problems: list[Problem] = []
    section: str | None = None
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        start = number
        raw = lines[number]
        number += 1
        while raw.endswith("\\") and number < len(lines):
            raw = raw[:-1] + " " + lines[number]
            number += 1
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = _SECTION.fullmatch(line)
        if header:
            section = header[1]
            continue
        key, equals, value = raw.partition("=")
        if not equals or not _KEY.fullmatch(key.strip()):
            message = "expected [Section], Key=value or a # comment"
            problems.append(at(path, start + 1, 1, message))
        elif section is None:
            message = "expected a [Section] header before the first setting"
            problems.append(at(path, start + 1, 1, message))
        else:
            column = len(key) + 2 + len(value) - len(value.lstrip())
            settings.append(Setting(section, key.strip(), value.strip(), path, start + 1, column))
    if problems:
        raise ImportProblems(problems)
    return settings


def parse_timespan(text: str) -> float | None:
    """Seconds in a systemd time span (``90``, ``5min``, ``1h 30min``), None if not one."""
    position, total = 0, 0.0
    text = text.strip()
    if not text:
        return None
    while position < len(text):
        match = _SPAN_PART.match(text, position)
        if match is None or match.end() == position or match[2] not in _TIME_UNITS:
            return None
        total += float(match[1]) * _TIME_UNITS[match[2]]
        position = match.end()
    return total


def parse_boolean(text: str) -> bool | None:
    """systemd's booleans (``yes``/``no``, ``true``/``false``, ``on``/``off``, ``1``/``0``)."""
    value = text.strip().lower()
    if value in ("1", "yes", "y", "true", "t", "on"):
        return True
    if value in ("0", "no", "n", "false", "f", "off"):
        return False
    return None


MAX_SPAN_SECONDS = 1000 * 31_557_600
"""A thousand years: longer spans are refused where they are written, before their minutes
are counted (a span of 400 digits is infinite as a float)."""


def span_problem(seconds: float | None) -> str | None:
    """What is wrong with a parsed time span, None if nothing."""
    if seconds is None:
        return "expected a time span such as 90, 5min or 1h 30min"
    if seconds > MAX_SPAN_SECONDS:
        return "too long: expected a time span of at most 1000 years"
    return None
