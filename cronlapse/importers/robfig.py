"""Kubernetes' cron dialect: robfig/cron v3's ``ParseStandard``, which reads ``spec.schedule``.

It is apart from :mod:`cronlapse.importers.kubernetes` (the manifest's fields) because Kubernetes
does not read schedules as Debian cron does, which cronlapse's own parser (cronsim) follows: the
two day fields are ORed unless one has robfig's "star bit" (:func:`robfig_days`), the bounds
differ (no ``L``, ``W`` or ``#``, no day-of-week 7, nicknames compared as written), and
``@every DURATION`` takes Go's durations (:func:`every_minutes`). This module writes a schedule
so that cronlapse's cron fires when robfig's does, or refuses what robfig refuses.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from engine.schedules.calendar import ScheduleError

NICKNAMES = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
"""robfig/cron's descriptors, as written: it compares them case-sensitively."""
_DAY_FIELDS = {2: ("day-of-month", 1, 31), 4: ("day-of-week", 0, 6)}
"""robfig/cron's bounds for the two day fields: a day-of-week 7 (Sunday to Debian cron) is out."""
_DAY_EXPECTED = {
    "day-of-month": "1-31",
    "day-of-week": "0-6 (Sunday is 0) or sun-sat",
}
_FORMS = "as a single value, a range a-b, a step */n or a-b/n, or a comma-separated list"
_WEEKDAYS = frozenset({"sun", "mon", "tue", "wed", "thu", "fri", "sat"})
_GO_UNITS = {
    "ns": 1,
    "us": 10**3,
    "\u00b5s": 10**3,
    "\u03bcs": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
"""Go's ``time.ParseDuration`` units, in nanoseconds."""
_GO_COMPONENT = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
_GO_MAX = 2**63 - 1
"""A Go duration is an int64 of nanoseconds: ParseDuration refuses more."""


def robfig_expression(text: str) -> str:
    """``text`` as cronlapse's cron (Debian's rules, by cronsim) must be written to fire when
    robfig/cron v3 fires it, or ScheduleError for what robfig refuses and cronsim would take.

    - Nicknames are compared as written (``@DAILY`` is unknown to robfig).
    - ``L``, ``W`` and ``#`` are not robfig's; its day-of-week is 0-6, with no 7 for Sunday.
    - ``?`` is robfig's ``*``; cronsim has none.
    - The day fields: robfig ANDs them when either has its "star bit", set by a ``*`` (or ``?``)
      without a step above 1, and ORs them otherwise, so ``0 12 */2 * 1`` is every odd day OR
      any Monday; Debian's rule ANDs them when either field starts with ``*``. Where the two
      rules differ, the fields are written so that Debian's gives robfig's answer: a ``*/2``
      without the bit as ``1-31/2``, a field with the bit as ``*`` (:func:`robfig_days`).
    """
    if text.startswith("@"):
        if text not in NICKNAMES:
            raise ScheduleError(
                "expression",
                f"unknown nickname {text!r}: expected one of {', '.join(NICKNAMES)} (in lower "
                "case: Kubernetes' parser compares them as written), or @every DURATION",
            )
        return text
    fields = text.split()
    if len(fields) != 5:
        return text  # cronlapse's own parser says what is expected
    for index, (name, _, high) in _DAY_FIELDS.items():
        _refuse_robfig_days(name, fields[index], high)
    fields = [
        part if index in _DAY_FIELDS else part.replace("?", "*")
        for index, part in enumerate(fields)
    ]
    fields[2], fields[4] = robfig_days(fields[2], fields[4])
    written = " ".join(fields)
    return text if written == " ".join(text.split()) else written


def _refuse_robfig_days(name: str, field: str, high: int) -> None:
    """What robfig refuses in a day field and cronsim takes: ``L``, ``W``, ``#``, a weekday 7."""
    expected = f"expected {_DAY_EXPECTED[name]}, {_FORMS}"
    for element in field.split(","):
        if "#" in element:
            message = (
                f"{name} field {field!r}: Kubernetes' parser (robfig/cron) has no #: {expected}"
            )
            raise ScheduleError(name, message)
        values = element.split("/")[0]
        for token in values.split("-"):
            letters = token.upper()
            if token in ("*", "?") or token.lower() in _WEEKDAYS:
                continue
            if token.isdigit():
                if int(token) > high:
                    message = f"{name} field {field!r}: {expected}"
                    if name == "day-of-week":
                        message += " (Kubernetes' parser, robfig/cron, has no 7)"
                    raise ScheduleError(name, message)
                continue
            for letter in ("L", "W"):
                if letter in letters:
                    message = (
                        f"{name} field {field!r}: Kubernetes' parser (robfig/cron) has no "
                        f"{letter}: {expected}"
                    )
                    raise ScheduleError(name, message)


def robfig_days(dom: str, dow: str) -> tuple[str, str]:
    """The two day fields written for Debian's rule so that it answers as robfig's does.

    robfig ORs the fields unless one has the star bit (a ``*`` or ``?`` element with no step
    above 1); Debian ANDs them when one starts with ``*``. A field with the bit means every day
    and is written ``*``; a field without it that starts with ``*`` (``*/2``) has its stars
    written as the range they stand for (``1-31/2``) when the other field has no bit either
    (else both rules AND, and it stays as written). cronsim has no ``?``: it is always
    rewritten."""
    dom_star, dow_star = _star_bit(dom), _star_bit(dow)
    (_, dom_low, dom_high), (_, dow_low, dow_high) = _DAY_FIELDS.values()
    return (
        _robfig_day(dom, dom_star, dow_star, dom_low, dom_high),
        _robfig_day(dow, dow_star, dom_star, dow_low, dow_high),
    )


def _robfig_day(days: str, star: bool, other_star: bool, low: int, high: int) -> str:
    """One day field for :func:`robfig_days`, given its star bit and the other field's."""
    if star:
        return days if days.startswith("*") and "?" not in days else "*"
    if (days.startswith("*") and not other_star) or "?" in days:
        return ",".join(_as_range(element, low, high) for element in days.split(","))
    return days


def _star_bit(field: str) -> bool:
    """Whether robfig sets its star bit for the field: one element is ``*`` or ``?`` with no
    step above 1 (``getRange`` clears the bit for a step above 1)."""
    for element in field.split(","):
        values, _, step = element.partition("/")
        if values in ("*", "?") and (not step or (step.isdigit() and int(step) <= 1)):
            return True
    return False


def _as_range(element: str, low: int, high: int) -> str:
    """A ``*`` or ``?`` element as the range it covers, its step kept (``*/2``: ``1-31/2``)."""
    values, slash, step = element.partition("/")
    return f"{low}-{high}{slash}{step}" if values in ("*", "?") else element


def every_minutes(text: str) -> int:
    """The minutes of ``@every DURATION`` (robfig/cron: a constant delay, ``time.ParseDuration``'s
    syntax, its fraction of a second dropped, one second at least). A tick is a minute, so a
    delay that is not whole minutes is refused rather than rounded. The first run comes one
    delay after the CronJob's creation, which the importer takes as the scenario's start."""
    duration = text.removeprefix("@every ")
    nanoseconds = _go_duration(duration)
    if nanoseconds is None:
        raise ScheduleError(
            "expression",
            f"{text}: {duration!r} is not a Go duration: expected a number and a unit (h, m, s, "
            "ms, us, ns), such as 2h or 1h30m",
        )
    seconds = max(1, nanoseconds // 10**9)
    if seconds % 60:
        unit = "second" if seconds == 1 else "seconds"
        raise ScheduleError(
            "expression",
            f"{text}: every {seconds} {unit}, and a tick is a minute: expected a whole number "
            "of minutes, such as @every 2h or @every 90m",
        )
    return seconds // 60


def _go_duration(text: str) -> int | None:
    """Go's ``time.ParseDuration``: the nanoseconds of ``[-+]`` and one or more ``NUMBER UNIT``
    (``1h30m``, ``1.5h``), or ``0``; None when Go refuses it."""
    sign, body = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    if body == "0":
        return 0
    total, position = Fraction(0), 0
    while position < len(body):
        found = _GO_COMPONENT.match(body, position)
        if found is None:
            return None
        total += Fraction(found[1]) * _GO_UNITS[found[2]]
        position = found.end()
    if not body or total > _GO_MAX:
        return None
    return sign * math.floor(total)
