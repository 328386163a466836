"""The "why?" screen: ``w`` on any row explains the run that row is about.

The answer is the engine's (:mod:`cronlapse.analyses.explain`), the same tree ``cronlapse explain
run`` prints, drawn here as a Rich tree. A row maps to a run: an occurrence is one; a worker's is
the run it is running, else its last attempt's; an event's or a notification's is the run it names.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from rich.tree import Tree
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from cronlapse.analyses.explain import Line, Tag, explain_run
from engine.core import Engine
from engine.model import events as ev
from tui.model.lanes import Lanes

STYLES = {Tag.TITLE: "bold", Tag.FACT: "", Tag.NOTE: "dim italic", Tag.WARN: "bold red"}


def rich_tree(answer: Line) -> Tree:
    """The answer's tree as Rich draws it (guides, and a style per kind of line)."""
    tree = Tree(Text(answer.text, style=STYLES[answer.tag]), guide_style="dim")
    _add(tree, answer.children)
    return tree


def _add(tree: Tree, children: tuple[Line, ...]) -> None:
    for child in children:
        _add(tree.add(Text(child.text, style=STYLES[child.tag])), child.children)


def run_of(kind: str, key: Any, engine: Engine, lanes: Lanes | None) -> tuple[str, int] | str:
    """The run a row is about, or why there is none."""
    if key is None:
        return "Select a row first: w explains the run it is about."
    if kind == "occurrence":
        return key[0], key[1]
    if kind == "notification":
        return key[0], key[1]
    if kind == "event":
        item = engine.log[key] if 0 <= key < len(engine.log) else None
        if isinstance(item, ev.OccurrenceEvent):
            return item.job_id, item.scheduled
        if isinstance(item, ev.BacklogCancelled):
            return item.job_id, item.first
        if isinstance(item, ev.NotificationEvent):
            return item.key[0], item.key[1]
        return "This event is not about one run."
    if kind == "worker":
        worker = engine.query.worker(key)
        if worker is not None and worker.running is not None:
            return worker.running
        spans = lanes.spans.get(key, []) if lanes is not None else []
        if spans:
            return spans[-1].job_id, spans[-1].scheduled
        return f"Worker {key} has run nothing yet."
    return "This row is not about a run."


class WhyScreen(ModalScreen[None]):
    """The answer in a scrolling box; esc, w or q closes it."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,w,q", "close", "Close")]

    def __init__(self, body: RenderableType, title: str) -> None:
        super().__init__(id="why")
        self.body = body
        self.title_text = title

    def compose(self):
        with VerticalScroll(id="why-box") as box:
            box.border_title = Content(self.title_text)  # a job id is text, not markup
            box.border_subtitle = "esc closes"
            yield Static(self.body, id="why-body")

    def action_close(self) -> None:
        self.dismiss(None)


def why_screen(dashboard: Any) -> WhyScreen:
    """The screen for the dashboard's selected row, at its current tick."""
    dashboard.stop_jump()
    kind, key = dashboard.detail.shown
    session = dashboard.session
    engine = session.history.engine
    lanes = dashboard.query_one("#timeline").lanes
    run = run_of(kind, key, engine, lanes)
    if isinstance(run, str):
        return WhyScreen(Text(run, style="dim"), "Why?")
    job_id, scheduled = run
    answer = explain_run(session.history, job_id, scheduled, session.clock)
    return WhyScreen(rich_tree(answer), f"Why? {job_id}@{scheduled}")
