"""The advice screen (``a``): ``cronlapse advise`` on the file the dashboard shows: what hurts
the fleet, the changes proposed and the plays that prove them, side by side.

Advice plays the fleet several times, so it is worked out in a worker thread from the file on
disk (:mod:`tui.model.advice`): nothing it plays touches the history on screen, and the screen
fills in when it is done.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cronlapse.analyses.advise.render import advice_text
from tui.model.advice import AdviceAnswer, advice_for
from tui.model.session import Session


class AdviceScreen(ModalScreen[None]):
    """The advice for the fleet on screen; esc, a or q closes it."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,a,q", "close", "Close")]

    def __init__(self, dashboard: Any) -> None:
        super().__init__(id="advice")
        dashboard.stop_jump()
        self.session: Session = dashboard.session
        self.answer: AdviceAnswer | None = None

    def compose(self):
        with VerticalScroll(id="advice-box") as box:
            box.border_title = f"Advice for {self.session.name}"
            box.border_subtitle = "esc closes"
            yield Static(
                Text("Playing the fleet before and after each change...", style="dim"),
                id="advice-body",
            )

    def on_mount(self) -> None:
        self.run_worker(self._advise, thread=True, exit_on_error=False)

    def _advise(self) -> None:
        answer = advice_for(self.session)
        self.app.call_from_thread(self._show, answer)

    def _show(self, answer: AdviceAnswer) -> None:
        self.answer = answer
        body = self.query_one("#advice-body", Static)
        if answer.advice is None:
            body.update(Text(answer.reason, style="bold"))
        else:
            body.update(Text(advice_text(answer.advice)))

    def action_close(self) -> None:
        self.dismiss(None)
