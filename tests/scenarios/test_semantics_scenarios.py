"""The semantics scenarios (scenarios/semantics/) and the scenario keys they use: each bundled
scenario teaches one rule of a source system and its expectations hold, with no invariant broken;
``overlap`` and ``max_active`` read the same in a file and on the command line."""

from __future__ import annotations

import io
from argparse import Namespace
from pathlib import Path

import pytest
from scenario_helpers import problems, scenario

from cronlapse.cli.check import check_command
from engine.model.commands import PauseJob, ResumeJob, ScheduleJob
from engine.model.job_rules import Overlap, OverlapRule
from engine.scenario import ScenarioRunner, load_scenario
from engine.scenario.vocabulary import VERBS, read_words

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios" / "semantics"
FILES = sorted(LIBRARY.glob("*.yaml"))


def test_every_rule_has_a_scenario() -> None:
    names = {path.name for path in FILES}
    assert {
        "overlap-kubernetes.yaml",
        "overlap-temporal.yaml",
        "overlap-systemd.yaml",
        "overlap-airflow.yaml",
        "pools-airflow.yaml",
        "dependencies-airflow.yaml",
        "trigger-rules.yaml",
        "deadline-airflow.yaml",
        "missed-runs-after-a-pause.yaml",
        "scheduler-outage.yaml",
        "backfill-airflow.yaml",
        "worker-shortage.yaml",
    } <= names


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_a_semantics_scenario_teaches_and_its_expectations_hold(path: Path) -> None:
    assert path.read_text(encoding="utf-8").startswith("# "), "a header comment on what it teaches"
    runner = ScenarioRunner(load_scenario(str(path)))
    assert [str(failure) for failure in runner.run()] == []
    assert runner.checked > 0


def test_check_over_the_semantics_scenarios_finds_no_mismatch_and_no_violation() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = check_command(Namespace(files=[str(path) for path in FILES]), out, err)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().endswith(" 0 mismatches\n")


def rules(text: str) -> dict[str, OverlapRule | None]:
    return {spec.job_id: spec.overlap for spec in scenario(text).jobs}


def test_overlap_and_max_active_make_one_rule() -> None:
    assert rules(
        """
        scenario: x
        jobs:
          - {id: a, every: 5, overlap: Forbid}
          - {id: b, every: 5, overlap: bufferone, max_active: 3}
          - {id: c, every: 5, max_active: 2}
          - {id: d, every: 5, overlap: Allow}
          - {id: e, every: 5, overlap: AllowAll}
          - {id: f, every: 5}
        """
    ) == {
        "a": OverlapRule(Overlap.FORBID, 1),
        "b": OverlapRule(Overlap.BUFFER_ONE, 3),
        "c": OverlapRule(Overlap.MAX_ACTIVE_RUNS, 2),
        "d": None,
        "e": None,
        "f": None,
    }


def test_defaults_give_a_rule_a_job_may_complete_or_override() -> None:
    assert rules(
        """
        scenario: x
        defaults: {overlap: Skip}
        jobs:
          - {id: a, every: 5}
          - {id: b, every: 5, max_active: 2}
          - {id: c, every: 5, overlap: Replace}
        """
    ) == {
        "a": OverlapRule(Overlap.SKIP, 1),
        "b": OverlapRule(Overlap.SKIP, 2),
        "c": OverlapRule(Overlap.REPLACE, 1),
    }


def test_overlap_errors_name_the_key_and_what_was_expected() -> None:
    assert problems(
        """
        scenario: x
        jobs:
          - {id: a, every: 5, overlap: Forbidd}
          - {id: b, every: 5, overlap: Allow, max_active: 2}
          - {id: c, every: 5, max_active: 0}
          - {id: d, every: 5, concurrencyPolicy: Forbid, max_active_runs: 2}
        """
    ) == [
        "s.yaml:4:32: jobs[0].overlap: expected 'Allow', 'AllowAll', 'Forbid', 'Replace', "
        "'Skip', 'BufferOne', 'BufferAll', 'BufferLatest', 'CancelOther', 'TerminateOther' or "
        "'max_active_runs', got 'Forbidd' (did you mean 'Forbid'?)",
        "s.yaml:5:51: jobs[1].max_active: overlap Allow runs without a limit: drop "
        "max_active: 2, or give a policy such as BufferAll or Forbid",
        "s.yaml:6:35: jobs[2].max_active: expected a whole number from 1 to 1000000, got the "
        "number 0",
        "s.yaml:7:23: jobs[3].concurrencyPolicy: unknown key 'concurrencyPolicy' (did you "
        "mean 'overlap'?)",
        "s.yaml:7:50: jobs[3].max_active_runs: unknown key 'max_active_runs' (did you mean "
        "'max_active'?)",
    ]


def test_the_command_line_reads_the_same_rule() -> None:
    action = read_words(VERBS["schedule"], ["x", "every=10", "overlap=BufferAll"], 0, None)
    assert isinstance(action, ScheduleJob)
    assert action.spec.overlap == OverlapRule(Overlap.BUFFER_ALL, 1)
    action = read_words(VERBS["schedule"], ["x", "every=10", "max_active=4"], 0, None)
    assert isinstance(action, ScheduleJob)
    assert action.spec.overlap == OverlapRule(Overlap.MAX_ACTIVE_RUNS, 4)


def test_pools_are_read_into_the_policy_and_jobs_name_them() -> None:
    read = scenario(
        """
        scenario: x
        pools: {warehouse: 2, api: 1}
        defaults: {pool: api}
        jobs:
          - {id: a, every: 5, pool: warehouse}
          - {id: b, every: 5}
        """
    )
    assert read.policy.pools == (("warehouse", 2), ("api", 1))
    assert [spec.pool for spec in read.jobs] == ["warehouse", "api"]


def test_pool_errors_name_the_key_and_what_was_expected() -> None:
    assert problems(
        """
        scenario: x
        pools: {warehouse: 0, api: many}
        jobs:
          - {id: a, every: 5, pool: warehous}
        """
    ) == [
        "s.yaml:3:20: pools.warehouse: expected a whole number from 1 to 1000000, got the number 0",
        "s.yaml:3:28: pools.api: expected a whole number from 1 to 1000000, got the string 'many'",
    ]
    assert problems("scenario: x\npools: [a]\n") == [
        "s.yaml:2:8: pools: expected a mapping of pool names to their slots, got a list"
    ]
    assert problems(
        """
        scenario: x
        pools: {warehouse: 2}
        jobs:
          - {id: a, every: 5, pool: warehous}
          - {id: b, every: 5, pool: [x]}
        """
    ) == [
        "s.yaml:5:29: jobs[0].pool: pool 'warehous' does not exist: expected one of warehouse",
        "s.yaml:6:29: jobs[1].pool: expected a pool name, got a list",
    ]


def test_deadline_and_trigger_rule_keys_read_into_the_job() -> None:
    read = scenario(
        """
        scenario: x
        jobs:
          - {id: a, every: 5}
          - {id: b, every: 5, depends_on: [a], trigger_rule: ONE_FAILED, deadline: 3}
        """
    )
    assert [(spec.trigger_rule.value, spec.deadline) for spec in read.jobs] == [
        ("all_success", None),
        ("one_failed", 3),
    ]
    assert problems(
        """
        scenario: x
        jobs:
          - {id: a, every: 5, trigger_rule: all_sucess, deadline: 0}
        """
    ) == [
        "s.yaml:4:37: jobs[0].trigger_rule: expected 'all_success', 'all_failed', 'all_done', "
        "'one_success', 'one_failed', 'none_failed', 'none_skipped' or 'always', got "
        "'all_sucess' (did you mean 'all_success'?)",
        "s.yaml:4:59: jobs[0].deadline: expected a whole number from 1 to 1000000000000, got "
        "the number 0",
    ]


def test_an_outage_pauses_and_resumes_the_recurring_jobs_defined_by_then() -> None:
    read = scenario(
        """
        scenario: x
        scheduler_down: [{from: 10, to: 20}, {from: 30, to: 35}]
        jobs:
          - {id: once, at: 15}
          - {id: a, every: 5}
          - {id: gone, every: 5}
          - {id: mine, every: 5}
        timeline:
          - {at: 2, delete: {job: gone}}
          - {at: 3, pause: {job: mine}}
          - {at: 25, schedule: {id: late, every: 5}}
        """
    )
    held = [
        (entry.tick, type(entry.action).__name__, entry.action.job_id)
        for entry in read.timeline
        if isinstance(entry.action, PauseJob | ResumeJob) and entry.tick >= 10
    ]
    assert held == [
        (10, "PauseJob", "a"),
        (20, "ResumeJob", "a"),
        (30, "PauseJob", "a"),
        (30, "PauseJob", "late"),
        (35, "ResumeJob", "a"),
        (35, "ResumeJob", "late"),
    ]


def test_outage_errors_name_the_key_and_what_was_expected() -> None:
    assert problems(
        """
        scenario: x
        scheduler_down: [{from: 10, to: 5}, {from: 30, to: 40}, {from: 35, to: 50}, {from: 60}]
        """
    ) == [
        "s.yaml:3:33: scheduler_down[0].to: expected a tick after 10",
        "s.yaml:3:64: scheduler_down[2].from: expected a tick from 40 on: outages come in "
        "order, apart",
        "s.yaml:3:77: scheduler_down[3]: missing required key 'to'",
    ]
