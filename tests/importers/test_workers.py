"""Imported fleets get the workers their source system runs them with: cron, the CronJob
controller and systemd start every due run, so as many as runs can be active at once; worker
ids sort as numbers do; ``--workers N`` models a limited pool instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from import_helpers import cronlapse

from cronlapse.importers.fleet import ImportOptions, import_fleet
from cronlapse.importers.pool import workers_needed
from engine.model import events as ev
from engine.scenario import ScenarioRunner, parse_scenario

EVERY_MINUTE_ALLOW = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: queue-drain}
spec:
  schedule: "* * * * *"
  jobTemplate: {spec: {template: {spec: {containers: [{name: d, image: drain:1}]}}}}
"""


def _manifest(tmp_path: Path, policy: str | None) -> str:
    text = EVERY_MINUTE_ALLOW
    if policy is not None:
        text = text.replace(
            "spec:\n  schedule", f"spec:\n  concurrencyPolicy: {policy}\n  schedule"
        )
    source = tmp_path / "drain.yaml"
    source.write_text(text, encoding="utf-8")
    return str(source)


def test_an_every_minute_allow_cronjob_with_5_minute_runs_needs_5_workers(tmp_path: Path) -> None:
    fleet = import_fleet("k8s", [_manifest(tmp_path, None)], ImportOptions(duration=5, days=1))
    assert fleet.scenario.workers == ("w1", "w2", "w3", "w4", "w5")
    starts, waits = _play(fleet.text)
    assert waits == 0 and len(starts) == 1441


def test_forbid_and_replace_need_one(tmp_path: Path) -> None:
    for policy in ("Forbid", "Replace"):
        fleet = import_fleet(
            "k8s", [_manifest(tmp_path, policy)], ImportOptions(duration=5, days=1)
        )
        assert fleet.scenario.workers == ("w1",), policy


def test_worker_ids_are_zero_padded_so_text_order_is_numeric_order(tmp_path: Path) -> None:
    source = tmp_path / "herd.crontab"
    source.write_text(
        "".join(f"0 3 * * * /opt/jobs/job-{n}.sh\n" for n in range(12)), encoding="utf-8"
    )
    fleet = import_fleet("crontab", [str(source)], ImportOptions())
    assert fleet.scenario.workers == tuple(f"w{n:02d}" for n in range(1, 13))
    assert list(fleet.scenario.workers) == sorted(fleet.scenario.workers)


def test_jobs_that_never_meet_share_one_worker(tmp_path: Path) -> None:
    source = tmp_path / "team.crontab"
    source.write_text("30 2 * * * /bin/a\n*/15 8-18 * * 1-5 /bin/b\n@weekly /bin/c\n")
    fleet = import_fleet("crontab", [str(source)], ImportOptions())
    assert fleet.scenario.workers == ("w1",)
    assert (
        "# One tick is a minute; cron starts every due run when it falls due, so the scenario "
        "has as many workers as runs can be active at once: 1, from the schedules and runs of 1 "
        "min." in fleet.text
    )


def test_workers_models_a_limited_pool_and_says_so(tmp_path: Path) -> None:
    source = _manifest(tmp_path, None)
    status, out, err = cronlapse(
        "import", "k8s", source, "--duration", "5", "--days", "1", "--workers", "2"
    )
    assert (status, err) == (0, "")
    assert parse_scenario(out).workers == ("w1", "w2")
    assert (
        "# One tick is a minute; --workers 2 models a pool of 2: due runs wait for a free "
        "worker, where the CronJob controller starts every due run when it falls due (it would "
        "need 5 at once)." in out
    )
    _, waits = _play(out)
    assert waits > 0
    status, _, err = cronlapse("import", "k8s", source, "--workers", "0")
    assert status == 2
    assert err == (
        "cronlapse import: --workers: expected a whole number of workers from 1 to 10000, got 0\n"
    )


CRONS = st.sampled_from(
    ["* * * * *", "*/2 * * * *", "*/5 * * * *", "0 * * * *", "7,8,9 * * * *", "30 2 * * *"]
)


@settings(max_examples=15)
@given(
    st.lists(st.tuples(CRONS, st.booleans()), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=9),
)
def test_with_the_workers_it_is_given_no_imported_run_ever_waits(
    jobs: list[tuple[str, bool]], duration: int
) -> None:
    """Whatever the schedules, overlap rules and durations, every run starts at its fire time,
    and the count is what the play needs at its busiest (the fire times are walked whole)."""
    lines = "".join(
        f'  - {{id: j{n}, cron: "{cron}", duration: {duration}'
        + (", overlap: Forbid" if forbid else "")
        + "}\n"
        for n, (cron, forbid) in enumerate(jobs)
    )
    text = "scenario: t\nclock: {epoch: '2026-01-05T00:00:00', tick: 60, until: 300}\n"
    text += "workers: [w]\njobs:\n"
    scenario = parse_scenario(text + lines)
    pool = workers_needed(scenario.jobs, 300)
    workers = ", ".join(f"w{n}" for n in range(pool.workers))
    _, waits, busiest = _play(text.replace("[w]", f"[{workers}]") + lines, busiest=True)
    assert waits == 0
    assert busiest == pool.workers or not pool.exact


def _play(text: str, busiest: bool = False) -> tuple:
    scenario = parse_scenario(text)
    runner = ScenarioRunner(scenario, until=scenario.until)
    runner.run()
    starts = [e for e in runner.engine.log if isinstance(e, ev.AttemptStarted)]
    ends = [e for e in runner.engine.log if isinstance(e, ev.AttemptSucceeded)]
    waits = sum(1 for e in starts if e.tick != e.scheduled)
    if not busiest:
        return starts, waits
    changes: dict[int, int] = {}
    for event in starts:
        changes[event.tick] = changes.get(event.tick, 0) + 1
    for event in ends:
        changes[event.tick] = changes.get(event.tick, 0) - 1
    active = most = 0
    for tick in sorted(changes):
        active += changes[tick]
        most = max(most, active)
    return starts, waits, most


def test_past_the_fires_walked_the_count_is_a_safe_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget too small to walk them, the jobs that fire most are counted at their
    most: never fewer workers than the play needs."""
    monkeypatch.setattr("cronlapse.importers.pool.FIRES_WALKED", 40)
    text = (
        "scenario: t\nclock: {epoch: '2026-01-05T00:00:00', tick: 60, until: 120}\n"
        "workers: [w]\njobs:\n"
        '  - {id: dense, cron: "* * * * *", duration: 3}\n'
        '  - {id: hourly, cron: "0 * * * *", duration: 3}\n'
        '  - {id: held, cron: "*/2 * * * *", duration: 3, overlap: Forbid}\n'
    )
    pool = workers_needed(parse_scenario(text).jobs, 120)
    assert not pool.exact
    workers = ", ".join(f"w{n}" for n in range(pool.workers))
    _, waits, busiest = _play(text.replace("[w]", f"[{workers}]"), busiest=True)
    assert waits == 0 and busiest <= pool.workers
