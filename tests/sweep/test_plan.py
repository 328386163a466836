"""Variants from the options, their edits of the scenario, seeds for replicas, early key checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from sweep_helpers import QUEUE

from cronlapse.analyses.sweep.apply import set_value
from cronlapse.analyses.sweep.evaluate import document, evaluate
from cronlapse.analyses.sweep.keys import VaryError, parse_key, parse_variation
from cronlapse.analyses.sweep.plan import plan_tasks, variants
from cronlapse.sources import open_source
from engine.scenario.errors import Problems, ScenarioInvalid
from engine.scenario.jobs import JobReader
from engine.scenario.validate import JobsMemo, scenario_from_tree
from engine.scenario.yaml_source import parse_yaml

JOBS = """\
scenario: two jobs
seed: 7
workers: [node-08, node-09, node-10]
jobs:
  - {id: extract, every: 60, priority: low}
  - {id: load, every: 60}
"""


def _scenario(  # type: ignore[no-untyped-def]
    text: str, *settings: tuple[str, object], memo: JobsMemo | None = None
):
    problems = Problems("test.yaml")
    tree = document("test.yaml", text)[0] if memo else parse_yaml(text, problems)
    for key, value in settings:
        tree = set_value(tree, parse_key(key), value)  # type: ignore[arg-type]
    return scenario_from_tree(tree, problems, memo)


def test_the_first_option_varies_slowest_and_values_keep_their_order() -> None:
    found = variants([parse_variation("workers=1,2"), parse_variation("policy.order=fifo,aging")])
    assert [variant.label() for variant in found] == [
        "workers=1 policy.order=fifo",
        "workers=1 policy.order=aging",
        "workers=2 policy.order=fifo",
        "workers=2 policy.order=aging",
    ]


def test_a_value_replaces_the_files_or_is_added_where_the_file_has_none() -> None:
    scenario = _scenario(JOBS, ("jobs[id=extract].priority", "high"), ("policy.order", "fifo"))
    assert {spec.job_id: spec.priority for spec in scenario.jobs} == {"extract": 2, "load": 0}
    assert scenario.policy.order.value == "fifo"


def test_workers_keeps_the_first_n_and_names_more_like_the_last() -> None:
    fewer = _scenario(JOBS, ("workers", 2))
    more = _scenario(JOBS, ("workers", 5))
    assert [w for w in fewer.workers] == ["node-08", "node-09"]
    assert [w for w in more.workers] == ["node-08", "node-09", "node-10", "node-11", "node-12"]


def test_a_key_the_scenario_lacks_names_the_closest_valid_path() -> None:
    with pytest.raises(VaryError) as raised:
        plan_tasks("t.yaml", JOBS, [parse_variation("jobs[id=extrct].priority=1")], 1, ())
    assert str(raised.value) == (
        "--vary jobs[id=extrct].priority: the scenario has no jobs[id=extrct]; "
        "closest valid path: jobs[id=extract].priority"
    )
    with pytest.raises(VaryError) as raised:
        plan_tasks("t.yaml", JOBS, [parse_variation("polcy.order=fifo")], 1, ())
    assert "unknown key 'polcy' (did you mean 'policy'?)" in str(raised.value)


def test_a_value_the_scenario_refuses_is_left_to_its_own_row() -> None:
    found, tasks = plan_tasks("t.yaml", JOBS, [parse_variation("policy.order=fifo,bogus")], 1, ())
    assert len(found) == len(tasks) == 2


def test_replica_r_plays_with_seed_base_plus_r() -> None:
    _, tasks = plan_tasks("t.yaml", JOBS, [parse_variation("workers=1,2")], 3, ())
    assert [(t.variant, t.replica, t.seed) for t in tasks] == [
        (0, 0, 7), (0, 1, 8), (0, 2, 9), (1, 0, 7), (1, 1, 8), (1, 2, 9),
    ]  # fmt: skip
    _, tasks = plan_tasks("t.yaml", JOBS, [parse_variation("seed=100,200")], 2, ())
    assert [t.seed for t in tasks] == [100, 101, 200, 201]
    _, tasks = plan_tasks("q.yaml", QUEUE, [parse_variation("workers=1")], 1, ())
    assert tasks[0].seed == 0


GENERATED = (
    JOBS
    + """\
generate:
  - {count: 3, id: "svc-{n}", choose: {every: [30, 60, 90]}, spread: {duration: [1, 9]}}
"""
)


def test_variants_that_keep_the_jobs_nodes_share_the_jobs_read_once() -> None:
    memo = JobsMemo()
    base = _scenario(GENERATED, memo=memo)
    for edit in (("workers", 2), ("policy.order", "fifo"), ("seed", 7)):
        variant = _scenario(GENERATED, edit, memo=memo)
        assert all(map(lambda a, b: a is b, variant.jobs, base.jobs)), edit
        assert variant == _scenario(GENERATED, edit)


def test_variants_that_change_what_the_jobs_read_read_them_again() -> None:
    memo = JobsMemo()
    base = _scenario(GENERATED, memo=memo)
    for edit in (("jobs[id=extract].priority", "high"), ("seed", 8), ("generate[0].count", 2)):
        variant = _scenario(GENERATED, edit, memo=memo)
        assert variant.jobs != base.jobs, edit
        assert variant == _scenario(GENERATED, edit)


def test_jobs_read_with_a_problem_are_read_again_and_refused_again() -> None:
    memo = JobsMemo()
    broken = GENERATED.replace("priority: low", "priority: lowest")
    refusals = []
    for _ in range(2):
        with pytest.raises(ScenarioInvalid) as raised:
            _scenario(broken, ("workers", 2), memo=memo)
        refusals.append([str(problem) for problem in raised.value.problems])
    assert refusals[0] == refusals[1] != []


def test_a_sweep_parses_its_text_once_a_process() -> None:
    assert document("t.yaml", JOBS) is document("t.yaml", JOBS)
    assert document("t.yaml", JOBS)[0] == parse_yaml(JOBS, Problems("t.yaml"))


def test_a_sweep_of_an_opened_file_reads_its_jobs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The opener's load fills the memo the variants played in this process are loaded with.
    read = []
    job = JobReader.job
    monkeypatch.setattr(JobReader, "job", lambda *args: (read.append(args[2]), job(*args))[1])
    path = tmp_path / "generated.yaml"
    path.write_text(GENERATED)
    source = open_source(path)
    _, tasks = plan_tasks(
        source.source, source.text, [parse_variation("workers=1,2")], 1, (), loaded=source.document
    )
    assert document(source.source, source.text) is source.document
    assert [evaluate(task).error for task in tasks] == [None, None]
    assert len(read) == len(source.played.jobs) == 5
