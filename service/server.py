"""Putting the service together: config, database, token, clock, replay, then uvicorn."""

from __future__ import annotations

import logging
import os
from typing import TextIO

import uvicorn
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from service.api import Api
from service.auth import TOKEN_ENV, load_token
from service.clock import Anchor, LiveClock
from service.config import ConfigInvalid, load_config
from service.events_log import EventLogger
from service.journal_store import JournalStore
from service.live import LiveService
from service.snapshots import BackgroundSnapshots

CLOCK_KEY = "clock"


class ServeError(Exception):
    """The server cannot start; the message says why, for the user."""


def open_service(db: str, config_path: str | None, speed: float) -> LiveService:
    """The live service on ``db``, replayed and caught up (not yet listening)."""
    try:
        config = load_config(config_path)
    except ConfigInvalid as error:
        raise ServeError(f"invalid config:\n{error}") from None
    try:
        store = JournalStore(db)
        saved = store.get_meta(CLOCK_KEY)
    except (ArgumentError, SQLAlchemyError) as error:
        raise ServeError(f"cannot open the database {db}: {error}") from None
    clock = LiveClock.resume(None if saved is None else Anchor.loads(saved), speed)
    store.set_meta(CLOCK_KEY, clock.anchor.dumps())
    live = LiveService(store, clock, config)
    live.open()
    if hasattr(os, "fork"):
        live.background = BackgroundSnapshots(db)
    return live


def serve(
    db: str,
    host: str,
    port: int,
    config_path: str | None,
    speed: float,
    out: TextIO,
    log: TextIO | None = None,
    metrics_public: bool = False,
) -> int:
    """Serve until stopped; ``log`` receives the structured logs (:mod:`service.events_log`)."""
    logging.basicConfig(format="cronlapse serve: %(message)s", level=logging.WARNING)
    live = open_service(db, config_path, speed)
    if log is not None:
        live.on_events.append(EventLogger(log, lambda: live.engine))
    try:
        token = load_token(db)
    except OSError as error:
        raise ServeError(f"cannot create the token file: {error}") from None
    how = (
        f"the token in ${TOKEN_ENV}"
        if token.source == TOKEN_ENV
        else f'-H "Authorization: Bearer $(cat {token.source})"'
    )
    out.write(
        f"cronlapse serve: listening on http://{host}:{port} (journal {db}, "
        f"{live.state.seq} inputs, tick {live.engine.now})\n"
        f"cronlapse serve: authenticate with {how}\n"
    )
    out.flush()
    app = Api(live, token, metrics_public).app()
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    except SystemExit:
        raise ServeError(f"cannot listen on {host}:{port}") from None
    return 0
