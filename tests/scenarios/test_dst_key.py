"""``dst:``, a calendar schedule's rule at DST changes (docs/schedules.md, "A job's DST rule")."""

from __future__ import annotations

import pytest
from scenario_helpers import problems, scenario

from engine.schedules.calendar import CronSchedule, DstRule
from engine.schedules.kinds import AnyOf

CLOCK = 'clock: {epoch: "2026-03-29T00:00:00", timezone: Europe/Berlin, tick: 60}'


def schedule_of(job: str):
    return scenario(f"scenario: x\n{CLOCK}\njobs:\n  - {job}\n").jobs[0].schedule


def test_without_dst_a_calendar_follows_debian_cron():
    schedule = schedule_of('{id: a, cron: "30 2 * * *"}')
    assert isinstance(schedule, CronSchedule) and schedule.dst is DstRule.CRON
    assert schedule.first_at_or_after(0) == 120  # 02:30 does not exist: at the jump, 03:00


KEYS = ['cron: "30 2 * * *"', 'daily: "02:30"', 'weekly: "sun,mon@02:30"']


@pytest.mark.parametrize("key", KEYS)
def test_kubernetes_and_systemd_skip_a_time_in_the_gap(key):
    for rule in ("kubernetes", "systemd"):
        schedule = schedule_of(f"{{id: a, {key}, dst: {rule}}}")
        assert schedule.dst is DstRule(rule)
        assert schedule.first_at_or_after(0) == 1440 - 60 + 150  # the next day's 02:30


def test_dst_reads_every_item_of_a_list_and_ignores_case():
    schedule = schedule_of('{id: a, cron: ["30 2 * * *", "0 4 * * *"], dst: Systemd}')
    assert isinstance(schedule, AnyOf)
    assert {part.dst for part in schedule.parts} == {DstRule.SYSTEMD}


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        ("{id: a, every: 5, dst: kubernetes}", "jobs[0].dst: dst goes with a calendar schedule"),
        ("{id: a, dst: systemd}", "jobs[0].dst: dst goes with a calendar schedule"),
        (
            "{id: a, cron: '@daily', dst: kubernets}",
            "jobs[0].dst: expected 'cron', 'kubernetes', 'nomad' or 'systemd', got 'kubernets' "
            "(did you mean 'kubernetes'?)",
        ),
    ],
)
def test_a_wrong_dst_is_refused_at_the_key(job, expected):
    found = problems(f"scenario: x\n{CLOCK}\njobs:\n  - {job}\n")
    assert any(expected in problem for problem in found), found
