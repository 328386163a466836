"""The workers table: state, what each one runs and since when, and how busy it has been."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.cells import bar, run_name, tick_text
from tui.model.rows import worker_rows
from tui.states import state_text
from tui.widgets.virtual_table import Column, VirtualTable


class WorkersTable(VirtualTable):
    TITLE = "Workers"
    KIND = "worker"
    EMPTY = "no worker registered yet"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Worker", 6, flex=True),
        Column("State", 5),
        Column("Running", 7, flex=True, run=True),
        Column("Busy", 8),
        Column("Since", 5, right=True),
    )

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.follow = False

    def make_rows(self):
        return worker_rows()

    def row_cells(self, key: str) -> list[Text]:
        engine = self.engine
        assert engine is not None
        worker = engine.query.workers()[key]
        running = Text()
        if worker.running is not None:
            occurrence = engine.query.record(*worker.running)
            attempt = occurrence.running_attempt if occurrence is not None else None
            number = attempt.number if attempt is not None else None
            running = run_name(*worker.running, number, self.clock)
        lifetime = engine.now - worker.registered
        share = worker.busy_ticks_at(engine.now) / lifetime if lifetime > 0 else 0.0
        return [
            Text(key),
            state_text(worker.state),
            running,
            bar(share, 3),
            tick_text(worker.since, self.clock),
        ]
