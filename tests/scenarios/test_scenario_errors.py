"""Every kind of problem a scenario can have: its exact message, its key path and its position."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scenario_helpers import problems

from engine.model.problems import Code
from engine.scenario import ScenarioInvalid, parse_scenario

CASES = [
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, priorty: high}
        """,
        "s.yaml:4:13: jobs[0].priorty: unknown key 'priorty' (did you mean 'priority'?)",
        id="unknown key with a suggestion",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {name: report, at: 10}
        """,
        "s.yaml:4:6: jobs[0].name: unknown key 'name' (did you mean 'id'?)",
        id="unknown key that is a synonym of a job's key",
    ),
    pytest.param(
        """
        name: x
        """,
        "s.yaml:2:1: name: unknown key 'name' (did you mean 'scenario'?)",
        id="unknown key that is a synonym of a top-level key",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 1, cancel: {name: a}}
        """,
        "s.yaml:4:22: timeline[0].cancel.name: unknown key 'name' (did you mean 'job'?)",
        id="unknown key that is a synonym of a command's key",
    ),
    pytest.param(
        """
        scenario: x
        colour: red
        """,
        "s.yaml:3:1: colour: unknown key 'colour': expected 'clock', 'defaults', 'description', "
        "'expect', 'generate', 'jobs', 'policy', 'pools', 'scenario', 'scheduler_down', 'seed', "
        "'seed_skip', 'timeline', 'timeline_phase' or 'workers'",
        id="unknown key without a close one",
    ),
    pytest.param(
        """
        description: no name
        """,
        "s.yaml:2:1: missing required key 'scenario'",
        id="missing required key",
    ),
    pytest.param(
        """
        scenario: x
        seed: abc
        """,
        "s.yaml:3:7: seed: expected a whole number from 0 to 9223372036854775807, "
        "got the string 'abc'",
        id="wrong type",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - id: a
            duration: 0
        """,
        "s.yaml:5:15: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
        "got the number 0",
        id="out of range",
    ),
    pytest.param(
        """
        scenario: x
        policy: {order: priorty}
        """,
        "s.yaml:3:17: policy.order: expected 'fifo', 'priority' or 'aging', got 'priorty' "
        "(did you mean 'priority'?)",
        id="enum value with a suggestion",
    ),
    pytest.param(
        """
        scenario: x
        policy: {order: aging}
        """,
        "s.yaml:3:17: policy.order: the aging order needs policy.aging_step",
        id="aging without a step",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - id: a
            id: b
        """,
        "s.yaml:5:5: jobs[0].id: duplicate key 'id' (first at 4:5)",
        id="duplicate key",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a}
          - {id: a}
        """,
        "s.yaml:5:10: jobs[1].id: duplicate job id 'a' (first at 4:10)",
        id="duplicate job id",
    ),
    pytest.param(
        """
        scenario: x
        workers: [w-a, {id: w-a}]
        """,
        "s.yaml:3:21: workers[1].id: duplicate worker id 'w-a' (first at 3:11)",
        id="duplicate worker id",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: report}
          - {id: publish, depends_on: [reprot]}
        """,
        "s.yaml:5:32: jobs[1].depends_on[0]: unknown job 'reprot' (did you mean 'report'?)",
        id="unknown job reference",
    ),
    pytest.param(
        """
        scenario: x
        workers: [w-a]
        timeline:
          - {at: 5, down: {worker: w-b}}
        """,
        "s.yaml:5:28: timeline[0].down.worker: unknown worker 'w-b' (did you mean 'w-a'?)",
        id="unknown worker reference",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 10, schedule: {id: late}}
        expect:
          - {at: 5, job: late, status: QUEUED}
        """,
        "s.yaml:6:18: expect[0].job: job 'late' is used at tick 5 but only defined at tick 10",
        id="reference before the definition",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, depends_on: [c]}
          - {id: b, depends_on: [a]}
          - {id: c, depends_on: [b]}
        """,
        "s.yaml:4:26: jobs[0].depends_on[0]: dependency cycle: a -> c -> b -> a",
        id="dependency cycle",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, depends_on: [a]}
        """,
        "s.yaml:4:26: jobs[0].depends_on[0]: dependency cycle: a -> a",
        id="self dependency",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, depends_on: [b]}
          - {id: b}
        """,
        "s.yaml:4:26: jobs[0].depends_on[0]: 'b' is defined after this job (line 5): "
        "a job can only depend on jobs defined before it",
        id="dependency defined later",
    ),
    pytest.param(
        """
        scenario: x
        clock: {timezone: UTC}
        jobs:
          - {id: a, cron: "61 * * * *"}
        """,
        "s.yaml:5:19: jobs[0].cron: minute field '61' is invalid: expected 0-59, as a single "
        "value, a range a-b, a step */n or a-b/n, or a comma-separated list",
        id="invalid cron expression",
    ),
    pytest.param(
        """
        scenario: x
        clock: {timezone: Europe/Berlinn}
        """,
        "s.yaml:3:19: clock.timezone: unknown time zone 'Europe/Berlinn': expected an IANA name "
        "such as 'Europe/Berlin' or 'UTC'",
        id="invalid time zone",
    ),
    pytest.param(
        """
        scenario: x
        clock: {epoch: "2026-03-29T02:30:00", timezone: Europe/Berlin}
        """,
        "s.yaml:3:16: clock.epoch: 2026-03-29T02:30:00 does not exist in Europe/Berlin (the "
        "clocks skip it at a DST change): give a UTC offset or another time",
        id="epoch in the DST gap",
    ),
    pytest.param(
        """
        scenario: x
        clock: {timezone: UTC}
        jobs:
          - {id: a, daily: "25:30"}
        """,
        "s.yaml:5:20: jobs[0].daily: expected a time of day HH:MM from 00:00 to 23:59, got '25:30'",
        id="invalid time of day",
    ),
    pytest.param(
        """
        scenario: x
        clock: {timezone: UTC}
        jobs:
          - {id: a, weekly: {days: [mon, funday], at: "09:00"}}
        """,
        "s.yaml:5:28: jobs[0].weekly.days: day-of-week field 'mon,funday' is invalid: expected "
        "0-7 (0 and 7 are Sunday) or sun-sat, as a single value, a range a-b, a step */n or "
        "a-b/n, or a comma-separated list",
        id="invalid weekday",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, daily: "02:30"}
        """,
        "s.yaml:4:20: jobs[0].daily: a daily schedule needs a clock: add clock: "
        "{epoch: ..., timezone: ...}",
        id="calendar schedule without a clock",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, at: 10, every: 5}
        """,
        "s.yaml:4:28: jobs[0].every: a job has one schedule: give at or every, not both",
        id="two schedules",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, at: 10, first: 5}
        """,
        "s.yaml:4:28: jobs[0].first: first only goes with every or cron",
        id="first without every",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 10, schedule: {id: a, at: 5}}
        """,
        "s.yaml:4:36: timeline[0].schedule.at: tick 5 is before tick 10, when this job is "
        "scheduled: it would never run",
        id="one-time job in the past",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, max_retries: 1, max_attempts: 2}
        """,
        "s.yaml:4:43: jobs[0].max_attempts: give max_retries or max_attempts, not both "
        "(max_attempts = max_retries + 1)",
        id="max_retries and max_attempts",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 10}
        """,
        "s.yaml:4:5: timeline[0]: expected one command: 'register', 'schedule', 'dispatch', "
        "'complete', 'delivery', 'fail', 'modify', 'cancel', 'delete', 'pause', 'resume', "
        "'backfill', 'down', 'up', 'drain' or 'status'",
        id="timeline entry without a command",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 10, dispatch: {}, status: {job: a, scheduled: 1}}
        """,
        "s.yaml:4:36: timeline[0].status: one command per entry; dispatch is given",
        id="two commands in an entry",
    ),
    pytest.param(
        """
        scenario: x
        policy: {dispatch: manual}
        timeline:
          - {at: 10, dispatch: {}, expect: okay}
        """,
        "s.yaml:5:36: timeline[0].expect: expected 'created', 'ok', 'not_found', 'conflict' or "
        "'invalid', got 'okay' (did you mean 'ok'?)",
        id="unknown answer",
    ),
    pytest.param(
        """
        scenario: x
        policy: {dispatch: manual}
        timeline:
          - {at: 10, dispatch: {}, expect: ["a,b,c"]}
        """,
        's.yaml:5:37: timeline[0].expect[0]: expected "job,scheduled,attempt,worker" such as '
        "\"report,10,1,w-a\", got the string 'a,b,c'",
        id="malformed assignment",
    ),
    pytest.param(
        """
        scenario: x
        expect:
          - {at: 10, counts: {QUEUED: 1}}
        """,
        "s.yaml:4:23: expect[0].counts.QUEUED: QUEUED cannot be counted: runs that fall due and "
        "wait stay implicit until a worker takes them; check one occurrence's status instead",
        id="uncountable state",
    ),
    pytest.param(
        """
        scenario: x
        expect:
          - {at: 10, events: {AttemptStrted: 1}}
        """,
        "s.yaml:4:23: expect[0].events.AttemptStrted: unknown event type 'AttemptStrted' "
        "(did you mean 'AttemptStarted'?)",
        id="unknown event type",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, every: 5}
        expect:
          - {at: 10, job: a, status: QUEUED}
        """,
        "s.yaml:6:19: expect[0].job: give scheduled: 'a' is not a one-time job with a single "
        "occurrence",
        id="occurrence of a recurring job without scheduled",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a}
        expect:
          - {at: 10, job: a}
        """,
        "s.yaml:6:5: expect[0]: expected a check: 'status', 'attempts', 'counts', 'events' or "
        "'state'",
        id="expectation without a check",
    ),
    pytest.param(
        """
        scenario: x
        workers: [w]
        expect:
          - {at: 10, worker: w, status: IDLE}
        """,
        "s.yaml:5:33: expect[0].status: status needs a job",
        id="check without its subject",
    ),
    pytest.param(
        """
        scenario: x
        clock: {until: 100}
        expect:
          - {at: 200, counts: {SUCCEEDED: 0}}
        """,
        "s.yaml:5:35: expect: tick 200 is after clock.until (100): it would never be reached",
        id="tick after until",
    ),
    pytest.param(
        """
        scenario: x
        workers: [{id: w, down: [[10, 5]]}]
        """,
        "s.yaml:3:31: workers[0].down[0][1]: expected a tick after 10, got 5",
        id="worker back up before it went down",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, at: !!python/object:os.system ls}
        """,
        "s.yaml:4:17: jobs[0].at: tag !!python/object:os.system is not allowed: scenario files "
        "hold plain data only (mappings, lists, strings, numbers, true/false, null)",
        id="python tag",
    ),
    pytest.param(
        """
        scenario: x
        defaults: &base {duration: 5}
        jobs:
          - {id: a, <<: *base}
        """,
        "s.yaml:3:11: anchor &base: anchors and aliases are not allowed (they are how 'billion "
        "laughs' files explode); write the value out",
        id="anchor",
    ),
    pytest.param(
        """
        scenario: x
        generate:
          - {count: 3, id: "job"}
        """,
        "s.yaml:4:20: generate[0].id: expected one {n} or {n:04} in the id pattern, got 'job'",
        id="id pattern without {n}",
    ),
    pytest.param(
        """
        scenario: x
        generate:
          - {count: 3, id: "job-{n}", spread: {duration: [5, 1]}}
        """,
        "s.yaml:4:54: generate[0].spread.duration[1]: expected a maximum >= 5, got 1",
        id="empty spread",
    ),
    pytest.param(
        """
        scenario: x
        clock: {epoch: "2026-01-01T00:00:00", tick: 60}
        jobs:
          - {id: a, monthly: "²@09:00"}
        """,
        "s.yaml:5:22: jobs[0].monthly: day-of-month field '²' is invalid: expected 1-31 or L (the"
        " last day of the month), as a single value, a range a-b, a step */n or a-b/n, or a"
        " comma-separated list",
        id="a digit str.isdigit takes and int refuses",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_problem_is_reported_where_it_is(text: str, expected: str) -> None:
    assert expected in problems(text)


def test_all_problems_of_a_file_are_reported_at_once_in_file_order() -> None:
    found = problems(
        """
        scenario: x
        policy: {order: lifo}
        jobs:
          - {id: a, duration: -1}
          - {id: b, depends_on: [zzz]}
        expect:
          - {at: 1, job: a, status: DONE}
        """
    )
    assert [error.split(": ")[0] for error in found] == [
        "s.yaml:3:17",
        "s.yaml:5:23",
        "s.yaml:6:26",
        "s.yaml:8:29",
    ]


def test_a_wrong_default_is_reported_once_not_for_every_job() -> None:
    found = problems(
        """
        scenario: x
        defaults: {max_retries: -1}
        jobs: [{id: a}, {id: b}]
        expect:
          - {at: 1, job: b, status: SUCCEEDED}
        """
    )
    assert found == [
        "s.yaml:3:25: defaults.max_retries: expected a whole number from 0 to 1000, "
        "got the number -1"
    ]


def test_a_wrong_job_is_still_defined_for_references() -> None:
    found = problems(
        """
        scenario: x
        jobs:
          - {id: a, duration: zero}
        expect:
          - {at: 1, job: a, status: SUCCEEDED}
        """
    )
    assert len(found) == 1 and "jobs[0].duration" in found[0]


def test_a_wrong_clock_does_not_also_report_missing_clocks() -> None:
    found = problems(
        """
        scenario: x
        clock: {timezone: Mars/Olympus}
        jobs:
          - {id: a, daily: "02:30"}
        """
    )
    assert len(found) == 1 and "clock.timezone" in found[0]


def test_a_command_stating_its_answer_may_test_an_unknown_id() -> None:
    from scenario_helpers import scenario

    loaded = scenario(
        """
        scenario: x
        policy: {dispatch: manual, completion: reported}
        timeline:
          - {at: 1, complete: {job: ghost, scheduled: 1, attempt: 1, ok: true}, expect: conflict}
          - {at: 1, status: {job: ghost, scheduled: 1}, expect: ""}
        """
    )
    assert len(loaded.timeline) == 2


JOB_WITH_ANOTHER_ERROR = [
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a}
          - {id: b, at: "soon", depends_on: [ghost]}
        """,
        [
            "s.yaml:5:17: jobs[1].at: a time of day or an ISO time needs a clock: add clock: "
            "{epoch: ..., timezone: ...}",
            "s.yaml:5:38: jobs[1].depends_on[0]: unknown job 'ghost'",
        ],
        id="invalid field and unknown dependency",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, duration: 0}
          - {id: b, depends_on: [c]}
          - {id: c, depends_on: [b], priority: huge}
        """,
        [
            "s.yaml:4:23: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
            "got the number 0",
            "s.yaml:5:26: jobs[1].depends_on[0]: dependency cycle: b -> c -> b",
            "s.yaml:6:40: jobs[2].priority: expected 'high', 'medium' or 'low', got 'huge'",
        ],
        id="invalid field and cycle",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, duration: 0, depends_on: [ghost1]}
          - {id: b, priority: huge, depends_on: [ghost2]}
        """,
        [
            "s.yaml:4:23: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
            "got the number 0",
            "s.yaml:4:39: jobs[0].depends_on[0]: unknown job 'ghost1'",
            "s.yaml:5:23: jobs[1].priority: expected 'high', 'medium' or 'low', got 'huge'",
            "s.yaml:5:42: jobs[1].depends_on[0]: unknown job 'ghost2'",
        ],
        id="two jobs each with errors",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, depends_on: [b], duration: 0}
          - {id: b}
        """,
        [
            "s.yaml:4:26: jobs[0].depends_on[0]: 'b' is defined after this job (line 5): "
            "a job can only depend on jobs defined before it",
            "s.yaml:4:40: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
            "got the number 0",
        ],
        id="invalid field and dependency defined later",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: r, every: 5}
          - {id: a, depends_on: [r], duration: 0}
        """,
        [
            "s.yaml:5:40: jobs[1].duration: expected a whole number from 1 to 1000000000000, "
            "got the number 0",
        ],
        id="invalid field beside a recurring dependency, which is fine",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, depends_on: [ghost, [1]]}
        """,
        [
            "s.yaml:4:26: jobs[0].depends_on[0]: unknown job 'ghost'",
            "s.yaml:4:33: jobs[0].depends_on[1]: expected a job id, got a list",
        ],
        id="invalid dependency beside an unknown one",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: "a,b", depends_on: [ghost]}
          - {depends_on: [ghost2]}
        """,
        [
            "s.yaml:4:10: jobs[0].id: 'a,b' is not a valid id: use 1-100 characters, no ','",
            "s.yaml:4:30: jobs[0].depends_on[0]: unknown job 'ghost'",
            "s.yaml:5:5: jobs[1]: missing required key 'id'",
            "s.yaml:5:19: jobs[1].depends_on[0]: unknown job 'ghost2'",
        ],
        id="invalid or missing id and unknown dependency",
    ),
    pytest.param(
        """
        scenario: x
        timeline:
          - {at: 3, schedule: {id: a, duration: 0, depends_on: [ghost]}}
        """,
        [
            "s.yaml:4:41: timeline[0].schedule.duration: expected a whole number from 1 to "
            "1000000000000, got the number 0",
            "s.yaml:4:57: timeline[0].schedule.depends_on[0]: unknown job 'ghost'",
        ],
        id="schedule command with an invalid field and an unknown dependency",
    ),
    pytest.param(
        """
        scenario: x
        jobs:
          - {id: a, every: 5, duration: 0}
        expect:
          - {at: 5, job: a, status: SUCCEEDED}
        """,
        [
            "s.yaml:4:33: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
            "got the number 0",
            "s.yaml:6:18: expect[0].job: give scheduled: 'a' is not a one-time job with a "
            "single occurrence",
        ],
        id="invalid field of a recurring job and an expectation without scheduled",
    ),
]


@pytest.mark.parametrize(("text", "expected"), JOB_WITH_ANOTHER_ERROR)
def test_a_job_with_an_error_still_has_its_references_checked(
    text: str, expected: list[str]
) -> None:
    assert problems(text) == expected


_JOB_IDS = ("a", "b", "c", "d")


@st.composite
def _job_lines(draw: st.DrawFn) -> list[str]:
    """Flow-style job lines whose dependencies may be unknown, later, cyclic or recurring."""
    count = draw(st.integers(1, len(_JOB_IDS)))
    lines = []
    for job_id in _JOB_IDS[:count]:
        schedule = draw(st.sampled_from(["", ", every: 5", ", at: 3"]))
        dependencies = draw(st.lists(st.sampled_from([*_JOB_IDS, "ghost"]), max_size=3))
        lines.append(f"  - {{id: {job_id}{schedule}, depends_on: [{', '.join(dependencies)}]")
    return lines


def _errors(lines: list[str]) -> set[str]:
    text = "scenario: x\njobs:\n" + "\n".join(line + "}" for line in lines) + "\n"
    try:
        parse_scenario(text, "s.yaml")
    except ScenarioInvalid as invalid:
        return {str(error) for error in invalid.problems}
    return set()


@given(_job_lines(), st.data())
def test_another_error_in_a_job_hides_none_of_the_others(lines: list[str], data: st.DataObject):
    """Breaking one key of one job (at the end of its line, so nothing moves) keeps every error
    the file had: fixing that key alone would leave them all."""
    index = data.draw(st.integers(0, len(lines) - 1))
    broken = [*lines]
    broken[index] += data.draw(st.sampled_from([", duration: 0", ", priority: huge", ", nope: 1"]))
    before, after = _errors(lines), _errors(broken)
    assert before < after


def test_keys_from_other_schedulers_suggest_the_key_meant() -> None:
    assert problems(
        """
        scenario: x
        jobs:
          - {id: a, interval: 5, deps: [b], runtime: 3}
        """
    ) == [
        "s.yaml:4:13: jobs[0].interval: unknown key 'interval' (did you mean 'every'?)",
        "s.yaml:4:26: jobs[0].deps: unknown key 'deps' (did you mean 'depends_on'?)",
        "s.yaml:4:37: jobs[0].runtime: unknown key 'runtime' (did you mean 'duration'?)",
    ]


def test_a_synonym_suggests_only_a_key_valid_where_it_is_written() -> None:
    assert problems(
        """
        scenario: x
        clock: {name: utc}
        """
    ) == [
        "s.yaml:3:9: clock.name: unknown key 'name': expected 'epoch', 'tick', 'timezone' or "
        "'until'"
    ]


def test_every_synonym_names_keys_that_exist() -> None:
    from engine.scenario import expect, generate, jobs, settings, timeline, validate
    from engine.scenario.errors import KEY_SYNONYMS

    modules = (expect, generate, jobs, settings, timeline, validate)
    keys = {
        key
        for module in modules
        for name, value in vars(module).items()
        if name.endswith("_KEYS")
        for key in value
    }
    assert {key for meant in KEY_SYNONYMS.values() for key in meant} <= keys


def test_an_unknown_key_is_told_apart_by_its_code_and_names_the_key() -> None:
    """A sweep refuses to vary a key the scenario cannot take: it asks the problem's code and
    subject, not its wording (which carries a suggestion that may change)."""
    with pytest.raises(ScenarioInvalid) as caught:
        parse_scenario("scenario: x\nworkers: [w]\njobs:\n  - {id: a, at: 5, colour: red}\n")
    (problem,) = caught.value.problems
    assert (problem.code, problem.subject, problem.path) == (
        Code.UNKNOWN_KEY,
        "colour",
        "jobs[0].colour",
    )
