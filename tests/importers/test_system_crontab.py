"""A system crontab (a user field after the time fields) wherever it is and whatever its name:
recognised by its user field, or refused with a hint that ``--system`` exists; its user is
never read as part of the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import cronlapse

from cronlapse.importers.crontab import parse_crontab
from cronlapse.importers.files import ImportProblems
from engine.scenario import parse_scenario

FLEET = """\
# Copied from /etc/cron.d on the web hosts
SHELL=/bin/sh
*/5 * * * * root /usr/local/bin/check-raid
17 3 * * * www-data cd /var/www/shop && php bin/console cache:warmup
30 4 * * 0 deploy /opt/app/bin/prune-releases.sh
"""


def test_a_system_crontab_named_anything_is_recognised_by_its_user_field(
    tmp_path: Path,
) -> None:
    source = tmp_path / "web.crontab"
    source.write_text(FLEET, encoding="utf-8")
    status, out, err = cronlapse("import", "crontab", str(source))
    assert (status, err) == (0, "")
    jobs = parse_scenario(out).jobs
    assert [(job.job_id, job.payload) for job in jobs] == [
        ("check-raid", "/usr/local/bin/check-raid"),
        ("console-cache-warmup", "cd /var/www/shop && php bin/console cache:warmup"),
        ("prune-releases", "/opt/app/bin/prune-releases.sh"),
    ]
    assert [out.count(f"# runs as {user}\n") for user in ("root", "www-data", "deploy")] == [
        1,
        1,
        1,
    ]
    assert (
        f"# {source}: read as a system crontab, with a user field: line 3 runs as 'root'; "
        "--no-system reads the field as the command" in out
    )
    assert cronlapse("check", str(source))[:2] == (0, "1 file, 0 expectations, 0 mismatches\n")


def test_no_system_reads_the_word_as_the_command(tmp_path: Path) -> None:
    source = tmp_path / "web.crontab"
    source.write_text(FLEET, encoding="utf-8")
    status, out, _ = cronlapse("import", "crontab", "--no-system", str(source))
    assert status == 0
    assert parse_scenario(out).jobs[0].payload == ("root /usr/local/bin/check-raid")


def test_a_user_field_on_some_lines_only_is_refused_with_the_options() -> None:
    text = "*/5 * * * * root /usr/local/bin/check-raid\n0 1 * * * /opt/backup.sh\n"
    with pytest.raises(ImportProblems) as caught:
        parse_crontab(text, "f", system=None)
    assert [str(problem) for problem in caught.value.problems] == [
        "f:1:13: 'root' looks like a system crontab's user field (as in /etc/crontab and "
        "/etc/cron.d files), but line 2 has none: pass --system if every line has a user "
        "field, or --no-system to read 'root' as the command"
    ]


@pytest.mark.parametrize(
    "line",
    [
        "0 1 * * * /usr/bin/backup --full\n",
        "0 1 * * * mysql -e 'OPTIMIZE TABLE shop.orders'\n",
        "0 1 * * * deploy /srv/app\n",
    ],
)
def test_a_user_crontab_stays_one(line: str) -> None:
    crontab = parse_crontab(line, "f", system=None)
    assert not crontab.system and crontab.entries[0].user is None
    assert crontab.entries[0].command == line.split(None, 5)[5].strip()
