"""The retries table: occurrences waiting out a backoff, soonest eligible first."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.cells import number, tick_text, time_text
from tui.model.rows import retry_rows
from tui.states import DIM, TICK
from tui.widgets.virtual_table import Column, VirtualTable


class RetriesTable(VirtualTable):
    TITLE = "Retries"
    KIND = "occurrence"
    EMPTY = "no occurrence waits for a retry"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Job", 6, flex=True),
        Column("Sched", 5, right=True),
        Column("Next", 4, right=True),
        Column("Eligible", 8, right=True, tick=True),
        Column("In", 5, right=True),
        Column("Backoff", 7, right=True),
        Column("At", 9, clock=True),
    )

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.follow = False

    def make_rows(self):
        return retry_rows(lambda: self.engine)

    def row_cells(self, key: tuple[str, int]) -> list[Text]:
        engine = self.engine
        assert engine is not None
        occurrence = engine.query.records()[key]
        eligible = occurrence.eligible_at
        wait = None if eligible is None else max(0, eligible - engine.now)
        return [
            Text(key[0]),
            tick_text(key[1], self.clock),
            Text(f"#{len(occurrence.attempts) + 1}", style=DIM),
            Text("" if eligible is None else str(eligible), style=TICK),
            Text("now" if wait == 0 else str(wait)),
            number(occurrence.retry_delay),
            time_text(self.clock, eligible),
        ]
