"""``cronlapse tui --db URL``: the dashboard attached to a running service's journal."""

from __future__ import annotations

from pathlib import Path

from cronlapse.service.store import ENGINE_CLOCK
from tui.app import DashboardApp
from tui.model.live import LiveSource, open_live
from tui.model.live_api import ServiceApi, find_token
from tui.model.session import Session
from tui.model.timefmt import UnixClock
from tui.screens.dashboard import DashboardScreen
from tui.screens.live import LiveDashboardScreen

DEFAULT_URL = "http://127.0.0.1:8080"
"""Where ``cronlapse serve`` listens by default."""


class LiveDashboardApp(DashboardApp):
    """The dashboard over ``source``, sending commands at the live head to ``api``."""

    def __init__(self, source: LiveSource, api: ServiceApi, *, blink: bool = True) -> None:
        session = Session(
            f"live {source.reader.name}",
            source.history,
            kind="live",
            clock=UnixClock.of(ENGINE_CLOCK),
            description=_description(source, api),
        )
        super().__init__(session=session, watch=False, blink=blink)
        self.source = source
        self.api = api

    def make_dashboard(self, session: Session) -> DashboardScreen:
        return LiveDashboardScreen(session, self.source, self.api, blink=self.blink)

    def action_reload(self) -> None:
        self.notify(
            "nothing to reload: a live dashboard reads the service's journal as it grows "
            "(end goes to the live head)",
            timeout=4,
        )

    def action_open(self) -> None:
        self.notify(
            "o does not apply to a live service: open a file with `cronlapse tui FILE`",
            timeout=4,
            markup=False,
        )

    def open_path(self, path: str | Path, keep_tick: bool = False) -> bool:
        """A live dashboard shows its one service: a file opens in a dashboard of its own."""
        self.notify(
            f"this dashboard watches a live service: open {path} with `cronlapse tui FILE`",
            severity="warning",
            markup=False,
        )
        return False


def _description(source: LiveSource, api: ServiceApi) -> str:
    """What the dashboard watches, and from when: a compacted journal's history starts at its
    oldest kept snapshot (the retention deleted what came before)."""
    text = f"the service journaled in {source.reader.url}, at {api.base_url}"
    note = source.start_note(UnixClock.of(ENGINE_CLOCK))
    return text if note is None else f"{text}; {note}"


def live_app(
    db: str, url: str | None, token_file: str | None, *, blink: bool = True
) -> LiveDashboardApp:
    """The app for the service journaled in ``db``: its API at ``url``, else where the server
    said it listens (``meta``), else the default; JournalUnreadable if ``db`` is no journal."""
    source = open_live(db)
    address = url or source.reader.address() or DEFAULT_URL
    return LiveDashboardApp(source, ServiceApi(address, find_token(db, token_file)), blink=blink)
