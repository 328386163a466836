"""``GET /metrics`` on a real server: the token, unless ``--metrics-public`` (what it counts:
test_metrics.py)."""

from __future__ import annotations

import pytest

from tests.service.test_metrics import parse

pytestmark = pytest.mark.e2e


def test_the_route_needs_the_token_unless_public(make_server) -> None:
    server = make_server()
    with server.client() as client:
        assert client.post("/job", json={"id": "a"}).status_code == 201
        answer = client.get("/metrics")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert ("cronlapse_tick", ()) in parse(answer.text)
        assert "/metrics" in client.get("/openapi.json").json()["paths"]
    with server.client(token=None) as anonymous:
        assert anonymous.get("/metrics").status_code == 401
    public = make_server(options=("--metrics-public",))
    with public.client(token=None) as anonymous:
        assert anonymous.get("/metrics").status_code == 200
        assert anonymous.get("/workers").status_code == 401
