"""The bundled scenarios: each loads, says what it teaches, and its expectations hold."""

from __future__ import annotations

import io
from argparse import Namespace
from pathlib import Path

import pytest

from cronlapse.cli.check import check_command
from engine.scenario import ScenarioRunner, check_script, load_scenario, run_script_file

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"
YAML_FILES = sorted(LIBRARY.glob("*.yaml"))
SCRIPTS = sorted(LIBRARY.glob("*.txt"))

REQUIRED = {
    "seed-000-example-1.yaml",
    "seed-000-example-2.yaml",
    "seed-000-example-3.yaml",
    "seed-001-aging-cascade.txt",
    "seed-001-aging-cascade.yaml",
    "nightly-etl-dst.yaml",
    "thundering-herd.yaml",
    "retry-storm-no-jitter.yaml",
    "retry-storm-jitter.yaml",
    "starvation-priority.yaml",
    "starvation-aging.yaml",
    "worker-crash.yaml",
    "stuck-job-timeout.yaml",
    "notification-outage.yaml",
    "demo.yaml",
}


def test_the_library_has_every_scenario_the_issue_asks_for() -> None:
    assert {path.name for path in YAML_FILES + SCRIPTS} >= REQUIRED


@pytest.mark.integration
@pytest.mark.parametrize("path", YAML_FILES, ids=lambda path: path.name)
def test_scenario_teaches_and_its_expectations_hold(path: Path) -> None:
    assert path.read_text(encoding="utf-8").startswith("# "), "a header comment on what it teaches"
    scenario = load_scenario(str(path))
    runner = ScenarioRunner(scenario)
    failures = runner.run()
    assert [str(failure) for failure in failures] == []
    assert runner.checked > 0


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.name)
def test_script_output_matches_its_expected_file(path: Path) -> None:
    failures, checked = check_script(run_script_file(str(path)))
    assert [str(failure) for failure in failures] == []
    assert checked > 0


def test_the_seed_001_script_and_its_yaml_twin_run_the_same_engine_events() -> None:
    script = run_script_file(str(LIBRARY / "seed-001-aging-cascade.txt"))
    runner = ScenarioRunner(load_scenario(str(LIBRARY / "seed-001-aging-cascade.yaml")))
    runner.run()
    assert list(runner.engine.log) == list(script.engine.log)


def test_check_over_the_whole_library_reports_no_mismatch() -> None:
    out, err = io.StringIO(), io.StringIO()
    files = [str(path) for path in YAML_FILES + SCRIPTS if path.name != "demo.yaml"]
    status = check_command(Namespace(files=files), out, err)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().endswith(" mismatches\n")
    assert f"{len(files)} files, " in out.getvalue()


def test_the_demo_is_2000_jobs_on_50_workers_for_a_week() -> None:
    scenario = load_scenario(str(LIBRARY / "demo.yaml"))
    assert (len(scenario.jobs), len(scenario.workers)) == (2000, 50)
    assert scenario.until is not None and scenario.until * scenario.tick_seconds == 7 * 86_400
