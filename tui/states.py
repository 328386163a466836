"""One mapping from states to colours, used by every table, the timeline and the detail pane.

A state reads the same everywhere: RUNNING is always cyan, FAILED always red. Styles are Rich
styles because the Line API widgets draw Rich segments; they are chosen to read on both dark and
light themes.
"""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from rich.text import Text

from engine.model.records import AttemptOutcome, OccurrenceState, WorkerState
from engine.parts.notifications import NotificationState

_OCCURRENCE = {
    OccurrenceState.SCHEDULED: Style(color="grey50"),
    OccurrenceState.BLOCKED: Style(color="magenta"),
    OccurrenceState.QUEUED: Style(color="yellow"),
    OccurrenceState.RUNNING: Style(color="cyan", bold=True),
    OccurrenceState.RETRY_PENDING: Style(color="dark_orange"),
    OccurrenceState.SUCCEEDED: Style(color="green"),
    OccurrenceState.FAILED: Style(color="red", bold=True),
    OccurrenceState.CANCELLED: Style(color="grey62", italic=True),
}

_ATTEMPT = {
    AttemptOutcome.RUNNING: _OCCURRENCE[OccurrenceState.RUNNING],
    AttemptOutcome.SUCCEEDED: _OCCURRENCE[OccurrenceState.SUCCEEDED],
    AttemptOutcome.FAILED: _OCCURRENCE[OccurrenceState.FAILED],
    AttemptOutcome.TIMED_OUT: Style(color="bright_red"),
    AttemptOutcome.LOST: _OCCURRENCE[OccurrenceState.RETRY_PENDING],
    AttemptOutcome.TERMINATED: _OCCURRENCE[OccurrenceState.CANCELLED],
}

_WORKER = {
    WorkerState.IDLE: Style(color="grey62"),
    WorkerState.BUSY: _OCCURRENCE[OccurrenceState.RUNNING],
    WorkerState.DRAINING: Style(color="yellow"),
    WorkerState.DOWN: Style(color="red", bold=True),
}

_NOTIFICATION = {
    NotificationState.PENDING: _OCCURRENCE[OccurrenceState.QUEUED],
    NotificationState.DELIVERED: _OCCURRENCE[OccurrenceState.SUCCEEDED],
    NotificationState.DEAD: _OCCURRENCE[OccurrenceState.FAILED],
}

_BY_NAME: dict[str, Style] = {}
for _table in (_OCCURRENCE, _ATTEMPT, _WORKER, _NOTIFICATION):
    for _state, _style in _table.items():
        _BY_NAME.setdefault(_state.name, _style)

PLAIN = Style()
BOLD = Style(bold=True)
DIM = Style(color="grey50")
TICK = Style(color="bright_blue")
"""Ticks and times in tables."""
JOB_PALETTE = (
    "dodger_blue2",
    "medium_purple",
    "sea_green3",
    "gold3",
    "deep_pink3",
    "dark_cyan",
    "orange3",
    "slate_blue1",
    "chartreuse3",
    "hot_pink3",
    "steel_blue",
    "light_salmon3",
)
"""Background colours of jobs' bars on the timeline, picked by a stable hash of the job id."""

JOB_STATUS = {
    "active": Style(color="green"),
    "paused": Style(color="yellow"),
    "deleted": Style(color="red"),
}
"""A job's status (see ``engine.query.views.JobView``), in the detail pane and its events."""
JOB_CHANGED = Style(color="medium_purple1")
"""A job's definition changed (a modify)."""

STATE_LABELS = {OccurrenceState.RETRY_PENDING: "RETRY"}
"""Short names where a column is narrow."""


def style_of(state: object) -> Style:
    """The style of any engine state: an enum member or its name."""
    name = state if isinstance(state, str) else getattr(state, "name", "")
    return _BY_NAME.get(name, PLAIN)


def state_text(state: object, label: str | None = None) -> Text:
    """A state as a coloured word."""
    name = state if isinstance(state, str) else getattr(state, "name", str(state))
    return Text(label or name, style=style_of(state))


@lru_cache(maxsize=4096)
def job_colour(job_id: str) -> str:
    """A colour for a job that does not change between runs (no ``hash()``, which is salted);
    remembered, since the timeline asks for it once per bar on every repaint."""
    total = 0
    for char in job_id:
        total = (total * 31 + ord(char)) & 0xFFFFFFFF
    return JOB_PALETTE[total % len(JOB_PALETTE)]
