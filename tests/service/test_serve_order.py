"""A restart starts the runs due before it loads its HTTP stack (issue 36, restart to the first
run): uvicorn, Starlette and the API's modules were a fifth of what it imported first."""

from __future__ import annotations

import io
import signal
import threading

import pytest

from cronlapse.service import http_server
from cronlapse.service.clock import LiveClock
from cronlapse.service.config import Config
from cronlapse.service.engine_loop import EngineLoop
from cronlapse.service.live import LiveService
from cronlapse.service.server import serve
from cronlapse.service.store import CLOCK_KEY, open_store
from engine.model.records import OccurrenceState
from tests.service.conftest import free_port

pytestmark = pytest.mark.integration


def shut_down(serving: http_server.Serving, rest: tuple) -> int:
    """What the API's lifespan does on the way out, in its order: the executors and the clock
    stop before the store closes. Closing the store under a running engine loop let an executor's
    report reach a closed journal, and the service exit the test's process (``diverged``)."""
    sock, _announcement, _messages, runner = rest[:4]
    runner.run(serving.engine_loop.stop())
    runner.run(serving.engine_loop.inputs.close())
    serving.live.store.close()
    sock.close()
    return 0


def test_the_runs_due_at_a_restart_start_before_the_http_stack(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(db)
    clock = LiveClock.resume(None, 1.0)
    store.journal.set_meta(CLOCK_KEY, clock.anchor.dumps())
    killed = LiveService(store, clock, Config(workers=1))
    killed.open()
    killed.submit("schedule", {"id": "now"})  # running when the server "dies"
    assert killed.engine.query.record_keys(OccurrenceState.RUNNING)
    store.close()

    happened: list[str] = []
    start_now = EngineLoop.start_now

    async def started(engine_loop: EngineLoop) -> None:
        await start_now(engine_loop)
        executors = engine_loop.executors
        assert executors is not None
        happened.append(f"executors of {len(executors.tasks) + len(executors.reported)} runs")

    def serve_api(serving: http_server.Serving, *rest: object) -> int:
        happened.append("the HTTP stack")
        return shut_down(serving, rest)

    monkeypatch.setattr(EngineLoop, "start_now", started)
    monkeypatch.setattr(http_server, "serve_api", serve_api)
    status = serve(db, "127.0.0.1", free_port(), None, 1.0, io.StringIO())
    assert status == 0
    assert happened == ["executors of 1 runs", "the HTTP stack"], "the retry started first"


def test_a_stop_asked_once_executors_run_is_a_clean_stop(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the moment executors may run, SIGTERM asks for the clean stop (the executors
    stopped, the snapshot written): by the default handler, a SIGTERM while the HTTP stack
    loaded killed the server and left its executors running."""
    stopped: list[bool] = []
    start_now = EngineLoop.start_now

    async def started(engine_loop: EngineLoop) -> None:
        await start_now(engine_loop)
        signal.raise_signal(signal.SIGTERM)

    def serve_api(serving: http_server.Serving, *rest: object) -> int:
        stop = rest[-1]
        stopped.append(isinstance(stop, threading.Event) and stop.is_set())
        return shut_down(serving, rest)

    monkeypatch.setattr(EngineLoop, "start_now", started)
    monkeypatch.setattr(http_server, "serve_api", serve_api)
    killed: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda number, _frame: killed.append(number))
    try:
        status = serve(
            f"sqlite:///{tmp_path / 's.db'}", "127.0.0.1", free_port(), None, 1.0, io.StringIO()
        )
    finally:
        signal.signal(signal.SIGTERM, before)
    assert (status, stopped, killed) == (0, [True], []), "the stop reached the HTTP server"
