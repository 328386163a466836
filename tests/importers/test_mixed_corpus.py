"""A mixed fleet of realistic files, end to end (issue 37, "done when"): a user crontab with
wrappers and ``CRON_TZ``, a system crontab of ``/etc/cron.d``, CronJob manifests (one
``batch/v1beta1``, a ConfigMap beside them), and systemd timers (an instance of a template
service, a monotonic one) imported into one scenario, played with ``cronlapse run``, exported
in each format and imported again.

The files (``corpus/mixed/``) are written in the style of public ones: Laravel's scheduler line,
a ``flock``-guarded queue worker, ``nice``'d dumps, Debian's ``run-parts`` line, a package's
midnight chores, a Helm chart's rendered CronJobs, a ``report@.service`` template."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path, PurePath

import pytest
from import_helpers import cronlapse

from cronlapse.analyses.advise import AdviceOptions, advise, read_fleet
from cronlapse.exports.fleet import kept_keys
from engine.model.records import JobSpec
from engine.scenario import Scenario, parse_scenario

CORPUS = Path(__file__).resolve().parent / "corpus" / "mixed"
FILES = [
    CORPUS / "app.crontab",
    CORPUS / "etc" / "cron.d" / "shop-maintenance",
    CORPUS / "cronjobs.yaml",
    CORPUS / "systemd" / "report@weekly.timer",
    CORPUS / "systemd" / "tmp-sweep.timer",
]
IDS = [
    "artisan-schedule-run",
    "artisan-queue-work",
    "backup-db",
    "sales-report",
    "refresh-cache",
    "run-parts-cron.hourly",
    "shop-gc",
    "shop-export",
    "shop-sitemap",
    "logrotate",
    "image-thumbnails",
    "search-reindex",
    "refresh-cache-k8s",
    "report-weekly",
    "tmp-sweep",
]
WEEK = 7 * 1440


def _imported(tmp_path: Path) -> tuple[Path, Scenario]:
    fleet = tmp_path / "shop.yaml"
    status, out, err = cronlapse("import", *map(str, FILES), "-o", str(fleet))
    assert (status, out) == (0, f"wrote {fleet}: 15 jobs\n")
    assert err.splitlines() == [
        f"cronlapse import: renamed: {FILES[2]}:57: id refresh-cache-k8s: refresh-cache is "
        f"already the id of {FILES[0]}:19",
        f"cronlapse import: not imported: {FILES[0]}:21: @reboot runs when cron starts; no "
        "schedule models it",
        f"cronlapse import: not imported: {FILES[2]}:29:1: ConfigMap shop-settings: not a CronJob",
    ]
    return fleet, parse_scenario(fleet.read_text(encoding="utf-8"), str(fleet))


def test_the_mixed_fleet_imports_as_one_scenario_and_plays(tmp_path: Path) -> None:
    fleet, scenario = _imported(tmp_path)
    assert [spec.job_id for spec in scenario.jobs] == IDS
    text = fleet.read_text(encoding="utf-8")
    assert "apiVersion: batch/v1beta1: read as batch/v1" in text
    assert "read as a system crontab" not in text  # known by its cron.d directory
    assert "runs as www-data" in text and "report@weekly.service: an instance of report@" in text
    status, out, err = cronlapse("run", "--jsonl", str(fleet))
    assert (status, err) == (0, "")
    events = [json.loads(line) for line in out.splitlines()]
    starts = [event for event in events if event["type"] == "AttemptStarted"]
    assert {event["job_id"] for event in starts} == set(IDS)  # every job ran in the week
    late = [event for event in starts if event["tick"] != event["scheduled"]]
    assert late == []  # as cron, Kubernetes and systemd run them: none waits for a worker


@pytest.mark.parametrize("kind", ["source", "crontab", "k8s", "systemd"])
def test_the_mixed_fleet_exports_in_each_format_and_imports_again(
    tmp_path: Path, kind: str
) -> None:
    fleet, scenario = _imported(tmp_path)
    target = tmp_path / kind
    status, _, err = cronlapse("export", "--fleet", kind, str(fleet), "-o", str(target))
    assert status == 0
    files = sorted(
        path
        for path in target.rglob("*")
        if path.is_file() and path.suffix not in (".service", ".conf")
    )
    status, out, _ = cronlapse("import", *map(str, files))
    assert status == 0
    again = parse_scenario(out, "again.yaml")
    if kind == "source":
        assert err == ""
        assert {spec.job_id: spec for spec in again.jobs} == {
            spec.job_id: spec for spec in scenario.jobs
        }
        assert (target / "cron.d" / "shop-maintenance").read_text() == FILES[1].read_text()
        assert (target / "report@.service").read_text() == (
            CORPUS / "systemd" / "report@.service"
        ).read_text()
        return
    left_out = {line.split(": ")[1] for line in err.splitlines()}
    fires = {spec.job_id: sorted(_instants(scenario, spec.job_id)) for spec in scenario.jobs}
    matched = sorted(sorted(_instants(again, spec.job_id)) for spec in again.jobs)
    expected = sorted(ticks for job_id, ticks in fires.items() if job_id not in left_out)
    assert matched == expected


def test_the_mixed_fleet_is_advised_written_back_exported_and_imports_the_same(
    tmp_path: Path,
) -> None:
    fleet, _ = _imported(tmp_path)
    assert cronlapse("run", str(fleet))[0] == 0
    back = tmp_path / "back"
    status, out, err = cronlapse("advise", str(fleet), "--until", "2880", "-o", str(back))
    assert status == 0, err
    assert "herd: 4 jobs fire in the same minute at 00:00" in out
    assert "refresh-cache: cron 0 * * * * -> 7 * * * *" in out  # @hourly, in app.crontab
    assert "shop-sitemap: cron 0 0 * * * -> 23 0 * * *" in out
    assert out.endswith(
        f"wrote 7 files in {back}: app.crontab, cron.d/shop-maintenance, cronjobs.yaml, "
        "report@weekly.timer, report@.service, tmp-sweep.timer, tmp-sweep.service\n"
    )
    nightly = (back / "cron.d" / "shop-maintenance").read_text().splitlines()
    original = FILES[1].read_text().splitlines()
    assert [line.split("\t", 1)[0] for line in nightly[-3:]] == ["15 0", "23 0", "0 0"]
    assert nightly[:-3] == original[:-3]  # the rest byte for byte
    assert (back / "app.crontab").read_text() == FILES[0].read_text().replace(
        "@hourly timeout 300", "7 * * * * timeout 300"
    )
    assert (back / "cronjobs.yaml").read_text() == FILES[2].read_text()  # the ConfigMap too

    advised = advise(
        read_fleet(str(fleet), fleet.read_text(encoding="utf-8")),
        AdviceOptions(until=2880, kept=kept_keys(_scenario(fleet))),
    ).advised.scenario
    again = _import_back(back, tmp_path / "again.yaml")
    assert _by_id(again) == _by_id(advised)

    exported = tmp_path / "exported"
    status, _, err = cronlapse(
        "export", "--fleet", "source", str(tmp_path / "again.yaml"), "-o", str(exported)
    )
    assert (status, err) == (0, "")
    once_more = _import_back(exported, tmp_path / "once-more.yaml")
    assert _by_id(once_more) == _by_id(again)
    assert (once_more.workers, once_more.clock) == (again.workers, again.clock)


def _scenario(path: Path) -> Scenario:
    return parse_scenario(path.read_text(encoding="utf-8"), str(path))


def _import_back(directory: Path, output: Path) -> Scenario:
    """Import the fleet's files written in ``directory`` (its units through their timers)."""
    files = [directory / PurePath(path).relative_to(CORPUS).name for path in FILES]
    files[1] = directory / "cron.d" / "shop-maintenance"
    status, _, err = cronlapse("import", *map(str, files), "-o", str(output))
    assert status == 0, err
    return _scenario(output)


def _by_id(scenario: Scenario) -> dict[str, JobSpec]:
    return {spec.job_id: spec for spec in scenario.jobs}


def _instants(scenario: Scenario, job_id: str) -> list[str]:
    """A job's fire times in its scenario's week, as UTC instants in text."""
    clock = scenario.clock
    assert clock is not None
    spec = next(spec for spec in scenario.jobs if spec.job_id == job_id)
    times = (clock.to_datetime(tick) for tick in spec.schedule.fire_ticks(0, WEEK))
    return [time.astimezone(UTC).isoformat() for time in times]
