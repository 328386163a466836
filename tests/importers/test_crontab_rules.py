"""Crontab rules the importer must keep as cron does: each entry's own zone, the cron.d file
names cron(8) reads, and any environment variable name."""

from __future__ import annotations

from pathlib import Path

from import_helpers import cronlapse

from cronlapse.importers.crontab import parse_crontab
from cronlapse.importers.fleet import ImportOptions, import_fleet


def test_entries_without_cron_tz_keep_crons_own_zone(tmp_path: Path) -> None:
    """cronie: CRON_TZ= applies to the entries after it; those before run in cron's own zone
    (the machine's, taken as UTC), not in the zone of another entry."""
    path = tmp_path / "c.crontab"
    path.write_text("0 9 * * * /bin/before\nCRON_TZ=Europe/Berlin\n0 9 * * * /bin/after\n")
    fleet = import_fleet("crontab", [str(path)], ImportOptions())
    (before, after) = fleet.scenario.jobs
    assert before.schedule.clock.zone.key == "UTC"
    assert after.schedule.clock.zone.key == "Europe/Berlin"
    assert f"{path}: line 1 fires in UTC (no CRON_TZ= before it: cron's own zone," in fleet.text
    assert f"{path}: line 3 fires in Europe/Berlin (CRON_TZ=Europe/Berlin)" in fleet.text


def test_cron_d_files_cron_skips_are_listed_not_imported(tmp_path: Path) -> None:
    """Debian cron(8) reads only /etc/cron.d files named by letters, digits, _ and - (cronie
    skips names ending in ~ and .rpmsave/.rpmnew/.rpmorig, and dpkg's leftovers likewise)."""
    cron_d = tmp_path / "cron.d"
    cron_d.mkdir()
    for name in ("php", "backup~", "certbot.dpkg-old", "my_job-2"):
        (cron_d / name).write_text("0 1 * * * root /usr/bin/x\n")
    status, out, err = cronlapse("import", "crontab", str(cron_d))
    assert status == 0, err
    assert out.count("- {id:") == 2
    for name in ("backup~", "certbot.dpkg-old"):
        assert f"not imported: {cron_d / name}: cron does not read it: " in err
    assert "cron.d file names are letters, digits, _ and - only" in err
    status, glob_out, glob_err = cronlapse(
        "import", "crontab", *sorted(str(path) for path in cron_d.iterdir())
    )
    assert (status, glob_err) == (0, err)
    assert glob_out.count("- {id:") == 2


def test_any_variable_name_is_an_environment_line() -> None:
    """Vixie cron's load_env: NAME=value where NAME is anything without blanks or '='."""
    crontab = parse_crontab("MY-VAR=1\nweird.name = x\n0 1 * * * /bin/x\n", "f")
    assert crontab.environment == {"MY-VAR": "1", "weird.name": "x"}
    assert len(crontab.entries) == 1
