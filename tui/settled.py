"""Whether a Textual app has nothing left to do until its next input or timer.

A screenshot, or a test that looks at the screen, must wait for the screen's first frames and
for what a key set off to be done: a pane takes the focus after the screen's next refresh
(DashboardScreen.show_pane), Textual's footer fills in its keys after the refresh that follows a
change of focus, and every refresh lays out and paints what changed. Textual has no public way
to ask whether that is over. Its test pilot waits for the messages queued when it is called,
then guesses from CPU time against the wall clock, which a loaded machine fools: a process that
other work keeps off the CPU looks idle however much it has left to do.

This reads Textual's private state, as DashboardApp._followed does. A Textual without these
attributes counts as having nothing to do: a screenshot is then taken at once, never waited for
for ever.
"""

from __future__ import annotations

from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import Screen

_SCREEN_UPDATES = (
    "_layout_required",
    "_scroll_required",
    "_repaint_required",
    "_recompose_required",
)
"""What a screen's next refresh will do besides painting its dirty widgets (Screen._on_idle)."""


def nothing_to_do(app: App) -> bool:
    """No message waits in the app or on its screen, nothing waits for the screen's next
    refresh or is left to lay out or paint, and no animation runs."""
    screen = app.screen
    pumps = [app, *screen.walk_children(with_self=True)]
    return not (
        any(_has_messages(pump) for pump in pumps) or _refresh_pending(screen) or _animating(app)
    )


def _has_messages(pump: MessagePump) -> bool:
    queue = getattr(pump, "_message_queue", None)
    return (
        getattr(pump, "_pending_message", None) is not None
        or (queue is not None and not queue.empty())
        or bool(getattr(pump, "_next_callbacks", None))
    )


def _refresh_pending(screen: Screen) -> bool:
    """Callbacks for after the next refresh (``call_after_refresh``), widgets to repaint, a
    layout or a recompose to do."""
    return (
        bool(getattr(screen, "_callbacks", None))
        or bool(getattr(screen, "_dirty_widgets", None))
        or any(getattr(screen, flag, False) for flag in _SCREEN_UPDATES)
    )


def _animating(app: App) -> bool:
    animator = app.animator
    return bool(getattr(animator, "_animations", None) or getattr(animator, "_scheduled", None))
