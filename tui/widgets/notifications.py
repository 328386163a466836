"""The notification outbox: who is told what, over which channel, and how delivery went.

The pane is narrow beside the events (about 43 columns at 160): the run, the happening and the
state show whole and the target takes what is left; the channel and the tries (both in the detail
pane) show only where every column has its content's width."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.cells import run_name
from tui.model.rows import notification_rows
from tui.states import state_text
from tui.widgets.virtual_table import Column, VirtualTable


class NotificationsTable(VirtualTable):
    TITLE = "Notifications"
    KIND = "notification"
    EMPTY = "no notification queued"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Run", 6, run=True),
        Column("Event", 5),
        Column("Channel", 7, optional=True),
        Column("Target", 6, flex=True),
        Column("State", 5),
        Column("Tries", 5, right=True, optional=True),
    )

    def make_rows(self):
        return notification_rows(lambda: self.engine)

    def row_cells(self, key: tuple) -> list[Text]:
        engine = self.engine
        assert engine is not None
        notification = engine.query.notifications()[key]
        job_id, scheduled, attempt, happening, channel, target = key
        return [
            run_name(job_id, scheduled, attempt, self.clock),
            Text(happening),
            Text(channel),
            Text(target),
            state_text(notification.state),
            Text(str(notification.tries)),
        ]
