"""Messages that carry user intent up from widgets to the screen that acts on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.widget import Widget


@dataclass
class RowSelected(Message):
    """A table's (or the timeline's) cursor moved to another row, or the widget was focused."""

    widget: Widget
    kind: str
    """What ``key`` is: occurrence, worker, notification or event."""
    key: Any


@dataclass
class PaneChosen(Message):
    """A tab was clicked (narrow layout)."""

    pane_id: str
