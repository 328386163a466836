"""Cancelled and failed occurrences, with why: a cascade names the job that failed first, a run
failed for good whether its retries ran out or the policy's on_timeout took it back without them
(the reading the "why?" answer gives, :mod:`cronlapse.analyses.explain.failed`).

The pane is narrow beside the events (about 43 columns at 160): the tries (also in the detail
pane) give way first, so that the cause shows with the job a cascade started from."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from cronlapse.analyses.explain.failed import failed_for_good
from engine.model.records import CancelReason, OccurrenceState
from tui.cells import tick_text
from tui.model.rows import final_rows
from tui.states import DIM, state_text, style_of
from tui.widgets.virtual_table import Column, VirtualTable

_REASONS = {
    CancelReason.USER: ("user", "a cancel command"),
    CancelReason.CASCADE: ("cascade", ""),
    CancelReason.DELETED: ("deleted", "its job was deleted"),
    CancelReason.REPLACED: ("replaced", "a newer run took its place"),
    CancelReason.EXPIRED: ("expired", "not started by its start_deadline"),
}


class CancellationsTable(VirtualTable):
    TITLE = "Cancelled & failed"
    KIND = "occurrence"
    EMPTY = "nothing cancelled or failed"
    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("Job", 6, flex=True),
        Column("Sched", 5, right=True),
        Column("State", 9),
        Column("Tries", 5, right=True, optional=True),
        Column("Reason", 7, prose=True),
        Column("Cause", 6, flex=True, prose=True),
    )

    def make_rows(self):
        return final_rows()

    def row_cells(self, key: tuple[str, int]) -> list[Text]:
        engine = self.engine
        assert engine is not None
        occurrence = engine.query.record(*key)
        if occurrence is None:
            return self._range_cells(key)
        if occurrence.state is OccurrenceState.CANCELLED:
            reason, cause_text = _why(occurrence.cancel_reason, occurrence.cancel_cause)
        else:
            last = occurrence.attempts[-1] if occurrence.attempts else None
            outcome = last.outcome if last is not None else None
            reason = Text(
                outcome.name.lower() if outcome is not None else "", style=style_of(outcome)
            )
            cause = failed_for_good(engine, occurrence).short if occurrence.attempts else ""
            cause_text = Text(cause, style=DIM)
        return [
            Text(key[0]),
            tick_text(key[1], self.clock),
            state_text(occurrence.state),
            Text(f"{len(occurrence.attempts)}/{occurrence.max_attempts}"),
            reason,
            cause_text,
        ]

    def _range_cells(self, key: tuple[str, int]) -> list[Text]:
        """A job's runs cancelled together: its first run, and how many follow it."""
        engine = self.engine
        assert engine is not None
        view = engine.query.cancelled_range(key[0])
        assert view is not None
        name = Text(key[0])
        if view.runs > 1:
            name.append(f" +{view.runs - 1}", style=DIM)
        reason, cause_text = _why(view.reason, view.cause)
        return [
            name,
            tick_text(view.first_run, self.clock),
            state_text(OccurrenceState.CANCELLED),
            Text("0", style=DIM),
            reason,
            cause_text,
        ]


def _why(reason: CancelReason | None, cause: str | None) -> tuple[Text, Text]:
    """The reason column and the cause column of a cancellation."""
    reason_word, explanation = _REASONS.get(reason, ("", "")) if reason else ("", "")
    if reason is CancelReason.CASCADE:
        cause_text = Text("⇐ ", style=DIM)
        cause_text.append(cause or "?", style=style_of("FAILED"))
        cause_text.append(" failed first", style=DIM)
        return Text(reason_word), cause_text
    return Text(reason_word), Text(explanation, style=DIM)
