"""The kinds of timer the engine keeps, in the order they run within one tick."""

from enum import IntEnum


class TimerKind(IntEnum):
    ATTEMPT_END = 0
    """A simulated attempt's duration is over: it succeeds or fails as scripted."""
    TIMEOUT = 1
    """The reviewer's check: an attempt still running at start + timeout is timed out."""
    BACKOFF_END = 2
    NOTIFICATION_TRY = 3
