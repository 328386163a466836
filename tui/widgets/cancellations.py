"""Cancelled and failed occurrences, with why: a cascade names the job that failed first."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from engine.model import CancelReason, OccurrenceState
from tui.cells import tick_text
from tui.model.rows import final_rows
from tui.states import DIM, state_text, style_of
from tui.widgets.virtual_table import Column, VirtualTable

_REASONS = {
    CancelReason.USER: ("user", "a cancel command"),
    CancelReason.CASCADE: ("cascade", ""),
    CancelReason.DELETED: ("deleted", "its job was deleted"),
}


class CancellationsTable(VirtualTable):
    TITLE = "Cancelled & failed"
    KIND = "occurrence"
    EMPTY = "nothing cancelled or failed"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Job", 12, flex=True),
        Column("Sched", 7, right=True),
        Column("State", 9),
        Column("Tries", 5, right=True),
        Column("Reason", 9),
        Column("Cause", 12, flex=True),
    )

    def make_rows(self):
        return final_rows()

    def row_cells(self, key: tuple[str, int]) -> list[Text]:
        engine = self.engine
        assert engine is not None
        occurrence = engine.occurrences[key]
        if occurrence.state is OccurrenceState.CANCELLED:
            reason_word, cause = _REASONS.get(occurrence.cancel_reason, ("", ""))
            reason = Text(reason_word)
            cause_text = Text(cause, style=DIM)
            if occurrence.cancel_reason is CancelReason.CASCADE:
                cause_text = Text("⇐ ", style=DIM)
                cause_text.append(occurrence.cancel_cause or "?", style=style_of("FAILED"))
                cause_text.append(" failed first", style=DIM)
        else:
            last = occurrence.attempts[-1] if occurrence.attempts else None
            outcome = last.outcome if last is not None else None
            reason = Text(
                outcome.name.lower() if outcome is not None else "", style=style_of(outcome)
            )
            cause_text = Text("retries exhausted", style=DIM)
        return [
            Text(key[0]),
            tick_text(key[1]),
            state_text(occurrence.state),
            Text(f"{len(occurrence.attempts)}/{occurrence.max_attempts}"),
            reason,
            cause_text,
        ]
