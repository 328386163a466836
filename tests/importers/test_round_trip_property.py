"""Import, export, import again is the same scenario, over generated fleets: crontabs with
comments, environment lines, ``CRON_TZ`` and wrappers, and CronJob manifests, come back as the
files they were; and jobs from no file, written in each format's canonical form, import as jobs
that fire at the same times (or are listed as what the format cannot say)."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_export_fleet import same_fleet, written

from cronlapse.exports.fleet import write_fleet
from cronlapse.importers.fleet import ImportOptions, import_files
from engine.scenario import Scenario, parse_scenario
from engine.scenario.yaml_text import flow

MINUTES = st.sampled_from(["0", "30", "*/15", "5,35", "10-20", "*"])
HOURS = st.sampled_from(["*", "2", "8-18", "*/6", "0,12"])
DAYS = st.sampled_from(["*", "1", "1-7", "15", "*/2"])
MONTHS = st.sampled_from(["*", "1,7", "*/3", "jan-jun"])
WEEKDAYS = st.sampled_from(["*", "1-5", "0", "mon-fri", "sat,sun", "*/2"])
CRONS = st.one_of(
    st.tuples(MINUTES, HOURS, DAYS, MONTHS, WEEKDAYS).map(" ".join),
    st.sampled_from(["@hourly", "@daily", "@weekly", "@monthly"]),
)
ZONES = st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"])
COMMANDS = st.sampled_from(
    [
        "/usr/local/bin/backup.sh",
        "cd /srv/app && ./bin/rake jobs:work",
        "flock -n /tmp/sync.lock /opt/bin/sync-files >/dev/null 2>&1",
        "/usr/bin/env TZ=UTC /opt/bin/report --daily",
        'sh -c "/opt/bin/rotate-logs"',
    ]
)
EXTRA_LINES = st.sampled_from(
    ["", "# maintenance", "MAILTO=ops@example.com", "SHELL=/bin/bash", "@reboot /opt/bin/start"]
)


@st.composite
def crontabs(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        lines += draw(st.lists(EXTRA_LINES, max_size=2))
        if draw(st.booleans()):
            lines.append(f"CRON_TZ={draw(ZONES)}")
        lines.append(f"{draw(CRONS)} {draw(COMMANDS)}")
    lines += draw(st.lists(EXTRA_LINES, max_size=2))
    return "\n".join(lines) + "\n"


@st.composite
def manifests(draw: st.DrawFn) -> str:
    documents = []
    for number in range(draw(st.integers(1, 4))):
        spec = [f"  schedule: {flow(draw(CRONS.filter(_robfig_reads)))}"]
        if draw(st.booleans()):
            spec.append(f"  timeZone: {draw(ZONES)}")
        spec += draw(
            st.lists(
                st.sampled_from(
                    [
                        "  concurrencyPolicy: Forbid",
                        "  startingDeadlineSeconds: 90",
                        "  suspend: true",
                        "  successfulJobsHistoryLimit: 2",
                    ]
                ),
                unique=True,
            )
        )
        backoff = draw(st.integers(0, 6))
        documents.append(
            "# a CronJob of the platform team\napiVersion: batch/v1\nkind: CronJob\n"
            f"metadata:\n  name: task-{number}\n  labels: {{team: platform}}\nspec:\n"
            + "\n".join(spec)
            + f"\n  jobTemplate:\n    spec:\n      backoffLimit: {backoff}\n"
            "      template:\n        spec:\n          restartPolicy: Never\n"
            "          containers:\n            - {name: task, image: 'tools:1'}"
        )
    return "\n---\n".join(documents) + "\n"


def _robfig_reads(cron: str) -> bool:
    """Whether Kubernetes' parser reads ``cron`` as cron does: a step from ``*`` in a day field
    beside a restricted other day field is read differently, and refused by the exporter."""
    fields = cron.split()
    if len(fields) != 5:
        return True
    day, weekday = fields[2], fields[4]
    return not ({day, weekday} & {"*/2"} and "*" not in (day, weekday))


@settings(max_examples=40)
@given(crontab=crontabs(), manifest=manifests())
def test_an_imported_fleet_exported_as_it_came_is_its_files(crontab: str, manifest: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        inputs = written(Path(directory) / "in", {"team.crontab": crontab, "jobs.yaml": manifest})
        imported = import_files(inputs, ImportOptions(days=2)).scenario
        exported = write_fleet(imported, "source")
        assert exported.files == {"team.crontab": crontab, "jobs.yaml": manifest}
        again = written(Path(directory) / "out", exported.files)
        same_fleet(imported, import_files(again, ImportOptions(days=2)).scenario)


@settings(max_examples=40)
@given(jobs=st.lists(st.tuples(CRONS, ZONES), min_size=1, max_size=5))
def test_jobs_from_no_file_fire_at_the_same_times_in_every_format(
    jobs: list[tuple[str, str]],
) -> None:
    lines = [
        f'  - {{id: job-{n}, cron: "{cron}", timezone: {zone}, payload: "/opt/bin/job-{n}"}}'
        for n, (cron, zone) in enumerate(jobs)
    ]
    scenario = parse_scenario(
        'scenario: generated\nclock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, '
        "until: 2880}\nworkers: [w1]\njobs:\n" + "\n".join(lines) + "\n",
        "generated.yaml",
    )
    fires = _instants(scenario)
    for kind in ("crontab", "k8s", "systemd"):
        exported = write_fleet(scenario, kind)
        left_out = {note.partition(":")[0] for note in exported.notes}
        found = {}
        if exported.files:
            with tempfile.TemporaryDirectory() as directory:
                inputs = written(Path(directory), exported.files)
                found = _instants(import_files(inputs, ImportOptions(days=2)).scenario)
        assert set(found) | left_out == set(fires), kind
        for job_id, instants in found.items():
            assert instants == fires[job_id], (kind, job_id)


WINDOW = (datetime(2026, 1, 5, 6, tzinfo=UTC), datetime(2026, 1, 6, 18, tzinfo=UTC))
"""Instants every import here covers: two days from 2026-01-05 00:00 in any zone drawn."""


def _instants(scenario: Scenario) -> dict[str, list[datetime]]:
    """Each job's fire times in :data:`WINDOW`, as instants: an import's clock is in its jobs'
    zone when they share one, so an instant may be another tick."""
    clock = scenario.clock
    assert clock is not None
    start = clock.epoch.astimezone(UTC)
    found = {}
    for spec in scenario.jobs:
        instants = (
            start + timedelta(seconds=tick * clock.tick_seconds)
            for tick in spec.schedule.fire_ticks(0, 2880)
        )
        found[spec.job_id] = [at for at in instants if WINDOW[0] <= at < WINDOW[1]]
    return found
