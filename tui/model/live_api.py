"""Commands typed at the live head, sent to the service's HTTP API (so they are journaled).

The command line's words are the scenario vocabulary's (:mod:`tui.model.commandline`), and a job
posted to the API is read by the same readers, so a line maps to a request key for key:
``schedule x every=60`` is ``POST /job {"id": "x", "every": 60}``; ``modify x priority=high`` is
``PUT /job/x {"priority": "high"}``; ``cancel x`` is ``PUT /job/x {"cancel_next": true}``;
``delete x`` is ``DELETE /job/x``. Other engine verbs (a worker going down, a scripted failure)
have no request: they only mean something in a what-if, rewound. The answer is the API's own
code and message.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import httpx

from cronlapse.service.store import TOKEN_ENV, token_path
from engine.scenario.vocabulary import VERBS, CommandLineError, words_node
from engine.scenario.yaml_source import Mapping, Node, Scalar
from tui.model.commandline import CommandError

API_VERBS = ("schedule", "modify", "cancel", "delete")
"""The verbs the API takes; at the live head, the others are refused before anything is sent."""
LOCAL_VERBS = ("status",)
"""Verbs that only read the state: answered on screen, at the head too."""
TIMEOUT_SECONDS = 10.0
HEALTH_TIMEOUT_SECONDS = 2.0
"""How long ``GET /health`` may take before the service counts as not answering (a service
that answers takes milliseconds; a stopped or wedged one never does)."""


@dataclass(frozen=True, slots=True)
class ApiRequest:
    """One API request, and the command it comes from (for the answer's wording)."""

    verb: str
    method: str
    path: str
    body: dict | None = None

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def api_request(text: str) -> ApiRequest | None:
    """The request a command line makes at the live head; None when it is no engine command
    (a dashboard command or a status query: the screen does those). :class:`CommandError` for a
    verb the API does not take, or words that do not read."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise CommandError(f"cannot split the line into words: {error}") from None
    if not words or words[0].lower() not in VERBS or words[0].lower() in LOCAL_VERBS:
        return None
    name = words[0].lower()
    if name not in API_VERBS:
        raise CommandError(
            f"{name}: the service's API has no such request (it takes {', '.join(API_VERBS)}); "
            "rewind (←) to try it in a local what-if"
        )
    try:
        node = words_node(VERBS[name], words[1:])
    except CommandLineError as error:
        raise CommandError(str(error)) from None
    fields = _json(node)
    assert isinstance(fields, dict)
    if name == "schedule":
        return ApiRequest(name, "POST", "/job", fields)
    job = fields.pop("job", None)
    if not isinstance(job, str) or not job:
        raise CommandError(f"{name}: expected {VERBS[name].usage}")
    path = f"/job/{job}"
    if name == "delete":
        return ApiRequest(name, "DELETE", path)
    if name == "cancel":
        if fields:
            raise CommandError(
                "cancel: the service cancels a job's next run only (cancel JOB); "
                "rewind (←) to cancel another in a what-if"
            )
        return ApiRequest(name, "PUT", path, {"cancel_next": True})
    return ApiRequest(name, "PUT", path, fields)


def _json(node: Node) -> object:
    """A command line's value as the JSON the API reads the same way (the API turns JSON back
    into such values): a scalar keeps its type only when its text is its JSON (``5``, ``true``);
    otherwise it goes as written (``09:00`` is a time, not YAML's 540 minutes)."""
    if isinstance(node, Mapping):
        return {key.text: _json(value) for key, value in node.entries}
    if not isinstance(node, Scalar):
        return [_json(item) for item in node.items]
    value = node.value
    if value is None or isinstance(value, str):
        return value
    canonical = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return value if canonical == node.text else node.text


class ServiceApi:
    """The service's API at ``base_url``, with its bearer token (None: no token found)."""

    def __init__(self, base_url: str, token: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {} if self.token is None else {"Authorization": f"Bearer {self.token}"}

    async def health(self) -> str | None:
        """None when the service answers ``GET /health`` (no token needed); else why not, in a
        few words. Never raises."""
        try:
            async with httpx.AsyncClient(
                base_url=self.base_url, timeout=HEALTH_TIMEOUT_SECONDS
            ) as http:
                answer = await http.get("/health")
        except httpx.HTTPError as error:
            return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return None if answer.is_success else f"GET /health: {answer.status_code}"

    async def refusal(self) -> str | None:
        """None when the service takes the token (an authorised read, the cheapest: one job);
        else its answer, said at attach rather than at the first command. Never raises."""
        request = ApiRequest("attach", "GET", "/jobs?limit=1")
        try:
            async with httpx.AsyncClient(
                base_url=self.base_url, timeout=HEALTH_TIMEOUT_SECONDS
            ) as http:
                answer = await http.get("/jobs", params={"limit": 1}, headers=self._headers())
        except httpx.HTTPError:
            return None  # not answering at all: health says so
        return None if answer.is_success else describe(request, answer)

    async def send(self, request: ApiRequest) -> tuple[bool, str]:
        """Send one request; ``(accepted, the API's code and message)``. Never raises."""
        try:
            async with httpx.AsyncClient(base_url=self.base_url, timeout=TIMEOUT_SECONDS) as http:
                answer = await http.request(
                    request.method, request.path, json=request.body, headers=self._headers()
                )
        except httpx.HTTPError as error:
            reason = f"cannot reach the service at {self.base_url}: {error}"
            return False, f"{request.verb}: {request}: {reason}"
        return answer.is_success, describe(request, answer)


def describe(request: ApiRequest, answer: httpx.Response) -> str:
    """``schedule: POST /job: 201 created x``, or the code, message and each field's problem."""
    code = answer.status_code
    head = f"{request.verb}: {request}: {code}"
    try:
        body = answer.json() if answer.content else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    if answer.is_success:
        return f"{head} created {body['id']}" if "id" in body else f"{head} ok"
    text = f"{head} {body.get('message') or answer.reason_phrase}"
    problems = [
        f"{problem.get('path') or '-'}: {problem.get('message')}"
        for problem in body.get("errors", ())
        if isinstance(problem, dict) and problem.get("message") != body.get("message")
    ]
    if code == 401:
        problems.append(f"give the server's token with --token-file or ${TOKEN_ENV}")
    return "; ".join([text, *problems])


def find_token(db_url: str, token_file: str | None) -> str | None:
    """The token ``cronlapse serve`` uses: ``$CRONLAPSE_TOKEN``, else the file given, else the
    file the server created next to its database. Never creates one (only the server does)."""
    value = os.environ.get(TOKEN_ENV, "").strip()
    if value:
        return value
    path = Path(token_file).expanduser() if token_file else token_path(db_url)
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None
