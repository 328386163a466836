"""The HTTP API (Starlette): seed 003's endpoints over the live engine.

Every handler is a thin mapping: it reads the body (bounded: 413 over 1 MB, 422 when deeper than
the nesting limit or not JSON), hands one input to its :class:`Commands` (the group commit of
:class:`~cronlapse.service.live.LiveService`, or the inbox of an API process: either way the answer
is only sent once the input is durable) and maps the engine's
:class:`~engine.model.commands.Outcome` onto the status it already names; reads go through a
:class:`~cronlapse.service.reads.Reads`. Errors are ``{"message": ..., "errors": [{"path": ...,
"message": ...}]}``; a 422 lists every field's path with the scenario validator's message.

Everything runs on the event loop's thread, one input at a time: the engine is single-threaded
by design, and the journal's order is the order inputs were applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from cronlapse.service.auth import Token
from cronlapse.service.codec import AFTER_RUN, KEPT, Decoded, InputInvalid, request_problem
from cronlapse.service.config import Config
from cronlapse.service.delivery.channels import unknown_targets
from cronlapse.service.executors import AttemptKey, Executors
from cronlapse.service.inbox import Unanswered
from cronlapse.service.inputs import Inputs
from cronlapse.service.json_nodes import MAX_BODY_BYTES, NUL, NUL_REFUSED, BodyError, parse_body
from cronlapse.service.live import LiveService
from cronlapse.service.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from cronlapse.service.metrics import Metrics
from cronlapse.service.openapi import openapi_document
from cronlapse.service.reads import LiveReads, Reads
from cronlapse.service.running import RunningChanges, running_launches
from cronlapse.service.store import JobFilter
from engine.model import limits
from engine.model.commands import Complete, Outcome, Result
from engine.model.digits import is_digits
from engine.model.problems import Code, Problem
from engine.model.records import PRIORITY_LEVELS
from engine.query.status_words import STATUSES
from engine.scenario.errors import did_you_mean
from engine.scenario.schedule_keys import SCHEDULE_KEYS

log = logging.getLogger("cronlapse.serve")

Handler = Callable[[Request], Awaitable[Response]]
PAGE_LIMIT = 500
_INTEGER = re.compile(r"-?[0-9]{1,12}")
"""A priority in a query: plain digits (``int`` also reads ``1_000`` and other scripts' digits)."""
CLOCK_INTERVAL = 0.02
"""Seconds between readings of the live clock."""


def error(status: int, message: str, problems: list[Problem] = ()) -> JSONResponse:  # type: ignore[assignment]
    errors = [{"path": p.path, "message": p.message} for p in problems]
    return JSONResponse({"message": message, "errors": errors}, status_code=status)


def _unauthorized() -> JSONResponse:
    response = error(401, "missing or wrong bearer token")
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


def answer(result: Result, created: dict | None = None) -> Response:
    """The response for an engine's answer to a command."""
    if result.outcome is Outcome.CREATED:
        return JSONResponse(created, status_code=201)
    if result.accepted:
        return Response(status_code=204)
    if result.problem is not None and result.problem.code is Code.NOTHING_TO_CANCEL:
        # The engine's NOT_FOUND names a run; a 404 here would say the job does not exist.
        return error(409, result.message)
    if result.outcome is Outcome.INVALID:
        # The problem names the request's field (codec.with_field), or none: the body's.
        problem = result.problem or request_problem("", result.message)
        return error(422, result.message, [problem])
    return error(result.outcome.value, result.message)


class Routes:
    """The routes and handlers, over where reads come from and where writes go.

    The single process (:class:`Api`) reads its engine and writes through its group commit;
    an API process (``serve --role api``, :mod:`cronlapse.service.roles.api`) reads the read model
    and writes through the inbox. The handlers, their checks and their answers are the same."""

    def __init__(
        self,
        reads: Reads,
        checks: Reads,
        commands: Commands,
        config: Config,
        token: Token,
        metrics_public: bool = False,
    ) -> None:
        self.reads = reads
        self.checks = checks
        """Where a write's target is checked (a PUT or DELETE of an unknown job is 404): the
        primary database, even when reads come from a replica that may lag."""
        self.commands = commands
        self.config = config
        self.token = token
        self.metrics_public = metrics_public
        """Serve /metrics without the token (``--metrics-public``: for a scraper on loopback)."""

    def app(self) -> Starlette:
        guard = self.guarded
        routes = [
            Route("/health", self.health, methods=["GET"]),
            Route("/openapi.json", guard(self.openapi), methods=["GET"]),
            Route("/job", guard(self.create), methods=["POST"]),
            Route("/jobs", guard(self.list_jobs), methods=["GET"]),
            Route("/job/{id}", guard(self.get_job), methods=["GET"]),
            Route("/job/{id}", guard(self.amend), methods=["PUT"]),
            Route("/job/{id}", guard(self.delete), methods=["DELETE"]),
            Route("/job/{id}/runs", guard(self.runs), methods=["GET"]),
            Route("/job/{id}/pause", guard(self.pause), methods=["POST"]),
            Route("/job/{id}/resume", guard(self.resume), methods=["POST"]),
            Route("/workers", guard(self.workers), methods=["GET"]),
            Route(
                "/metrics",
                self.metrics_text if self.metrics_public else guard(self.metrics_text),
                methods=["GET"],
            ),
        ]
        unrouted = {404: self.unrouted, 405: self.unrouted}
        return Starlette(routes=routes, lifespan=self.lifespan, exception_handlers=unrouted)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette):
        yield

    # ------------------------------------------------------------- plumbing

    def guarded(self, handler: Handler) -> Handler:
        async def check(request: Request) -> Response:
            if not self.token.matches(request.headers.get("authorization")):
                return _unauthorized()
            job_id = request.path_params.get("id", "")
            if NUL in job_id:  # no job has one (bodies refuse it), and PostgreSQL cannot hold it
                return error(404, f"no job {job_id!r}")
            return await handler(request)

        return check

    async def body(self, request: Request) -> dict:
        """The request's JSON object; :class:`BodyError` (422) or :class:`TooLarge` (413)."""
        declared = request.headers.get("content-length", "")
        if is_digits(declared) and int(declared) > MAX_BODY_BYTES:
            raise TooLarge
        data = bytearray()
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY_BYTES:
                raise TooLarge
        value = parse_body(bytes(data))
        if not isinstance(value, dict):
            raise BodyError("", "expected a JSON object")
        return value

    async def submit(self, verb: str, args: dict, created: dict | None = None) -> Response:
        try:
            return answer(await self.commands.submit(verb, args), created)
        except InputInvalid as invalid:
            return error(422, "invalid request body", invalid.problems)
        except Unanswered as unanswered:
            return error(unanswered.status, unanswered.message)

    async def read_body(self, request: Request) -> dict | Response:
        try:
            return await self.body(request)
        except TooLarge:
            return error(413, f"the body is larger than {MAX_BODY_BYTES // 1024} KiB")
        except BodyError as problem:
            return error(422, problem.message, [request_problem(problem.path, problem.message)])

    def unknown_run(self, body: dict) -> Response | None:
        """422 for an executor or a notification channel that the config does not define."""
        run = body.get("run")
        names = self.config.executors
        problems = [
            request_problem(path, message)
            for path, message in unknown_targets(body.get("notify"), self.config.channels)
        ]
        if isinstance(run, str) and run not in names:
            message = f"unknown executor {run!r}: expected one of {', '.join(sorted(names))}"
            problems.insert(0, request_problem("run", message))
        return error(422, "invalid request body", problems) if problems else None

    async def unrouted(self, request: Request, problem: Exception) -> Response:
        """A path or a method no route serves: 401 without the token, as every route but
        ``/health`` is (else a caller without it learns which paths exist), then the API's own
        error shape, where Starlette answers plain text."""
        if not self.token.matches(request.headers.get("authorization")):
            return _unauthorized()
        method, path = request.method, request.url.path
        if isinstance(problem, HTTPException) and problem.status_code == 405:
            response = error(405, f"{method} is not allowed on {path}")
            # Every route of the path, where Starlette names the first one's methods only.
            allowed = {
                allowed
                for route in request.app.routes
                if isinstance(route, Route) and route.matches(request.scope)[0] is not Match.NONE
                for allowed in route.methods or ()
            }
            response.headers["Allow"] = ", ".join(sorted(allowed))
            return response
        return error(404, f"no route {method} {path}")

    # ------------------------------------------------------------- handlers

    async def health(self, _request: Request) -> Response:
        return JSONResponse({"status": "ok", "tick": await self.reads.tick()})

    async def openapi(self, _request: Request) -> Response:
        return JSONResponse(openapi_document())

    async def create(self, request: Request) -> Response:
        body = await self.read_body(request)
        if isinstance(body, Response):
            return body
        refused = self.unknown_run(body)
        if refused is not None:
            return refused
        if "id" not in body:
            body = {"id": f"job-{uuid.uuid4().hex[:12]}", **body}
        job_id = body["id"]
        if isinstance(job_id, str) and "/" in job_id:  # GET /job/a/b is another route
            message = f"{job_id[:40]!r} cannot be named in a URL: use no '/'"
            return error(422, "invalid request body", [request_problem("id", message)])
        # A bare number is an id as a file's ``id: 7`` is: the text "7" (Reader.identifier).
        return await self.submit("schedule", body, {"id": str(job_id)})

    async def get_job(self, request: Request) -> Response:
        job = await self.reads.job(request.path_params["id"])
        if job is None:  # never scheduled, or deleted: seed 003's DELETE removes the job
            return error(404, f"no job {request.path_params['id']!r}")
        return JSONResponse(job)

    async def unknown_job(self, job_id: str) -> Response | None:
        """404 for an id that names no job (or a deleted one): answered before reading, nothing
        is journaled."""
        if await self.checks.exists(job_id):
            return None
        return error(404, f"no job {job_id!r}")

    async def amend(self, request: Request) -> Response:
        job_id = request.path_params["id"]
        unknown = await self.unknown_job(job_id)
        if unknown is not None:
            return unknown
        after_run = _after_run(request)
        if isinstance(after_run, Response):
            return after_run
        body = await self.read_body(request)
        if isinstance(body, Response):
            return body
        journal_keys = [key for key in (AFTER_RUN, KEPT) if key in body]
        if journal_keys:
            message = f"unknown key: give ?{AFTER_RUN}=true in the URL to wait for a run's end"
            return error(422, "invalid request body", [request_problem(journal_keys[0], message)])
        if "job" in body or "id" in body:
            key = "job" if "job" in body else "id"
            return error(
                422, "invalid request body", [request_problem(key, "the job's id is in the URL")]
            )
        if "cancel_next" in body:
            if body["cancel_next"] is not True:
                message = f"expected true, got {json.dumps(body['cancel_next'])[:40]}"
                return error(422, "invalid request body", [request_problem("cancel_next", message)])
            if len(body) > 1:
                message = "cancel_next goes alone: amend the job in another request"
                return error(422, "invalid request body", [request_problem("cancel_next", message)])
            return await self.change("cancel", {"job": job_id}, after_run)
        if not body:
            message = "expected at least one change, or cancel_next"
            return error(422, "invalid request body", [request_problem("", message)])
        refused = self.unknown_run(body)
        if refused is not None:
            return refused
        args = {"job": job_id, **await self._as_the_job_reads_it(job_id, body)}
        return await self.change("modify", args, after_run)

    async def _as_the_job_reads_it(self, job_id: str, body: dict) -> dict:
        """A new schedule that names no zone keeps the job's, and a new calendar schedule that
        names no ``dst`` keeps the job's rule at DST changes: they are added here, so the
        journal holds them and every replay of the row reads the schedule the same way."""
        wants_zone = "timezone" not in body and any(key in body for key in SCHEDULE_KEYS)
        wants_rule = "dst" not in body and any(key in body for key in CALENDAR_KEYS)
        if not (wants_zone or wants_rule):
            return body
        job = await self.reads.job(job_id) or {}
        kept = {"timezone": job.get("timezone") if wants_zone else None}
        kept["dst"] = job.get("dst") if wants_rule else None
        return body | {key: value for key, value in kept.items() if value is not None}

    async def delete(self, request: Request) -> Response:
        job_id = request.path_params["id"]
        unknown = await self.unknown_job(job_id)
        if unknown is not None:
            return unknown
        after_run = _after_run(request)
        if isinstance(after_run, Response):
            return after_run
        return await self.change("delete", {"job": job_id}, after_run)

    async def change(self, verb: str, args: dict, after_run: bool) -> Response:
        """A change of a job: at once, or with ``after_run`` while a run of the job is running,
        ``202`` and kept until no run of it runs. A deletion so kept pauses the job first, so
        that no other run starts before it applies."""
        job_id = args["job"]
        job = await self.checks.job(job_id) if after_run else None
        if job is None or job["status"] != "running":
            return await self.submit(verb, args)
        if verb == "delete" and not job["paused"]:
            paused = await self.submit("pause", {"job": job_id})
            if paused.status_code == 404:
                return paused
        kept = await self.submit(verb, {**args, AFTER_RUN: True})
        if kept.status_code != 204:
            return kept
        message = f"a run of {job_id} is running: {_ONCE_IT_ENDS[verb]} once it ends"
        return JSONResponse({"message": message}, status_code=202)

    async def pause(self, request: Request) -> Response:
        """Start no more runs of the job until it is resumed (a running one goes on)."""
        return await self._named("pause", request)

    async def resume(self, request: Request) -> Response:
        """Start the job's runs again; those that fell due meanwhile follow its ``catch_up``."""
        return await self._named("resume", request)

    async def _named(self, verb: str, request: Request) -> Response:
        """An input naming the job alone (a body, which it takes none of, is not read)."""
        job_id = request.path_params["id"]
        return await self.unknown_job(job_id) or await self.submit(verb, {"job": job_id})

    async def list_jobs(self, request: Request) -> Response:
        query = request.query_params
        problems = _unknown_parameters(query, ("status", "priority", "run", *_PAGING))
        status = query.get("status")
        if status is not None and status not in STATUSES:
            problems.append(request_problem("status", f"expected one of {', '.join(STATUSES)}"))
        priority = query.get("priority")
        wanted_priority = None
        if priority is not None:
            wanted_priority = PRIORITY_LEVELS.get(priority)
            if wanted_priority is None:
                number = int(priority) if _INTEGER.fullmatch(priority) else None
                if number is None or limits.PRIORITY.problem(number) is not None:
                    low, high = limits.PRIORITY.low, limits.PRIORITY.high
                    message = f"expected high, medium, low or a whole number from {low} to {high}"
                    problems.append(request_problem("priority", message))
                else:
                    wanted_priority = number
        run = query.get("run")
        if run is not None and NUL in run:
            problems.append(request_problem("run", NUL_REFUSED))
        start, limit = _paging(query, problems)
        if problems:
            return error(422, "invalid query", problems)
        wanted = JobFilter(status, wanted_priority, run)
        page = await self.reads.jobs(start, limit, wanted)
        return JSONResponse({"jobs": page.items, "next": page.next})

    async def runs(self, request: Request) -> Response:
        job_id = request.path_params["id"]
        problems = _unknown_parameters(request.query_params, _PAGING)
        since, limit = _paging(request.query_params, problems)
        if problems:
            return error(422, "invalid query", problems)
        page = await self.reads.runs(job_id, since, limit)
        if page is None:
            return error(404, f"no job {job_id!r}")
        return JSONResponse({"runs": page.items, "next": page.next})

    async def workers(self, _request: Request) -> Response:
        return JSONResponse({"workers": await self.reads.workers()})

    async def metrics_text(self, _request: Request) -> Response:
        return Response(await self.reads.metrics(), media_type=METRICS_CONTENT_TYPE)


class Api(Routes):
    """The single process's API (and the active scheduler's): one live engine, read in memory
    and written through the group commit, with its executors and its clock."""

    def __init__(
        self,
        live: LiveService,
        token: Token,
        metrics_public: bool = False,
        metrics: Metrics | None = None,
    ) -> None:
        self.live = live
        self.metrics = Metrics() if metrics is None else metrics
        self.executors: Executors | None = None
        self.inputs = Inputs(live)
        self.changes = RunningChanges(live)
        self.applying: set[str] = set()
        """Jobs whose first kept change is on its way to the journal."""
        self.reports: set[asyncio.Task] = set()
        """Executor reports on their way to the journal (kept so they are not collected)."""
        reads = LiveReads(live, self.metrics)
        super().__init__(reads, reads, self.inputs, live.config, token, metrics_public)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette):
        live = self.live
        self.executors = executors = Executors(self._report, live.service)
        live.on_change = self._sync
        live.on_events.append(self.metrics)
        live.on_events.append(self.changes)
        executors.sync(running_launches(live))  # what runs at start: the one full scan
        self._apply_kept()  # a run that ended just before a stop
        ticking = asyncio.get_running_loop().create_task(self._tick())
        try:
            yield
        finally:
            ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticking
            live.on_change = lambda: None
            live.on_events.remove(self.metrics)
            live.on_events.remove(self.changes)
            await executors.close()
            await self.inputs.close()
            if live.background is not None:
                live.background.wait()
            live.snapshot()
            live.store.close()

    async def _tick(self) -> None:
        while True:
            try:
                await self.inputs.clock()
            except Exception:  # keep the clock going; the next reading retries
                log.exception("clock reading failed")
            await asyncio.sleep(CLOCK_INTERVAL)

    def _sync(self) -> None:
        """After each input: start and stop the attempts it changed, and only those; apply the
        changes kept for a run's end whose run has ended."""
        if self.executors is not None:
            self.executors.update(self.changes.take())
            self._apply_kept()

    def _apply_kept(self) -> None:
        """Submit each job's first kept change once no run of the job runs, one at a time per
        job: its row takes it off the list (journaled, so a restart does the same)."""
        if not self.live.state.kept:
            return
        for verb, args in self.live.kept_due():
            job_id = str(args["job"])
            if job_id not in self.applying:
                self.applying.add(job_id)
                task = asyncio.get_running_loop().create_task(self._submit_kept(verb, args))
                self.reports.add(task)
                task.add_done_callback(self.reports.discard)

    async def _submit_kept(self, verb: str, args: dict) -> None:
        job_id = str(args["job"])
        try:
            await self.inputs.submit(verb, args)
        except InputInvalid as invalid:
            # Read when it was asked, it no longer reads now (a time since passed): it is
            # dropped, and said so; nothing journaled it, so a restart tries it once more.
            log.warning("the change kept for %s no longer applies: %s", job_id, invalid)
            self.live.drop_first_kept(job_id)
        except Exception:  # a failed journal write: the next input tries it again
            log.exception("applying the change kept for %s failed", job_id)
            self.applying.discard(job_id)
            return
        self.applying.discard(job_id)
        self._apply_kept()  # the job's next kept change, if any (this one's row ran _sync early)

    def _report(self, key: AttemptKey, ok: bool) -> None:
        """An executor's end, journaled as ``complete``; its command is built here, from the
        engine's own attempt, rather than read again from its arguments."""
        args = {"job": key.job_id, "scheduled": key.scheduled, "attempt": key.attempt, "ok": ok}
        decoded = Decoded(Complete(key.job_id, key.scheduled, key.attempt, ok), None)
        submitted = self.inputs.submit("complete", args, decoded=decoded)
        task = asyncio.get_running_loop().create_task(submitted)
        self.reports.add(task)
        task.add_done_callback(self.reports.discard)


class Commands(Protocol):
    async def submit(self, verb: str, args: dict) -> Result:
        """The engine's answer to one input; raises InputInvalid (or Unanswered)."""
        ...


class TooLarge(Exception):
    """The body is over :data:`MAX_BODY_BYTES`."""


_PAGING = ("cursor", "limit")
CALENDAR_KEYS = ("daily", "weekly", "monthly", "cron")
"""The schedule keys a ``dst`` rule goes with."""


_ONCE_IT_ENDS = {
    "delete": "the job is deleted",
    "modify": "the change applies",
    "cancel": "its next run is cancelled",
}


def _after_run(request: Request) -> bool | Response:
    """``?after_run=true`` (or ``false``, the default): wait for the job's running run."""
    given = request.query_params.get(AFTER_RUN, "false")
    if given not in ("true", "false"):
        problem = request_problem(AFTER_RUN, "expected true or false")
        return error(422, "invalid query", [problem])
    return given == "true"


def _unknown_parameters(query, known: tuple[str, ...]) -> list[Problem]:
    """A parameter a listing does not take: a misspelt filter would otherwise list everything."""
    return [
        request_problem(name, f"unknown query parameter{did_you_mean(name, known)}")
        for name in dict.fromkeys(query.keys())
        if name not in known
    ]


def _paging(query, problems: list[Problem]) -> tuple[int, int]:
    """``cursor`` (an opaque position from a previous page's ``next``) and ``limit``."""
    cursor, limit = query.get("cursor", "0"), query.get("limit", "50")
    if not is_digits(cursor) or len(cursor) > 18:
        problems.append(request_problem("cursor", "expected the next value of a previous page"))
        cursor = "0"
    if not is_digits(limit) or not 1 <= int(limit[:6]) <= PAGE_LIMIT:
        problems.append(request_problem("limit", f"expected a whole number from 1 to {PAGE_LIMIT}"))
        limit = "50"
    return int(cursor), int(limit)
