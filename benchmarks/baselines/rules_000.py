"""Seed 000's argument rules, shared by the two CronJobScheduler yardsticks.

They are the facade's decided edge cases (docs/cron-job-scheduler.md): wrong types raise
TypeError, time going back raises ValueError, anything outside the constraints is rejected like an
invalid call. Both yardsticks must accept exactly what the engine accepts, so they share this
module rather than each restating it.
"""

from __future__ import annotations

import re

from engine.model.ordering import java_is_blank, java_length

MAX_TIME = 1_000_000_000_000
MAX_INTERVAL = 1_000_000_000
MAX_RETRIES = 10
MAX_ATTEMPT = MAX_RETRIES + 1

_SURROGATE = re.compile("[\ud800-\udfff]")


def require_str(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def require_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")


def require_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")


_ASCII_WHITESPACE = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
"""The ASCII characters Java's ``Character.isWhitespace`` accepts."""


def valid_id(value: str) -> bool:
    """Not blank (Java), 1..100 UTF-16 units, no comma, no surrogate code point.

    ASCII ids, the usual ones, are checked with string methods; the rest character by character."""
    if value.isascii():
        return len(value) <= 100 and "," not in value and value.strip(_ASCII_WHITESPACE) != ""
    return (
        not java_is_blank(value)
        and java_length(value) <= 100
        and "," not in value
        and _SURROGATE.search(value) is None
    )


def move_to(now: int, current_time: int) -> bool:
    """Whether ``current_time`` is in range; raises if it goes back before ``now``."""
    if not 0 <= current_time <= MAX_TIME:
        return False
    if current_time < now:
        raise ValueError(f"current_time {current_time} is earlier than the current time {now}")
    return True


def valid_job(first_run_time: int, interval: int, max_retries: int, current_time: int) -> bool:
    return (
        current_time <= first_run_time <= MAX_TIME
        and 0 <= interval <= MAX_INTERVAL
        and 0 <= max_retries <= MAX_RETRIES
    )


def in_schedule(first: int, interval: int, at: int) -> bool:
    """Whether ``at`` is one of the job's schedule times."""
    if interval == 0:
        return at == first
    return at >= first and (at - first) % interval == 0
