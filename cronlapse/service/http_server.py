"""The HTTP side of ``cronlapse serve``: the API's Starlette app on uvicorn, on a socket the server
bound already.

:mod:`cronlapse.service.server` imports this module once the journal is taken over and the
executors of the runs due have started (:mod:`cronlapse.service.engine_loop`): uvicorn, Starlette
and the API's modules were a fifth of what a restart imported before its first run.

Of uvicorn, only its ``Config`` and ``Server`` are used, and they are imported without the
package's ``__init__`` (:func:`_uvicorn_server`), which imports uvicorn's command line: click and,
for its worker processes, multiprocessing, 28 modules and 1.6 MB that a server kept for its life.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import importlib.util
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, TextIO

from starlette.applications import Starlette

from cronlapse.service.api import Api
from cronlapse.service.auth import Token
from cronlapse.service.delivery.attach import attach_deliveries
from cronlapse.service.engine_loop import EngineLoop
from cronlapse.service.live import LiveService
from cronlapse.service.metrics import Metrics
from cronlapse.service.stop_signals import on_stop_signals
from cronlapse.service.store import Election


def _uvicorn_server() -> tuple[type, type]:
    """uvicorn's ``Config`` and ``Server``, from their modules. Imported first, the package
    is made from its spec and left unexecuted: its ``__init__`` imports ``uvicorn.main`` (the
    command line: click, and multiprocessing for its workers) to export ``run`` and ``main``.
    The package is given ``Config`` and ``Server`` (uvicorn's lifespan imports one from it), and
    runs its ``__init__`` the first time anything asks it for another (``uvicorn.run``,
    ``uvicorn.__version__``), so code that imports uvicorn in the same process sees the whole
    package."""
    if "uvicorn" not in sys.modules:
        spec = importlib.util.find_spec("uvicorn")
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")
        package = importlib.util.module_from_spec(spec)

        def __getattr__(name: str) -> Any:
            del package.__getattr__  # once: its __init__ may ask for names it defines later
            spec.loader.exec_module(package)  # type: ignore[union-attr]
            return getattr(package, name)

        package.__getattr__ = __getattr__  # type: ignore[method-assign]
        sys.modules["uvicorn"] = package
        config: ModuleType = importlib.import_module("uvicorn.config")
        server: ModuleType = importlib.import_module("uvicorn.server")
        package.Config, package.Server = config.Config, server.Server  # its lifespan's imports
    return sys.modules["uvicorn"].Config, sys.modules["uvicorn"].Server


if TYPE_CHECKING:
    from uvicorn import Config, Server
else:
    Config, Server = _uvicorn_server()

SHUTDOWN_FAILED = 1
"""The exit status of a stop whose shutdown failed (uvicorn logs why)."""


class CannotStart(Exception):
    """uvicorn did not start (it logged why)."""


@dataclasses.dataclass(frozen=True)
class Serving:
    """What the API serves: the live service, its engine loop (started), its access."""

    live: LiveService
    engine_loop: EngineLoop
    token: Token
    metrics: Metrics
    metrics_public: bool
    election: Election | None
    """The active scheduler's election (``--role scheduler``); None for a single process."""


def serve_api(
    serving: Serving,
    sock: socket.socket,
    announcement: str,
    messages: TextIO,
    runner: asyncio.Runner,
    stop: threading.Event | None = None,
) -> int:
    """The API of ``serving`` on ``sock`` until stopped (see :func:`run`), with the
    notification deliveries, or the active scheduler's tasks."""
    api = Api(
        serving.live, serving.token, serving.metrics_public, serving.metrics, serving.engine_loop
    )
    app = api.app()
    if serving.election is not None:
        _with_scheduler_tasks(app, api, serving.election, messages)
    else:
        attach_deliveries(app, serving.live, api.inputs)
    return run(app, sock, announcement, messages, runner, stop)


def run(
    app: Starlette,
    sock: socket.socket,
    announcement: str,
    messages: TextIO,
    runner: asyncio.Runner,
    stop: threading.Event | None = None,
) -> int:
    """Serve on ``sock``, and say so once connections are accepted: "listening on" is printed
    once it is true (a port in use used to be announced, then refused; a bound port was
    announced before it listened, and a first request right after was refused). The exit
    status: 0 once a stop (SIGTERM, Ctrl-C) has shut down cleanly, :data:`SHUTDOWN_FAILED` if
    the shutdown failed; :class:`CannotStart` if uvicorn did not start. A ``stop`` already set
    (a signal between the election and now) starts the server only to shut it down: the
    elected scheduler's stop is the same clean one, its snapshot written."""
    config = Config(app, log_level="warning", access_log=False)

    def announce() -> None:
        messages.write(announcement)
        messages.flush()

    server = _AnnouncingServer(config, announce)
    shutdown = _Shutdown.watching(app)
    with _stopped_by_signals(server):
        if stop is not None and stop.is_set():
            server.should_exit = True
        runner.run(server.serve(sockets=[sock]))
    if not server.started:
        raise CannotStart
    if not shutdown.clean:
        messages.write(
            "cronlapse serve: the shutdown failed (above): every answered input is journaled "
            "and a restart replays it, but the stop's snapshot may be missing\n"
        )
        messages.flush()
        return SHUTDOWN_FAILED
    return 0


class _AnnouncingServer(Server):
    """uvicorn's server, which calls ``announce`` once it accepts connections: after the app's
    startup and the listen, which uvicorn's own message does not wait for when it is given a
    socket bound beforehand."""

    def __init__(self, config: Config, announce: Callable[[], None]) -> None:
        super().__init__(config)
        self.announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.announce()


@contextlib.contextmanager
def _stopped_by_signals(server: Server) -> Iterator[None]:
    """SIGTERM and SIGINT ask ``server`` to stop, and a stop they asked for is not the
    process's death.

    uvicorn catches both while it serves, shuts down (the app's lifespan: the last group
    commit, the snapshot), then puts back the handlers it found and raises the signal again for
    them. With Python's own, SIGINT is a KeyboardInterrupt, and SIGTERM kills the process: it
    exited with -15 (a failure to any supervisor) after a shutdown that went well. These are
    the handlers it finds: they only ask the server to stop, which also covers a signal that
    comes before uvicorn's own are in place, so the signal raised again ends nothing."""

    def stop(_signal: int, _frame: FrameType | None) -> None:
        server.should_exit = True

    with on_stop_signals(stop):
        yield


@dataclasses.dataclass
class _Shutdown:
    """Whether the app's lifespan ended without an error: uvicorn returns after a failed
    shutdown (a snapshot that could not be written) as after a clean one, having logged it."""

    clean: bool = False

    @classmethod
    def watching(cls, app: Starlette) -> _Shutdown:
        shutdown = cls()
        inner = app.router.lifespan_context

        @contextlib.asynccontextmanager
        async def lifespan(started: Starlette) -> AsyncIterator[object]:
            async with inner(started) as state:
                yield state
            shutdown.clean = True

        app.router.lifespan_context = lifespan
        return shutdown


def _with_scheduler_tasks(app: Starlette, api: Api, election: Election, messages: TextIO) -> None:
    """Run the worker processes' dispatcher (:mod:`cronlapse.service.roles.dispatch`) and the
    inbox's reader (:mod:`cronlapse.service.roles.inbox_reader`) inside the API's lifespan: both
    journal through the same group commit as the API's requests. It also claims the outbox
    (:mod:`cronlapse.service.roles.outbox`): it delivers notifications while it holds the claim."""
    from cronlapse.service.inbox import Inbox
    from cronlapse.service.roles.dispatch import Dispatcher
    from cronlapse.service.roles.inbox_reader import InboxReader
    from cronlapse.service.roles.outbox import OutboxDelivery

    inner = app.router.lifespan_context
    store = api.live.store
    dispatcher = Dispatcher(api.live, api.inputs, store)
    reader = InboxReader(api.inputs, store, election.session)
    inbox = Inbox(store)
    claim = OutboxDelivery(store, api.config.channels, inbox, messages)

    @contextlib.asynccontextmanager
    async def lifespan(started: Starlette) -> AsyncIterator[None]:
        async with inner(started), dispatcher.running(), reader.running():
            await inbox.start()
            try:
                async with claim.running():
                    yield
            finally:
                await inbox.close()

    app.router.lifespan_context = lifespan
