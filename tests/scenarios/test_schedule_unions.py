"""``cron:`` as a list (a union), and ``first:``/``repeat:`` beside ``cron``: the schedule of a
systemd timer with several triggers (docs/schedules.md, "Several triggers")."""

from __future__ import annotations

import pytest
from scenario_helpers import problems, scenario

from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import AnyOf, Once, Repeating

CLOCK = 'clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60}'


def schedule_of(job: str):
    return scenario(f"scenario: x\n{CLOCK}\njobs:\n  - {job}\n").jobs[0].schedule


def test_a_list_of_cron_expressions_is_their_union():
    schedule = schedule_of('{id: a, cron: ["0 2 * * *", "0 2 * * 0", "30 14 * * *"]}')
    assert isinstance(schedule, AnyOf)
    assert [part.expression for part in schedule.parts] == ["0 2 * * *", "0 2 * * 0", "30 14 * * *"]
    assert [schedule.first_at_or_after(t) for t in (0, 121, 871)] == [120, 870, 1440 + 120]


def test_one_item_is_a_plain_cron_schedule():
    assert isinstance(schedule_of('{id: a, cron: ["@daily"]}'), CronSchedule)


def test_first_beside_cron_is_one_more_run_and_repeat_restarts_after_each_run():
    schedule = schedule_of('{id: a, cron: "0 3 * * *", first: 10, repeat: 360}')
    assert isinstance(schedule, Repeating) and schedule.interval == 360
    assert isinstance(schedule.anchors, AnyOf) and Once(10) in schedule.anchors.parts
    fires = list(schedule.fire_ticks(0, 1440 + 180))
    assert fires == [10, 180, 540, 900, 1260, 1440 + 180]  # 370: the 03:00 run came first


def test_the_job_timezone_reads_every_item():
    schedule = schedule_of('{id: a, cron: ["0 2 * * *", "0 3 * * *"], timezone: Europe/Berlin}')
    assert {part.clock.zone.key for part in schedule.parts} == {"Europe/Berlin"}


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        ("{id: a, cron: []}", "jobs[0].cron: expected at least one cron expression"),
        ("{id: a, cron: ['0 2 * * *', 5]}", "jobs[0].cron[1]: expected a cron expression"),
        (
            "{id: a, cron: ['0 2 * * *', '0 99 * * *']}",
            "jobs[0].cron[1]: hour field '99' is invalid",
        ),
        ("{id: a, every: 5, repeat: 3}", "jobs[0].repeat: repeat only goes with cron"),
        ("{id: a, cron: '@daily', repeat: 0}", "jobs[0].repeat: expected a whole number from 1"),
        ("{id: a, at: 10, first: 5}", "jobs[0].first: first only goes with every or cron"),
    ],
)
def test_wrong_lists_and_companions_are_refused_where_they_are(job, expected):
    found = problems(f"scenario: x\n{CLOCK}\njobs:\n  - {job}\n")
    assert any(expected in problem for problem in found), found
