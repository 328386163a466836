"""``cronlapse import k8s``: CronJob manifests become scenarios; what is not modelled is said."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import cronlapse

from cronlapse.importers.files import ImportProblems
from cronlapse.importers.kubernetes import parse_manifest, read_manifest
from engine.model import events as ev
from engine.model.job_rules import Overlap, OverlapRule
from engine.model.records import CatchUp
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


def test_the_job_template_gives_retries_and_the_runs_time_limit() -> None:
    nightly, warmer, _ = read_manifest(str(BATCH)).cronjobs
    assert (nightly.max_retries, nightly.run_timeout_minutes) == (2, 30)  # 1800 s
    assert (warmer.max_retries, warmer.run_timeout_minutes) == (6, None)  # Kubernetes' default
    assert nightly.images == ("registry.example.com/reporting/nightly:1.4.2",)


def test_what_is_not_modelled_is_reported_field_by_field() -> None:
    nightly, warmer, cleanup = read_manifest(str(BATCH)).cronjobs
    assert [note.split(":")[0] for note in nightly.notes] == [
        "spec.successfulJobsHistoryLimit",
        "spec.failedJobsHistoryLimit",
        "spec.jobTemplate.spec.template.spec.restartPolicy",
    ]
    assert (nightly.concurrency, nightly.starting_deadline_minutes) == ("Forbid", 10)
    assert [note.split(":")[0] for note in warmer.notes] == [
        "spec.jobTemplate.spec.template.spec.restartPolicy"
    ]
    assert cleanup.notes[0] == "spec.jobTemplate.spec.parallelism: one pod per run is modelled"
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
        OverlapRule(Overlap.BUFFER_LATEST),
        10,
        100,
    )
    assert nightly.start_deadline == 10  # the held run, as startingDeadlineSeconds
    assert warmer.catch_up is CatchUp.LATEST and warmer.catch_up_window is None
    assert warmer.max_missed == 100 and warmer.start_deadline is None


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
    assert runner.engine.query.job("quarterly-cleanup").paused_through is not None


HEAD = "kind: CronJob\napiVersion: batch/v1\nmetadata: {name: a}\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            HEAD.replace("batch/v1", "batch/v2alpha1") + "spec: {schedule: '@daily'}\n",
            "m:2:13: apiVersion: expected batch/v1 (or batch/v1beta1, read the same), "
            "got 'batch/v2alpha1'",
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
    assert str(caught.value.problems[0]).startswith(problem), caught.value.problems


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
    fields = [str(problem).split(": ")[1] for problem in caught.value.problems]
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


def cronjob(spec: str, template: str = "") -> str:
    """A CronJob manifest with ``spec`` (YAML flow entries) and a Job template's spec."""
    return HEAD + f"spec: {{{spec}, jobTemplate: {{spec: {{{template}}}}}}}\n"


def starts_of(manifest: str, tmp_path: Path, *options: str) -> list[tuple[int, int]]:
    """(tick, scheduled) of each attempt the imported scenario starts."""
    source = tmp_path / "m.yaml"
    source.write_text(manifest, encoding="utf-8")
    output = tmp_path / "out.yaml"
    status, _, err = cronlapse("import", "k8s", str(source), "-o", str(output), *options)
    assert status == 0, err
    runner = ScenarioRunner(load_scenario(str(output)))
    assert runner.run() == []
    return [(e.tick, e.scheduled) for e in runner.engine.log if isinstance(e, ev.AttemptStarted)]


# --------------------------------------------------------------- concurrencyPolicy: Forbid


def test_forbid_starts_the_newest_missed_schedule_when_the_active_job_ends(
    tmp_path: Path,
) -> None:
    # The CronJob controller (v2, since 1.21) leaves lastScheduleTime alone while a Job is
    # active under Forbid; when the Job ends, the next sync starts the most recent unmet
    # schedule. Every 10 minutes, 25 each: 00:00 runs to 00:25, then 00:20 (00:10 never);
    # 00:20 ends at 00:50, which is itself a schedule, and runs at once; then 01:10 at 01:15.
    manifest = cronjob("schedule: '*/10 * * * *', concurrencyPolicy: Forbid")
    started = starts_of(manifest, tmp_path, "--days", "1", "--duration", "25")
    assert started[:6] == [(0, 0), (25, 20), (50, 50), (75, 70), (100, 100), (125, 120)]


def test_forbid_with_a_starting_deadline_drops_a_newest_schedule_that_is_too_late(
    tmp_path: Path,
) -> None:
    # startingDeadlineSeconds 180: at 00:25 the newest missed schedule, 00:20, is 5 minutes
    # late and is not started; the next run is 00:30, on time.
    manifest = cronjob(
        "schedule: '*/10 * * * *', concurrencyPolicy: Forbid, startingDeadlineSeconds: 180"
    )
    started = starts_of(manifest, tmp_path, "--days", "1", "--duration", "25")
    assert started[:3] == [(0, 0), (30, 30), (60, 60)]


def test_forbid_is_written_as_buffer_latest() -> None:
    (job,) = parse_manifest(cronjob("schedule: '@daily', concurrencyPolicy: Forbid")).cronjobs
    assert job.concurrency == "Forbid"
    from cronlapse.importers.fleet import _kubernetes_job

    keys = _kubernetes_job("m", job, 1).keys
    assert keys["overlap"] == "BufferLatest" and "start_deadline" not in keys


# ----------------------------------------------------------------- activeDeadlineSeconds


def test_active_deadline_seconds_ends_the_whole_job_without_retries(tmp_path: Path) -> None:
    # backoffLimit 3, activeDeadlineSeconds 1800: the Job fails (DeadlineExceeded) 30 minutes
    # after it started, pod retries or not; one attempt hangs, so one attempt in all.
    manifest = cronjob("schedule: '0 */6 * * *'", "backoffLimit: 3, activeDeadlineSeconds: 1800")
    source = tmp_path / "m.yaml"
    source.write_text(manifest, encoding="utf-8")
    output = tmp_path / "out.yaml"
    assert cronlapse("import", "k8s", str(source), "-o", str(output), "--days", "1")[0] == 0
    (spec,) = load_scenario(str(output)).jobs
    assert (spec.run_timeout, spec.timeout, spec.max_attempts) == (30, None, 4)
    text = output.read_text(encoding="utf-8").replace("duration: 1,", "duration: 1, hang: [1],")
    output.write_text(text, encoding="utf-8")
    runner = ScenarioRunner(load_scenario(str(output)))
    assert runner.run() == []
    log = [e for e in runner.engine.log if isinstance(e, ev.OccurrenceEvent) and e.tick < 60]
    assert [type(e).__name__ for e in log] == [
        "AttemptStarted",
        "AttemptTimedOut",
        "OccurrenceFailed",
    ]
    assert log[-1] == ev.OccurrenceFailed(30, "a", 0, 1, run_timeout=30)


# ---------------------------------------------------------------------- spec.schedule


@pytest.mark.parametrize(
    ("schedule", "written"),
    [
        ("0 12 */2 * 1", "0 12 1-31/2 * 1"),  # every odd day, or any Monday
        ("0 12 1 * */2", "0 12 1 * 0-6/2"),
        ("0 12 */2,15 * 1", "0 12 1-31/2,15 * 1"),
        ("0 12 */2 * *", "0 12 */2 * *"),  # the other field a star: the same either way
        ("0 12 */1 * 1", "0 12 */1 * 1"),  # a step of 1 keeps the star
        ("0 12 ? * 1", "0 12 * * 1"),
        ("0 12 15,* * 1", "0 12 * * 1"),  # a star in the list: robfig ANDs
        ("*/15 8-18 * * mon-fri", "*/15 8-18 * * mon-fri"),
    ],
)
def test_the_day_fields_combine_as_robfig_cron_combines_them(schedule: str, written: str) -> None:
    (job,) = parse_manifest(cronjob(f"schedule: '{schedule}'")).cronjobs
    assert job.cron == written


def test_every_odd_day_or_monday_runs_on_both(tmp_path: Path) -> None:
    # 2026-01-05 is a Monday (an odd day too); the 6th is neither; the 7th is odd; the 12th is
    # a Monday (even).
    manifest = cronjob("schedule: '0 12 */2 * 1'")
    started = starts_of(manifest, tmp_path, "--days", "8")
    days = [tick // 1440 + 5 for tick, _ in started if tick < 8 * 1440]
    assert days[:5] == [5, 7, 9, 11, 12]


@pytest.mark.parametrize(
    ("schedule", "problem"),
    [
        ("0 5 L * *", "day-of-month field 'L': Kubernetes' parser (robfig/cron) has no L"),
        ("0 5 LW * *", "day-of-month field 'LW': Kubernetes' parser (robfig/cron) has no L"),
        ("0 5 * * 1L", "day-of-week field '1L': Kubernetes' parser (robfig/cron) has no L"),
        ("0 5 * * 1#2", "day-of-week field '1#2': Kubernetes' parser (robfig/cron) has no #"),
        ("0 5 * * 7", "day-of-week field '7': expected 0-6 (Sunday is 0) or sun-sat"),
        ("0 5 * * 5-7", "day-of-week field '5-7': expected 0-6 (Sunday is 0) or sun-sat"),
        ("@DAILY", "unknown nickname '@DAILY': expected one of @yearly, @annually"),
        ("@reboot", "unknown nickname '@reboot': expected one of @yearly, @annually"),
        ("@every 90s", "@every 90s: every 90 seconds, and a tick is a minute"),
        ("@every 2 hours", "@every 2 hours: '2 hours' is not a Go duration"),
        ("@every 0s", "@every 0s: every 1 second"),
    ],
)
def test_what_kubernetes_refuses_is_refused(schedule: str, problem: str) -> None:
    with pytest.raises(ImportProblems) as caught:
        parse_manifest(cronjob(f"schedule: '{schedule}'"), "m")
    (found,) = caught.value.problems
    assert str(found).startswith("m:4:18: spec.schedule: " + problem), found


@pytest.mark.parametrize(("every", "minutes"), [("2h", 120), ("1h30m", 90), ("90m0.5s", 90)])
def test_every_runs_at_that_interval_from_the_cronjobs_creation(every: str, minutes: int) -> None:
    (job,) = parse_manifest(cronjob(f"schedule: '@every {every}'")).cronjobs
    assert (job.cron, job.every) == (None, minutes)
    from cronlapse.importers.fleet import _kubernetes_job

    keys = _kubernetes_job("m", job, 1).keys
    assert (keys["every"], keys["first"]) == (minutes, minutes)  # created at --from
    assert "cron" not in keys


def test_an_every_schedule_imports_and_runs(tmp_path: Path) -> None:
    started = starts_of(cronjob("schedule: '@every 2h'"), tmp_path, "--days", "1")
    assert [tick for tick, _ in started] == list(range(120, 1441, 120))  # until included


# ------------------------------------------------------------------------- spec.suspend


@pytest.mark.parametrize(
    ("value", "suspended"),
    [("yes", True), ("on", True), ("Y", True), ("TRUE", True), ("no", False), ("off", False)],
)
def test_suspend_reads_yaml_1_1_booleans_as_the_api_server_does(
    value: str, suspended: bool
) -> None:
    (job,) = parse_manifest(cronjob(f"schedule: '@daily', suspend: {value}")).cronjobs
    assert job.suspended is suspended


def test_a_quoted_yes_is_a_string_and_refused() -> None:
    with pytest.raises(ImportProblems) as caught:
        parse_manifest(cronjob("schedule: '@daily', suspend: 'yes'"), "m")
    assert str(caught.value.problems[0]).startswith("m:4:37: spec.suspend: expected true or false")


# --------------------------------------------------------------------------- pod-level keys


def test_the_pods_deadline_and_restart_policy_are_reported_not_dropped() -> None:
    template = "template: {spec: {activeDeadlineSeconds: 600, restartPolicy: OnFailure}}"
    (job,) = parse_manifest(cronjob("schedule: '@daily'", template)).cronjobs
    assert [note.split(": ")[0] for note in job.notes] == [
        "spec.jobTemplate.spec.template.spec.activeDeadlineSeconds",
        "spec.jobTemplate.spec.template.spec.restartPolicy",
    ]
    assert "each pod" in job.notes[0] and "not modelled" in job.notes[0]
    assert "OnFailure" in job.notes[1] and "not modelled" in job.notes[1]


V1BETA1 = """\
# An older chart's CronJob, still on the API removed in Kubernetes 1.25
apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: es-curator
  namespace: logging
spec:
  schedule: "0 1 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: curator
              image: bitnami/elasticsearch-curator:5.8.4
              args: ["--config", "/etc/es-curator/config.yml", "/etc/es-curator/action_file.yml"]
"""


def test_batch_v1beta1_is_read_as_batch_v1_with_a_note(tmp_path: Path) -> None:
    """Its CronJob spec is batch/v1's: charts written before 1.21 still use it."""
    (cronjob,) = parse_manifest(V1BETA1, "m").cronjobs
    assert (cronjob.name, cronjob.cron, cronjob.concurrency) == (
        "es-curator",
        "0 1 * * *",
        "Forbid",
    )
    assert cronjob.notes[0] == (
        "apiVersion: batch/v1beta1: read as batch/v1, whose CronJob spec is the same "
        "(batch/v1beta1 was removed in Kubernetes 1.25)"
    )
    source = tmp_path / "curator.yaml"
    source.write_text(V1BETA1, encoding="utf-8")
    status, out, err = cronlapse("import", "k8s", str(source))
    assert (status, err) == (0, "")
    assert "# apiVersion: batch/v1beta1: read as batch/v1" in out
