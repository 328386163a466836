"""The event log: every event up to the current tick, the current tick's highlighted."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.cells import time_text
from tui.describe import detail, event_style, event_word, subject
from tui.model.rows import EventRows
from tui.states import BOLD, TICK
from tui.widgets.virtual_table import Column, VirtualTable


class EventsTable(VirtualTable):
    TITLE = "Events"
    KIND = "event"
    EMPTY = "no events yet"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Tick", 6, right=True, tick=True),
        Column("Time", 9, clock=True),
        Column("Event", 9),
        Column("Subject", 9, run=True),
        Column("Detail", 10, flex=True, prose=True),
    )

    def make_rows(self) -> EventRows:
        return EventRows()

    def row_cells(self, key: int) -> list[Text]:
        engine = self.engine
        assert engine is not None
        event = engine.log[key]
        tick_style = TICK + BOLD if event.tick == engine.now else TICK
        return [
            Text(str(event.tick), style=tick_style),
            time_text(self.clock, event.tick),
            Text(event_word(event), style=event_style(event)),
            Text(subject(event, self.clock)),
            Text(detail(event), style="dim"),
        ]
