"""Each importer gives its jobs its source system's rule at DST changes (``dst:``), so an
imported fleet fires in the gap and the fold as its source system does."""

from __future__ import annotations

from pathlib import Path

from cronlapse.importers.fleet import ImportOptions, import_fleet
from engine.schedules.calendar import CronSchedule, DstRule

MANIFEST = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "30 2 * * *"
  timeZone: Europe/Berlin
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: job, image: busybox}]
          restartPolicy: Never
"""


def schedule(kind: str, path: Path, start: str) -> CronSchedule:
    fleet = import_fleet(kind, [str(path)], ImportOptions(start=start, days=2))
    found = fleet.scenario.jobs[0].schedule
    assert isinstance(found, CronSchedule)
    return found


def fires(found: CronSchedule) -> list[str]:
    return [found.clock.format(tick) for tick in found.fire_ticks(0, 2 * 1440)]


def test_a_cronjob_fires_twice_in_the_repeated_hour_as_robfig_cron_does(tmp_path: Path) -> None:
    path = tmp_path / "nightly.yaml"
    path.write_text(MANIFEST)
    found = schedule("k8s", path, "2026-10-24T12:00:00+02:00")
    assert found.dst is DstRule.KUBERNETES
    assert fires(found)[:2] == ["2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00"]


def test_a_timer_skips_a_time_in_the_gap_as_systemd_does(tmp_path: Path) -> None:
    path = tmp_path / "nightly.timer"
    path.write_text("[Timer]\nOnCalendar=*-*-* 02:30:00 Europe/Berlin\n")
    found = schedule("systemd", path, "2026-03-28T12:00:00+01:00")
    assert found.dst is DstRule.SYSTEMD
    assert fires(found)[0] == "2026-03-30T02:30:00+02:00"


def test_a_crontab_keeps_debian_crons_rule(tmp_path: Path) -> None:
    path = tmp_path / "crontab"
    path.write_text("CRON_TZ=Europe/Berlin\n30 2 * * * /usr/local/bin/backup\n")
    found = schedule("crontab", path, "2026-03-28T12:00:00+01:00")
    assert found.dst is DstRule.CRON
    assert fires(found)[0] == "2026-03-29T03:00:00+02:00"
