"""What ``cronlapse advise`` may change in a fleet that goes back to its files
(:data:`cronlapse.exports.fleet.KEPT`): each key a format keeps, changed on each imported job of
the realistic mixed corpus the way advice changes it, is written back and read again the same,
and leaves every other job as it was."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from test_export_fleet import written

from cronlapse.analyses.advise import read_fleet
from cronlapse.analyses.advise.fleet import Fleet
from cronlapse.exports.fleet import KEPT, SOURCE, kept_keys, write_fleet
from cronlapse.importers.fleet import ImportOptions, InputFile, import_files
from engine.scenario import parse_scenario

CORPUS = Path(__file__).resolve().parent / "corpus" / "mixed"
FILES = [
    InputFile("crontab", str(CORPUS / "app.crontab")),
    InputFile("crontab", str(CORPUS / "etc" / "cron.d" / "shop-maintenance")),
    InputFile("k8s", str(CORPUS / "cronjobs.yaml")),
    InputFile("systemd", str(CORPUS / "systemd" / "report@weekly.timer")),
    InputFile("systemd", str(CORPUS / "systemd" / "tmp-sweep.timer")),
]
NEW_VALUES = {"cron": "7 5 * * 1", "daily": "05:07", "timezone": "Asia/Tokyo", "catch_up": "latest"}
"""A value for each kept key that no job of the corpus has."""
SCHEDULE_KEYS = ("cron", "daily", "timezone")


@cache
def _corpus() -> Fleet:
    """Read once for the module: a fleet is immutable (each change makes a new one)."""
    return read_fleet("shop.yaml", import_files(FILES, ImportOptions()).text)


def _changes() -> list[tuple[str, str]]:
    """Each (job, key) advice could change: a schedule key of a job written with it (a herd's or
    a DST hour's), any other key a format keeps."""
    fleet = _corpus()
    kept_by_job = kept_keys(fleet.scenario)
    assert kept_by_job is not None
    changes = []
    for spec in fleet.scenario.jobs:
        keys = fleet.job_keys(spec.job_id)
        for key in sorted(kept_by_job[spec.job_id]):
            on_schedule = key == "timezone" and ("cron" in keys or "daily" in keys)
            if key not in SCHEDULE_KEYS or key in keys or on_schedule:
                changes.append((spec.job_id, key))
    return changes


@pytest.mark.parametrize(("job_id", "key"), _changes())
def test_a_kept_key_changed_reads_back_the_same(tmp_path: Path, job_id: str, key: str) -> None:
    changed = _corpus().with_job(job_id, {key: NEW_VALUES[key]})
    exported = write_fleet(changed.scenario, SOURCE)
    assert exported.notes == ()
    again = import_files(written(tmp_path, exported.files), ImportOptions()).scenario
    assert {spec.job_id: spec for spec in again.jobs} == {
        spec.job_id: spec for spec in changed.scenario.jobs
    }


def test_only_a_fleet_whose_every_job_came_from_a_file_goes_back_to_its_files() -> None:
    imported = _corpus()
    kept = kept_keys(imported.scenario)
    assert kept is not None
    assert kept["backup-db"] == KEPT["crontab"] and kept["search-reindex"] == KEPT["k8s"]
    assert kept["report-weekly"] == KEPT["systemd"]
    assert kept["tmp-sweep"] == KEPT["systemd"] - {"catch_up"}  # Persistent= needs OnCalendar=
    own_job = imported.text + "  - {id: own, every: 5}\n"
    assert kept_keys(read_fleet("shop.yaml", own_job).scenario) is None
    plain = "scenario: own\nworkers: [w1]\njobs:\n  - {id: own, every: 5}\n"
    assert kept_keys(parse_scenario(plain, "own.yaml")) is None
