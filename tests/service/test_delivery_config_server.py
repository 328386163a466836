"""A real server refuses the channels its config does not define (the config itself:
test_delivery_config.py)."""

from __future__ import annotations

import pytest

from tests.service.conftest import Server
from tests.service.test_delivery_config import CHANNELS

pytestmark = pytest.mark.e2e


def test_the_api_refuses_unknown_channels_and_accepts_configured_ones(make_server) -> None:
    server: Server = make_server(config=CHANNELS)
    hook = {"on": ["succeeded"], "channel": "webhook", "to": "ops-hook"}
    with server.client() as client:
        created = client.post("/job", json={"id": "a", "every": 3600, "notify": [hook]})
        assert created.status_code == 201
        unknown = client.post(
            "/job", json={"id": "b", "every": 60, "run": "nope", "notify": [{**hook, "to": "x"}]}
        )
        assert unknown.status_code == 422
        assert [e["path"] for e in unknown.json()["errors"]] == ["run", "notify[0].to"]
        assert client.get("/job/b").status_code == 404, "nothing was journaled"
        mail = {"on": ["failed"], "channel": "email", "to": "oncall-mail"}
        assert client.put("/job/a", json={"notify": [hook, mail]}).status_code == 204
        wrong = client.put("/job/a", json={"notify": [{**mail, "channel": "slack"}]})
        assert wrong.status_code == 422
        assert wrong.json()["errors"] == [
            {
                "path": "notify[0].to",
                "message": "channel 'oncall-mail' is an email channel, not slack",
            }
        ]
