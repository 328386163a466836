"""``:sweep workers=2..6``: the open scenario played many ways, in the background.

The sweep (:class:`tui.model.sweep_run.SweepRun`) plays on a pool of processes from a thread of
its own, so the screen can be closed and stepping and rewinding go on while it runs; ``:sweep``
alone shows it again, ``:sweep stop`` stops it, and a notice says when it has finished. The
screen shows what ``cronlapse sweep`` prints: the table, the plot of the first metric against the
first varied key, the answer to the target, with the progress while it plays.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from cronlapse.analyses.sweep import report
from tui.model.sweep_run import SweepProblem, SweepRun, SweepState

REFRESH_SECONDS = 0.5
USAGE = "sweep: vary something, e.g. :sweep workers=2..6 policy.order=fifo,priority"


def open_sweep(dashboard: Any, args: tuple[str, ...]) -> tuple[bool, str]:
    """Start a sweep of the open file, show the running one, or stop it."""
    running: SweepRun | None = dashboard.sweep_run
    if not args:
        if running is None:
            return False, USAGE
        dashboard.app.push_screen(SweepScreen(running))
        return True, ""
    if args == ("stop",):
        if running is None or running.snapshot().finished:
            return False, "sweep: no sweep is playing"
        running.cancel()
        return True, "sweep: stopping after the variants playing now"
    session = dashboard.session
    if session.kind != "scenario" or session.path is None:
        return False, "sweep: open a scenario file first (a sweep plays the file many ways)"
    if running is not None and not running.snapshot().finished:
        return False, "sweep: one is playing; :sweep shows it, :sweep stop stops it"
    try:
        run = SweepRun(session.path, list(args), on_finish=_notice(dashboard))
    except SweepProblem as problem:
        return False, f"sweep: {problem}"
    dashboard.sweep_run = run
    run.start()
    dashboard.app.push_screen(SweepScreen(run))
    return True, "sweep: playing in the background; esc to keep stepping, :sweep shows it"


def _notice(dashboard: Any):  # type: ignore[no-untyped-def]
    """Tell the user, from the sweep's thread, that it has finished."""
    app = dashboard.app

    def finished(state: SweepState) -> None:
        message = f"sweep finished: {len(state.rows)} variants; :sweep shows them"
        if state.target is not None:
            message = report.answer_line(state.target, state.answer, state.metrics)
        app.call_from_thread(app.notify, message, title="sweep")

    return finished


class SweepScreen(ModalScreen[None]):
    """The sweep's progress and results; esc or q closes it (the sweep plays on)."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, run: SweepRun) -> None:
        super().__init__(id="sweep")
        self.run = run

    def compose(self):
        with VerticalScroll(id="sweep-box") as box:
            box.border_title = Content(f"Sweep of {self.run.path.name} (the file on disk)")
            box.border_subtitle = "esc closes; the sweep plays on"
            yield Static(id="sweep-body")

    def on_mount(self) -> None:
        self._show()
        self.set_interval(REFRESH_SECONDS, self._show)

    def _show(self) -> None:
        state = self.run.snapshot()
        width = max(40, self.size.width - 6)
        parts: list[Any] = [Text(_progress(state), style="bold")]
        if state.rows:
            keys, metrics = state.keys, state.metrics
            parts.append(report.table(state.rows, keys, metrics, state.target, state.answer))
            parts.append(Text(report.plot(state.rows, keys, metrics, metrics[0], width)))
            if state.target is not None and state.finished:
                parts.append(Text(report.answer_line(state.target, state.answer, metrics)))
        self.query_one("#sweep-body", Static).update(Group(*parts))

    def action_close(self) -> None:
        self.dismiss(None)


def _progress(state: SweepState) -> str:
    verb = "played" if state.finished else "playing"
    return f"{verb}: {state.done} of {state.total} runs"
