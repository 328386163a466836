"""Putting the service together: config, database, token, clock, replay, the executors of the
runs due, then the HTTP stack (:mod:`cronlapse.service.http_server`, imported only then).

``--role scheduler`` (PostgreSQL) first waits to be elected
(:mod:`cronlapse.service.roles.scheduler`), following the journal meanwhile; once elected it is the
same server as without a role, which also keeps the read model, answers the inbox and hands attempts
to worker processes. ``--role api`` (PostgreSQL) is a stateless API process
(:mod:`cronlapse.service.roles.api`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from cronlapse.service.auth import TOKEN_ENV, Token, load_token
from cronlapse.service.clock import Anchor, LiveClock
from cronlapse.service.config import Config, ConfigInvalid, load_config
from cronlapse.service.engine_loop import EngineLoop
from cronlapse.service.events_log import EventLogger
from cronlapse.service.heap import trim_heap
from cronlapse.service.inputs import Inputs
from cronlapse.service.live import LiveService, collector_paused
from cronlapse.service.metrics import Metrics
from cronlapse.service.orphans import service_id, stop_orphans
from cronlapse.service.snapshots import BackgroundSnapshots
from cronlapse.service.stop_signals import stops_recorded
from cronlapse.service.store import (
    ADDRESS_KEY,
    CLOCK_KEY,
    Election,
    Held,
    SnapshotUnreadable,
    Store,
    StoreError,
    backend,
    open_store,
    shown,
)

ROLES = ("scheduler", "api")


class ServeError(Exception):
    """The server cannot start; the message says why, for the user."""


def _config(config_path: str | None) -> Config:
    try:
        return load_config(config_path)
    except ConfigInvalid as error:
        raise ServeError(f"invalid config:\n{error}") from None


def _store(db: str, migrate: bool = True) -> Store:
    try:
        return open_store(db, migrate=migrate)
    except StoreError as error:
        raise ServeError(f"cannot open the database {shown(db)}: {error}") from None


def saved_clock(store: Store, speed: float) -> LiveClock:
    """The live clock continuing the one the journal's last server ran (read only)."""
    saved = store.journal.get_meta(CLOCK_KEY)
    return LiveClock.resume(None if saved is None else Anchor.loads(saved), speed)


def start(
    live: LiveService,
    speed: float,
    following: bool = False,
    observe: Callable[[LiveService], None] = lambda _live: None,
) -> LiveService:
    """Take the journal over: resume its clock, replay (from the latest snapshot unless
    ``live`` has been following the journal), catch up; snapshots in the background.
    ``observe`` attaches the observers (the structured logs) between the replay, which was
    logged when it happened, and the take-over's own inputs, which start runs of their own. What
    the load freed goes back to the system (:mod:`cronlapse.service.heap`)."""
    live.clock = saved_clock(live.store, speed)
    live.store.journal.set_meta(CLOCK_KEY, live.clock.anchor.dumps())
    live.service = service_id(live.store.journal)
    stop_orphans(live.service)  # before the replay's end records their attempts lost
    # The collector stays off until the take-over freezes what was loaded: switched back on
    # after the snapshot, its first pass would walk every object the snapshot made.
    with collector_paused():
        if not following:
            _load_snapshot(live)
        live.replay()
        observe(live)
        live.take_over()
    trim_heap()
    if hasattr(os, "fork"):
        live.background = BackgroundSnapshots(live.store.url)
    return live


def _load_snapshot(live: LiveService) -> None:
    try:
        live.load_snapshot()
    except SnapshotUnreadable as error:
        raise ServeError(f"cannot start on the database {shown(live.store.url)}: {error}") from None


def open_service(
    db: str,
    config_path: str | None,
    speed: float,
    address: str,
    observe: Callable[[LiveService], None] = lambda _live: None,
) -> LiveService:
    """The live service on ``db``, replayed and caught up (not yet listening to ``address``),
    once it holds the database as its one writer (:func:`_hold`); ``observe`` as
    :func:`start`'s."""
    config = _config(config_path)
    store = _store(db)
    _hold(store, db, address)
    try:
        clock = saved_clock(store, speed)
    except StoreError as error:
        raise ServeError(f"cannot open the database {shown(db)}: {error}") from None
    return start(LiveService(store, clock, config), speed, observe=observe)


def _hold(store: Store, db: str, address: str) -> None:
    """Hold ``store`` as the database's one server, before anything is written to it; a
    database another server holds is a :class:`ServeError` naming that server."""
    try:
        store.hold_writer(f"process {os.getpid()} at {address}")
    except Held as held:
        store.close()
        raise ServeError(
            f"{shown(db)} is already served, by {held}: one server per SQLite database "
            "(stop that one first; processes share a PostgreSQL database through the roles "
            "of docs/deployment.md)"
        ) from None
    except StoreError as error:
        store.close()
        raise ServeError(f"cannot open the database {shown(db)}: {error}") from None


def _postgres_only(db: str, what: str) -> None:
    try:
        found = backend(db)
    except StoreError as error:
        raise ServeError(f"cannot open the database {shown(db)}: {error}") from None
    if found != "postgresql":
        raise ServeError(f"{what} needs a postgresql:// database")


def worker(db: str, name: str | None, slots: int, config_path: str | None, messages: TextIO) -> int:
    """``cronlapse worker`` (see :mod:`cronlapse.service.roles.worker`)."""
    from cronlapse.service.roles.worker import work

    _postgres_only(db, "cronlapse worker")
    config = _config(config_path)
    try:
        store = open_store(db)
        try:
            return work(store, name, slots, config, messages)
        finally:
            store.close()
    except StoreError as error:
        raise ServeError(f"cannot reach the database {shown(db)}: {error}") from None


def elected_service(
    db: str,
    config_path: str | None,
    speed: float,
    messages: TextIO,
    metrics: Metrics,
    stop: threading.Event,
    observe: Callable[[LiveService], None] = lambda _live: None,
) -> tuple[LiveService, Election] | None:
    """Wait to be the active scheduler, following the journal; then the service, taken over,
    publishing its read model and inbox answers with every journal write, and its election.
    None if ``stop`` was set while standing by: the process then ends without having held the
    lock."""
    from cronlapse.service.read_model import ReadModel
    from cronlapse.service.roles.publish import SchedulerPublisher
    from cronlapse.service.roles.scheduler import stand_by, watch

    _postgres_only(db, "--role scheduler")
    config = dataclasses.replace(_config(config_path), workers=0)
    store = _store(db)
    election = store.election()
    store.journal.fence_with(election)
    store.dispatch.fence_with(election)
    live = LiveService(store, saved_clock(store, speed), config)
    _load_snapshot(live)
    messages.write("cronlapse serve: standby, following the journal until elected\n")
    messages.flush()
    if not stand_by(election, live, stop.is_set):
        election.close()
        store.close()
        return None
    messages.write(f"cronlapse serve: elected scheduler at journal row {live.state.seq}\n")
    messages.flush()
    read_model = ReadModel(live, metrics)
    live.on_events.append(read_model)
    live.publisher = SchedulerPublisher(live, read_model)
    live = start(live, speed, following=True, observe=observe)
    watch(election)
    return live, election


def serve(
    db: str,
    host: str,
    port: int,
    config_path: str | None,
    speed: float,
    messages: TextIO,
    role: str | None = None,
    log: TextIO | None = None,
    metrics_public: bool = False,
    read_db: str | None = None,
) -> int:
    """Serve until stopped; ``messages`` receives what the server says (standard error, where
    diagnostics go), ``log`` the structured logs (:mod:`cronlapse.service.events_log`)."""
    logging.basicConfig(format="cronlapse serve: %(message)s", level=logging.WARNING)
    if read_db is not None and role != "api":
        raise ServeError("--read-db is an option of --role api")
    if role == "api":
        return _serve_api(db, read_db, host, port, config_path, messages, metrics_public)
    if role == "scheduler":
        stop = threading.Event()
        with stops_recorded(stop):
            return _serve_engine(
                db, host, port, config_path, speed, messages, role, log, metrics_public, stop
            )
    return _serve_engine(db, host, port, config_path, speed, messages, role, log, metrics_public)


LOOP_SWITCH_SECONDS = 0.0005
"""How long a thread holding the GIL may keep it once the event loop's thread asks for it (the
interpreter's default is 5 ms). The loop is the server's one pipeline: every input is applied
there, and each journal commit (a worker thread) and each batch of structured logs (the logger's
thread) hands the GIL back and forth with it. At the default, a loop woken by a finished commit
waited for the GIL behind the logger's thread, several milliseconds a batch: 500 jobs due every
second on 4 slots ran 250 runs a second and missed 5,800 of 15,000 (benchmarks/peers.py, load
8-12 on 2 cores); at half a millisecond, none."""


def prefer_the_loop() -> None:
    """Let the event loop's thread have the GIL back quickly (:data:`LOOP_SWITCH_SECONDS`)."""
    sys.setswitchinterval(LOOP_SWITCH_SECONDS)


STANDBY_STOPPED = (
    "cronlapse serve: stopped while standing by: a standby holds no scheduler lock and has "
    "journaled nothing, so there was nothing to flush\n"
)


def _serve_engine(
    db: str,
    host: str,
    port: int,
    config_path: str | None,
    speed: float,
    messages: TextIO,
    role: str | None,
    log: TextIO | None,
    metrics_public: bool,
    stop: threading.Event | None = None,
) -> int:
    """``serve`` with an engine in this process: without a role, or as a scheduler (once
    elected; 0 at once if ``stop`` was set while it stood by)."""
    prefer_the_loop()
    metrics = Metrics()
    election = None
    loggers: list[EventLogger] = []

    def attach_logger(service: LiveService) -> None:
        if log is not None:
            loggers.append(EventLogger(log, lambda: service.engine))
            service.on_events.append(loggers[0])

    if role == "scheduler":
        assert stop is not None
        elected = elected_service(db, config_path, speed, messages, metrics, stop, attach_logger)
        if elected is None:
            messages.write(STANDBY_STOPPED)
            messages.flush()
            return 0
        live, election = elected
    else:
        address = f"http://{host}:{port}"
        live = open_service(db, config_path, speed, address, attach_logger)
    logger = loggers[0] if loggers else None
    metrics.dead_letters = lambda: live.store.dead_letters.count()  # opened on a first scrape
    token = _token(db)
    announcement = (
        f"cronlapse serve: listening on http://{host}:{port} (journal {shown(db)}, "
        f"{live.state.seq} inputs, tick {live.engine.now})\n"
        f"cronlapse serve: authenticate with {_how(token)}\n"
    )
    live.store.journal.set_meta(ADDRESS_KEY, f"http://{host}:{port}")
    sock = bound_socket(host, port)  # before any executor starts: a port in use starts nothing
    stop = threading.Event() if stop is None else stop
    try:
        # From here executors run: a stop asked for is a clean one (see stops_recorded).
        with stops_recorded(stop), asyncio.Runner(loop_factory=event_loop_factory()) as runner:
            engine_loop = EngineLoop(live, Inputs(live), metrics)
            runner.run(engine_loop.start_now())
            # The HTTP stack, once the runs due have started (see cronlapse.service.http_server).
            from cronlapse.service.http_server import CannotStart, Serving, serve_api

            serving = Serving(live, engine_loop, token, metrics, metrics_public, election)
            try:
                return serve_api(serving, sock, announcement, messages, runner, stop)
            except CannotStart:
                raise ServeError(f"could not start on {host}:{port}") from None
    finally:
        if logger is not None:
            logger.close()  # the lines still queued, before the log file closes


def _token(db: str) -> Token:
    try:
        return load_token(db)
    except OSError as error:
        raise ServeError(f"cannot create the token file: {error}") from None


def _how(token: Token) -> str:
    if token.source == TOKEN_ENV:
        return f"the token in ${TOKEN_ENV}"
    return f'-H "Authorization: Bearer $(cat {token.source})"'


def _serve_api(
    db: str,
    read_db: str | None,
    host: str,
    port: int,
    config_path: str | None,
    messages: TextIO,
    metrics_public: bool,
) -> int:
    """``serve --role api`` (see :mod:`cronlapse.service.roles.api`)."""
    from cronlapse.service.roles.api import ApiRole

    _postgres_only(db, "--role api")
    if read_db is not None:
        _postgres_only(read_db, "--read-db")
    config = _config(config_path)
    store = _store(db)  # the schema, migrated if this is the first process on the database
    replica = None if read_db is None else _store(read_db, migrate=False)
    token = _token(db)
    app = ApiRole(store, replica, config, token, messages, metrics_public).app()
    replica = "" if read_db is None else f", reads from {shown(read_db)}"
    announcement = (
        f"cronlapse serve: API process listening on http://{host}:{port} "
        f"(inbox {shown(db)}{replica})\n"
        f"cronlapse serve: authenticate with {_how(token)}\n"
    )
    sock = bound_socket(host, port)
    from cronlapse.service.http_server import CannotStart, run

    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        try:
            return run(app, sock, announcement, messages, runner)
        except CannotStart:
            raise ServeError(f"could not start on {host}:{port}") from None


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port``, not listening yet (uvicorn listens once the app
    has started), inherited by no child (the executors); :class:`ServeError` if the address
    cannot be bound. As uvicorn binds one: IPv6 for a host with a colon, ``SO_REUSEADDR``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """The event loop uvicorn would choose by itself: uvloop's when it is installed."""
    try:
        import uvloop
    except ImportError:
        return asyncio.SelectorEventLoop
    return uvloop.new_event_loop
