"""Schemathesis against the served document: no 500s, and every answer as the document says.

Each operation gets a bounded number of generated requests, valid and invalid, against one real
server (the cases of one operation share it, so they also meet the jobs earlier cases made):
the single process on SQLite, and an API process (``serve --role api``) in front of a
scheduler on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS as REGISTERED
from schemathesis.checks import load_all_checks
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import positive_data_acceptance

from cronlapse.service.openapi import openapi_document
from tests.service.conftest import TOKEN, Server
from tests.service.role_processes import SCHEDULER

pytestmark = pytest.mark.e2e

load_all_checks()
CHECKS = REGISTERED.get_all()
"""Every check schemathesis has (its command line's ``--checks all``): the server's answers as
the document says, and the document exactly as strict as the server (a valid request is not
refused, an invalid one is)."""
JOB_BODIES = {("/job", "POST"), ("/job/{id}", "PUT")}
"""The operations whose body a schema cannot hold to every rule: a cron expression's grammar, a
zone's name, a dependency, executor or channel the server knows, a time already past are the
scenario readers' to judge, and a body breaking one is a 422 naming its field. There a valid
body by the document may be refused, so ``positive_data_acceptance`` is not asked of them;
every other check is, and everywhere else the document is exactly as strict as the server."""
EXAMPLES = 30
PHASES = [Phase.explicit, Phase.reuse, Phase.generate]
"""No shrinking: a request the server never answers costs the client's 10-second timeout, and
shrinking one such failure took 339 s of the suite's 10 minutes; the first failing request is
reported as it came, with a curl line to repeat it."""
SCHEMA = schemathesis.openapi.from_dict(openapi_document())
_TAKES_INPUT = {
    "/job",
    "/jobs",
    "/job/{id}",
    "/job/{id}/runs",
    "/job/{id}/pause",
    "/job/{id}/resume",
}
"""Operations with parameters or a body: the others have no invalid request to generate."""
CASES = [
    (path, method.upper(), mode)
    for path, item in openapi_document()["paths"].items()
    for method in item
    if method != "parameters"
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE or path in _TAKES_INPUT
]


@pytest.fixture(scope="module", params=["single", "api"])
def shared_server(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[Server]:
    directory: Path = tmp_path_factory.mktemp("schemathesis")
    if request.param == "single":
        servers = [Server(directory, "workers: 2\n", "1", TOKEN)]
    else:
        url = request.getfixturevalue("postgres").database()
        (directory / "scheduler").mkdir()
        (directory / "api").mkdir()
        servers = [
            Server(directory / "scheduler", "workers: 2\n", "1", TOKEN, url, SCHEDULER),
            Server(directory / "api", "workers: 2\n", "1", TOKEN, url, ("--role", "api")),
        ]
    try:
        for server in servers:
            server.start()
        yield servers[-1]
    finally:
        for server in servers:
            server.kill()


def test_the_served_document_is_the_one_tested(shared_server: Server) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    served = httpx.get(shared_server.url + "/openapi.json", headers=headers).json()
    assert served == openapi_document()


@pytest.mark.parametrize(("path", "method", "mode"), CASES)
def test_generated_requests_get_answers_the_document_allows(
    shared_server: Server, path: str, method: str, mode: GenerationMode
) -> None:
    operation = SCHEMA[path][method]
    headers = {"Authorization": f"Bearer {TOKEN}"}
    checks = [
        check
        for check in CHECKS
        if not (check is positive_data_acceptance and (path, method) in JOB_BODIES)
    ]

    @settings(
        max_examples=EXAMPLES,
        phases=PHASES,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def check(case) -> None:
        # The token is put back on every call, except where a negative case took the header
        # away or made it invalid: putting it back there made that case valid, and its other
        # change (say, a query parameter the URL could not carry) alone no longer violated
        # anything. The server must then refuse the case's own header.
        negative = mode is GenerationMode.NEGATIVE
        taken_away = negative and "Authorization" not in (case.headers or {})
        made_invalid = negative and case.meta.is_negative_at(ParameterLocation.HEADER)
        own_header = taken_away or made_invalid
        response = case.call(base_url=shared_server.url, headers=None if own_header else headers)
        case.validate_response(response, checks=checks)

    check()
