"""The occurrences table: every run the engine has touched, and each job's waiting front."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from cronlapse.analyses.latency.attribution import priority_name
from engine.model.records import OccurrenceState
from tui.cells import number, tick_text, time_text
from tui.model.rows import OccurrenceRows
from tui.states import DIM, STATE_LABELS, state_text
from tui.widgets.virtual_table import Column, VirtualTable

S = OccurrenceState
BACKLOG_CAP = 9
"""Implicit runs counted behind a front row; more show as ``+9+`` (the detail pane counts on)."""


class OccurrencesTable(VirtualTable):
    """Occurrences by scheduled tick; implicit QUEUED runs show as their job's front row, with
    ``+N`` for the runs queued behind it."""

    TITLE = "Occurrences"
    KIND = "occurrence"
    EMPTY = "no occurrence has fallen due yet"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Job", 6, flex=True),
        Column("Sched", 5, right=True, tick=True),
        Column("Time", 9, clock=True),
        Column("State", 6),
        Column("Try", 3, right=True),
        Column("Worker", 6),
        Column("Pri", 4, right=True),
        # by name where it has one (``high``), as the latency screen and the API say it
        Column("Waited", 6, right=True),
    )

    def make_rows(self) -> OccurrenceRows:
        return OccurrenceRows()

    def row_cells(self, key: tuple[str, int]) -> list[Text]:
        engine = self.engine
        assert engine is not None
        job_id, scheduled = key
        query = engine.query
        record = query.record(job_id, scheduled)
        job = query.job(job_id)
        name = Text(job_id)
        if record is not None:
            state = record.state
            tries, allowed, priority = len(record.attempts), record.max_attempts, record.priority
            worker = record.attempts[-1].worker_id if record.attempts else ""
            started = record.attempts[0].started if record.attempts else None
        else:
            state = query.run_state(job_id, scheduled) or S.QUEUED
            tries = 0
            # An implicit run keeps the definition it was created with (a modify may follow).
            spec = job.spec_for(scheduled) if job is not None else None
            allowed = spec.max_attempts if spec is not None else 0
            priority = spec.priority if spec is not None else 0
            worker, started = "", None
            behind = query.count_implicit(job_id, offset=1, cap=BACKLOG_CAP)
            if behind:
                more = "+" if behind >= BACKLOG_CAP else ""
                name.append(f" +{behind}{more}", style=DIM)
        if started is not None:
            waited = started - scheduled
        elif state.is_final:
            waited = None
        else:
            waited = engine.now - scheduled
        return [
            name,
            tick_text(scheduled),
            time_text(self.clock, scheduled),
            state_text(state, STATE_LABELS.get(state)),
            Text(f"{tries}/{allowed}"),
            Text(worker),
            Text(priority_name(priority)),
            number(waited),
        ]
