"""What the API says of a job's schedule names its times as ISO 8601 dates, never as ticks."""

from __future__ import annotations

import pytest

from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.views import job_json
from tests.service.test_live import Wall, open_live

NOW = 1_796_528_844
"""2026-12-06T03:47:24Z"""


@pytest.mark.parametrize(
    ("job", "described"),
    [
        ({"at": "+60"}, "once at 2026-12-06T03:48:24Z"),
        ({"every": 3600, "first": "+10"}, "every 3600 from 2026-12-06T03:47:34Z"),
        ({"cron": "0 3 * * *"}, "cron 0 3 * * * (UTC)"),
    ],
)
def test_a_schedule_is_described_with_iso_times(job: dict, described: str) -> None:
    wall = Wall()
    wall.now = float(NOW)
    live = open_live(MemoryStore(), wall, workers=1)
    assert live.submit("schedule", {"id": "j", **job}).accepted
    assert job_json(live.state, live.engine.query.job("j"))["schedule"] == described
