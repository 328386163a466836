"""``cronlapse import k8s``: CronJob manifests become scenarios; what is not modelled is said."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import cronlapse

from engine import events as ev
from engine.importers.files import ImportProblems
from engine.importers.kubernetes import parse_manifest, read_manifest
from engine.job_rules import Overlap, OverlapRule
from engine.model import CatchUp
from engine.scenario import ScenarioRunner, load_scenario

BATCH = Path(__file__).parent / "corpus" / "k8s" / "batch.yaml"


def test_every_cronjob_of_a_multi_document_manifest_and_its_lists_is_read() -> None:
    manifest = read_manifest(str(BATCH))
    assert [(c.name, c.cron, c.timezone, c.suspended) for c in manifest.cronjobs] == [
        ("nightly-report", "30 2 * * *", "Europe/Berlin", False),
        ("cache-warmer", "0 * * * *", None, False),
        ("quarterly-cleanup", "0 4 1 */3 *", None, True),
    ]
    assert manifest.skipped == [f"{BATCH}:44:1: Deployment reporting-api: not a CronJob"]


def test_the_job_template_gives_retries_and_timeout() -> None:
    nightly, warmer, _ = read_manifest(str(BATCH)).cronjobs
    assert (nightly.max_retries, nightly.timeout_minutes) == (2, 30)  # 1800 s
    assert (warmer.max_retries, warmer.timeout_minutes) == (6, None)  # Kubernetes' default
    assert nightly.images == ("registry.example.com/reporting/nightly:1.4.2",)


def test_what_is_not_modelled_is_reported_field_by_field() -> None:
    nightly, warmer, cleanup = read_manifest(str(BATCH)).cronjobs
    assert [note.split(":")[0] for note in nightly.notes] == [
        "spec.successfulJobsHistoryLimit",
        "spec.failedJobsHistoryLimit",
    ]
    assert (nightly.concurrency, nightly.starting_deadline_minutes) == ("Forbid", 10)
    assert warmer.notes == ()
    assert cleanup.notes == ("spec.jobTemplate.spec.parallelism: one pod per run is modelled",)
    text = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\nspec:\n"
    text += "  schedule: '* * * * *'\n  paused: true\n"
    text += "  jobTemplate: {spec: {ttlSecondsAfterFinished: 9}}\n"
    (job,) = parse_manifest(text).cronjobs
    assert job.notes == (
        "spec.paused: not modelled",
        "spec.jobTemplate.spec.ttlSecondsAfterFinished: not modelled",
    )


def test_concurrency_policy_and_starting_deadline_become_the_scenarios_rules(
    tmp_path: Path,
) -> None:
    output = tmp_path / "batch.yaml"
    assert cronlapse("import", "k8s", str(BATCH), "-o", str(output))[0] == 0
    jobs = {spec.job_id: spec for spec in load_scenario(str(output)).jobs}
    nightly, warmer = jobs["nightly-report"], jobs["cache-warmer"]
    assert (nightly.overlap, nightly.catch_up_window, nightly.max_missed) == (
        OverlapRule(Overlap.FORBID),
        10,
        100,
    )
    assert warmer.catch_up is CatchUp.LATEST and warmer.catch_up_window is None
    assert warmer.max_missed == 100


def test_the_scenario_runs_the_cronjobs_at_their_times_and_keeps_the_suspended_one_paused(
    tmp_path: Path,
) -> None:
    output = tmp_path / "batch.yaml"
    status, out, err = cronlapse("import", "k8s", str(BATCH), "-o", str(output), "--days", "2")
    assert (status, out) == (0, f"wrote {output}: 3 jobs\n")
    assert "Deployment reporting-api" in err
    runner = ScenarioRunner(load_scenario(str(output)))
    assert runner.run() == []
    starts: dict[str, list[int]] = {}
    for event in runner.engine.log:
        if isinstance(event, ev.AttemptStarted):
            starts.setdefault(event.job_id, []).append(event.tick)
    assert starts["nightly-report"] == [90, 90 + 1440]  # 02:30 Berlin is 01:30 UTC in January
    assert starts["cache-warmer"] == list(range(0, 2881, 60))
    assert "quarterly-cleanup" not in starts
    assert runner.engine.jobs["quarterly-cleanup"].paused_through is not None


HEAD = "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            HEAD.replace("batch/v1", "batch/v1beta1") + "spec: {schedule: '@daily'}\n",
            "m:2:13: apiVersion: expected batch/v1, got 'batch/v1beta1'",
        ),
        (HEAD + "spec: {schedule: '0 25 * * *'}\n", "m:4:18: spec.schedule: hour field '25'"),
        (
            HEAD + "spec:\n  schedule: 'TZ=UTC 0 0 * * *'\n",
            "m:5:13: spec.schedule: a time zone in the schedule is not supported",
        ),
        (HEAD + "spec: {schedule: 5}\n", "m:4:18: spec.schedule: expected a cron expression"),
        (HEAD + "spec: {suspend: true}\n", "m:4:7: spec.schedule: expected a cron expression"),
        (
            HEAD + "spec: {schedule: '@daily', timeZone: Mars}\n",
            "m:4:38: spec.timeZone: unknown time zone 'Mars'",
        ),
        (
            HEAD + "spec: {schedule: '@daily', timeZone: 5}\n",
            "m:4:38: spec.timeZone: expected an IANA name such as 'Europe/Berlin' or 'UTC', got 5",
        ),
        (
            HEAD + "spec: {schedule: '@daily', concurrencyPolicy: Sometimes}\n",
            "m:4:47: spec.concurrencyPolicy: expected Allow, Forbid or Replace, got 'Sometimes'",
        ),
        (
            HEAD + "spec: {schedule: '@daily', concurrencyPolicy: 1}\n",
            "m:4:47: spec.concurrencyPolicy: expected Allow, Forbid or Replace, got 1",
        ),
        (
            HEAD + "spec: {schedule: '@daily', startingDeadlineSeconds: -5}\n",
            "m:4:53: spec.startingDeadlineSeconds: expected a whole number from 0 to",
        ),
        (
            HEAD + "spec: {schedule: '@daily', suspend: maybe}\n",
            "m:4:37: spec.suspend: expected true or false",
        ),
        (
            HEAD + "spec: {schedule: '@daily', jobTemplate: {spec: {backoffLimit: lots}}}\n",
            "m:4:63: spec.jobTemplate.spec.backoffLimit: expected a whole number from 0 to 1,000",
        ),
        (
            HEAD + "spec: {schedule: '@daily', jobTemplate: {spec: {parallelism: -1}}}\n",
            "m:4:62: spec.jobTemplate.spec.parallelism: expected a whole number from 0 to",
        ),
        (
            "kind: CronJob\napiVersion: batch/v1\nspec: {schedule: '@daily'}\n",
            "m:1:1: metadata.name: expected the CronJob's name, a string",
        ),
        (
            "kind: CronJob\napiVersion: batch/v1\nmetadata: {namespace: x}\nspec: {}\n",
            "m:3:11: metadata.name: expected the CronJob's name, a string",
        ),
        (
            HEAD + "spec: {schedule: '@daily', jobTemplate: job}\n",
            "m:4:41: spec.jobTemplate: expected a mapping (the Job template, with its spec), "
            "got 'job'",
        ),
        (
            HEAD + "spec: {schedule: '@daily', jobTemplate: [a]}\n",
            "m:4:41: spec.jobTemplate: expected a mapping (the Job template, with its spec), "
            "got a list",
        ),
        (
            HEAD + "spec: {schedule: '@daily', jobTemplate: {spec: 5}}\n",
            "m:4:48: spec.jobTemplate.spec: expected a mapping (the Job's spec), got 5",
        ),
        (
            HEAD.replace("{name: a}", "{name: a, namespace: 5}") + "spec: {schedule: '@daily'}\n",
            "m:3:32: metadata.namespace: expected the CronJob's namespace, a string, got 5",
        ),
        (
            HEAD.replace("{name: a}", "{name: a, namespace: [x]}") + "spec: {schedule: '@daily'}\n",
            "m:3:32: metadata.namespace: expected the CronJob's namespace, a string, got a list",
        ),
        (HEAD + "spec: 3\n", "m:4:7: spec: expected a mapping with spec.schedule"),
        (HEAD, "m:1:1: spec: expected a mapping with spec.schedule"),
        ("apiVersion: v1\nmetadata: {name: a}\n", "m:1:1: kind: expected CronJob"),
        ("kind: List\nitems: 5\n", "m:2:8: items: expected a list of objects"),
        ("- a\n- b\n", "m:1:1: expected a Kubernetes object"),
        ("kind: CronJob\n  bad: [indent\n", "m:2:6: YAML syntax error"),
    ],
)
def test_a_bad_manifest_names_the_place_and_what_was_expected(text: str, problem: str) -> None:
    with pytest.raises(ImportProblems) as caught:
        parse_manifest(text, "m")
    assert caught.value.problems[0].startswith(problem), caught.value.problems


def test_a_binary_file_is_refused_without_a_traceback(tmp_path: Path) -> None:
    source = tmp_path / "image.yaml"
    source.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    status, _, err = cronlapse("import", "k8s", str(source))
    assert status == 1 and "a binary file, not a Kubernetes manifest" in err
    assert "Traceback" not in err


def test_every_problem_of_a_cronjob_names_its_field() -> None:
    """The problems of one CronJob, all at once, each with the field it is about."""
    text = HEAD.replace("batch/v1", "batch/v2").replace("{name: a}", "{name: a, namespace: 1}") + (
        "spec:\n  schedule: '61 * * * *'\n  timeZone: Mars\n  concurrencyPolicy: Sometimes\n"
        "  startingDeadlineSeconds: -5\n  suspend: maybe\n"
        "  jobTemplate: {spec: {backoffLimit: x, activeDeadlineSeconds: 1.5, completions: x}}\n"
    )
    with pytest.raises(ImportProblems) as caught:
        parse_manifest(text, "m")
    fields = [problem.split(": ")[1] for problem in caught.value.problems]
    assert fields == [
        "apiVersion",
        "metadata.namespace",
        "spec.schedule",
        "spec.timeZone",
        "spec.concurrencyPolicy",
        "spec.startingDeadlineSeconds",
        "spec.jobTemplate.spec.backoffLimit",
        "spec.jobTemplate.spec.activeDeadlineSeconds",
        "spec.jobTemplate.spec.completions",
        "spec.suspend",
    ]


def test_a_null_time_zone_or_policy_is_absent_as_kubernetes_reads_it() -> None:
    text = HEAD + "spec:\n  schedule: '@daily'\n  timeZone:\n  concurrencyPolicy: null\n"
    (cronjob,) = parse_manifest(text, "m").cronjobs
    assert (cronjob.timezone, cronjob.concurrency) == (None, "Allow")


def test_a_null_job_template_or_namespace_is_absent_as_kubernetes_reads_it() -> None:
    text = (
        HEAD.replace("{name: a}", "{name: a, namespace: null}")
        + "spec: {schedule: '@daily', jobTemplate: {spec: null}}\n"
    )
    (cronjob,) = parse_manifest(text, "m").cronjobs
    assert (cronjob.namespace, cronjob.max_retries) == (None, 6)
    text = HEAD + "spec: {schedule: '@daily', jobTemplate: null}\n"
    (cronjob,) = parse_manifest(text, "m").cronjobs
    assert cronjob.max_retries == 6
