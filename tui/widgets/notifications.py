"""The notification outbox: who is told what, over which channel, and how delivery went."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.cells import occurrence_name
from tui.model.rows import notification_rows
from tui.states import DIM, state_text
from tui.widgets.virtual_table import Column, VirtualTable


class NotificationsTable(VirtualTable):
    TITLE = "Notifications"
    KIND = "notification"
    EMPTY = "no notification queued"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Run", 6, flex=True),
        Column("Event", 5),
        Column("Channel", 7),
        Column("Target", 6, flex=True),
        Column("State", 5),
        Column("Tries", 5, right=True),
    )

    def make_rows(self):
        return notification_rows(lambda: self.engine)

    def row_cells(self, key: tuple) -> list[Text]:
        engine = self.engine
        assert engine is not None
        notification = engine.outbox[key]
        job_id, scheduled, attempt, happening, channel, target = key
        name = Text(occurrence_name(job_id, scheduled))
        name.append(f" #{attempt}", style=DIM)
        return [
            name,
            Text(happening),
            Text(channel),
            Text(target),
            state_text(notification.state),
            Text(str(notification.tries)),
        ]
