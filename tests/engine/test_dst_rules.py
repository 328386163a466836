"""A calendar schedule's daylight-saving rule (``dst:``): each system's own, as ``explain dst``
models it, walked lazily by the engine from any tick."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.explain.dst import changes, every_match_fires, first_pass_fires
from engine.schedules.calendar import CronSchedule, DstRule
from engine.schedules.clock import Clock

BERLIN, NEW_YORK, LORD_HOWE = (
    ZoneInfo("Europe/Berlin"),
    ZoneInfo("America/New_York"),
    ZoneInfo("Australia/Lord_Howe"),
)
MODELS = {DstRule.KUBERNETES: every_match_fires, DstRule.NOMAD: every_match_fires}
MODELS[DstRule.SYSTEMD] = first_pass_fires


def fires(cron: str, zone: ZoneInfo, rule: DstRule, start: datetime, end: datetime) -> list[str]:
    """The local fire times from ``start`` to ``end`` with one-minute ticks."""
    clock = Clock(start, zone, 60)
    schedule = CronSchedule(cron, clock, rule)
    high = clock.to_tick_ceil(end) - 1
    return [clock.format(tick) for tick in schedule.fire_ticks(0, high)]


SPRING = datetime(2026, 3, 29, 0, 0, tzinfo=UTC)
AUTUMN = datetime(2026, 10, 24, 23, 0, tzinfo=UTC)


def test_a_time_in_the_gap_is_skipped_by_kubernetes_and_systemd_and_runs_at_the_jump_in_cron() -> (
    None
):
    end = SPRING + timedelta(hours=4)
    assert fires("30 2 * * *", BERLIN, DstRule.CRON, SPRING, end) == ["2026-03-29T03:00:00+02:00"]
    assert fires("30 2 * * *", BERLIN, DstRule.KUBERNETES, SPRING, end) == []
    assert fires("30 2 * * *", BERLIN, DstRule.SYSTEMD, SPRING, end) == []


def test_a_repeated_time_runs_twice_under_kubernetes_and_once_under_systemd() -> None:
    end = AUTUMN + timedelta(hours=4)
    twice = ["2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00"]
    assert fires("30 2 * * *", BERLIN, DstRule.KUBERNETES, AUTUMN, end) == twice
    assert fires("30 2 * * *", BERLIN, DstRule.SYSTEMD, AUTUMN, end) == twice[:1]
    assert fires("30 2 * * *", BERLIN, DstRule.CRON, AUTUMN, end) == twice[:1]
    hourly = fires("30 * * * *", BERLIN, DstRule.SYSTEMD, AUTUMN, end)
    assert hourly == [
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T03:30:00+01:00",
    ]


def test_the_default_rule_is_debian_crons() -> None:
    clock = Clock(SPRING, BERLIN, 60)
    assert CronSchedule("30 2 * * *", clock) == CronSchedule("30 2 * * *", clock, DstRule.CRON)
    assert CronSchedule("30 2 * * *", clock, DstRule.SYSTEMD).describe() == (
        "cron 30 2 * * * (Europe/Berlin, systemd's DST rule)"
    )


EXPRESSIONS = st.sampled_from(
    [
        *("30 2 * * *", "0,30 2 * * *", "30 1 * * *", "*/15 * * * *", "30 * * * *"),
        *("15 2 * * *", "* 2 * * *", "0 9-17 * * *", "*/20 1-3 * * *", "45 0-2 * * *"),
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    cron=EXPRESSIONS,
    zone=st.sampled_from([BERLIN, NEW_YORK, LORD_HOWE]),
    rule=st.sampled_from(list(MODELS)),
    change=st.integers(0, 1),
    lead=st.integers(0, 150),
)
def test_the_engine_walks_each_rule_as_explain_dst_models_it(
    cron: str, zone: ZoneInfo, rule: DstRule, change: int, lead: int
) -> None:
    """Started anywhere from two and a half hours before a change, the lazy walk gives what the
    minute-by-minute model, running since well before, gives from there: the same instants,
    whatever the start (a repeated time whose first pass came before the start is still a
    repeat to systemd)."""
    instant = changes(zone, 2026)[change].instant
    start = instant - timedelta(minutes=lead)
    end = instant + timedelta(hours=3)
    model = MODELS[rule](cron, zone, instant - timedelta(hours=5), end)
    expected = [fire.astimezone(zone).isoformat() for fire in model if fire >= start]
    assert fires(cron, zone, rule, start, end) == expected


@pytest.mark.parametrize("rule", list(DstRule))
def test_counting_agrees_with_walking_across_a_year(rule: DstRule) -> None:
    clock = Clock(datetime(2026, 1, 1, tzinfo=BERLIN), BERLIN, 60)
    schedule = CronSchedule("*/30 1-3 * * *", clock, rule)
    high = 366 * 24 * 60
    assert schedule.count_fire_ticks(0, high) == sum(1 for _ in schedule.fire_ticks(0, high))
