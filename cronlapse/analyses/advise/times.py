"""Ticks as a reader of advice wants them: wall times in the fleet's zone, when it has a clock."""

from __future__ import annotations

from engine.scenario import Scenario


def when(scenario: Scenario, tick: int) -> str:
    """``2026-01-05 00:00`` in the clock's zone (``tick 12`` without a clock)."""
    if scenario.clock is None:
        return f"tick {tick}"
    return f"{scenario.clock.to_datetime(tick):%Y-%m-%d %H:%M}"


def time_of_day(scenario: Scenario, tick: int) -> str:
    """``00:00`` in the clock's zone (``tick 12`` without a clock)."""
    if scenario.clock is None:
        return f"tick {tick}"
    return f"{scenario.clock.to_datetime(tick):%H:%M}"


def zone_name(scenario: Scenario) -> str:
    return "" if scenario.clock is None else scenario.clock.zone.key
