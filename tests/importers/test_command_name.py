"""Job ids from the command that does the work, not from the wrappers around it.

The lines are written in the style of public crontabs (Laravel, Django, Rails' whenever, Debian's
packages, healthchecks.io pings, Nextcloud): what they run is behind ``cd``, ``source``,
``flock``, ``nice``, ``sudo``, ``sh -c``, redirections and interpreters.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from import_helpers import cronlapse

from cronlapse.importers.command_name import command_name
from cronlapse.importers.wrappers import WRAPPERS
from engine.scenario import parse_scenario

REALISTIC = [
    (
        "cd /srv/app && . ./env.sh && flock -n /tmp/x.lock php artisan schedule:run "
        ">> /var/log/x.log 2>&1",
        "artisan-schedule:run",
    ),
    ("cd /var/www/app && php artisan schedule:run >> /dev/null 2>&1", "artisan-schedule:run"),
    ("/opt/app/bin/backup-db.sh", "backup-db"),
    ("source /home/deploy/.profile && /opt/app/bin/sync-users.sh --full", "sync-users"),
    (". /etc/profile; /usr/local/bin/rotate-logs", "rotate-logs"),
    ("env RAILS_ENV=production LANG=C.UTF-8 /usr/local/bin/mailer", "mailer"),
    ("PATH=/usr/local/bin:$PATH nightly-report > /tmp/report.log", "nightly-report"),
    (
        "/bin/bash -l -c 'cd /home/deploy/app/current && RAILS_ENV=production bundle exec "
        "rake jobs:clear --silent >> log/cron.log 2>&1'",
        "rake-jobs:clear",
    ),
    ('sh -c "nice -n 19 ionice -c3 /usr/bin/updatedb"', "updatedb"),
    ("/usr/bin/nice -n 10 /usr/bin/ionice -c 2 -n 7 /opt/backup/run-backup.sh", "run-backup"),
    ("timeout 3600 /usr/local/bin/reindex.py", "reindex"),
    ("timeout -s KILL 5m python3 /opt/etl/extract_orders.py --since 1d", "extract_orders"),
    ("nohup /opt/tools/cleanup.pl &", "cleanup"),
    ("sudo -u www-data php /var/www/nextcloud/cron.php", "cron"),
    ("php -f /var/www/nextcloud/cron.php", "cron"),
    (
        "/usr/bin/php8.2 -d memory_limit=512M /var/www/shop/bin/console app:orders:export",
        "console-app:orders:export",
    ),
    ("cd /srv/site && /srv/site/venv/bin/python manage.py clearsessions", "manage-clearsessions"),
    ("/srv/venv/bin/python3.11 -m reports.jobs.weekly_digest", "weekly_digest"),
    (
        "test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep "
        "int(rand(43200))' && certbot -q renew",
        "certbot",
    ),
    (
        "test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }",
        "run-parts-cron.daily",
    ),
    (
        "[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then "
        "/usr/lib/php/sessionclean; fi",
        "sessionclean",
    ),
    (
        "/usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 -o /dev/null "
        "https://hc-ping.com/eb095278-f28d-448d-87fb-7b75c171a6aa",
        "backup",
    ),
    ("flock -w 30 /var/lock/mirror.lock -c 'rsync -a /srv/src/ /srv/mirror/'", "rsync"),
    ("su - postgres -c 'pg_dump --format=custom shop > /backups/shop.dump'", "pg_dump"),
    ("docker exec -u www-data nextcloud php occ files:scan --all", "occ-files:scan"),
    ("docker compose exec -T app php artisan queue:restart", "artisan-queue:restart"),
    ("java -Xmx1g -jar /opt/reports/monthly-report.jar --month last", "monthly-report"),
    ("sleep $((RANDOM % 60)); /opt/app/bin/poll-feeds", "poll-feeds"),
    ("mysqldump --single-transaction shop | gzip > /backups/shop-$(date +%F).sql.gz", "mysqldump"),
    ("/usr/bin/env python3 /opt/monitor/check_disks.py", "check_disks"),
    ("echo 'started' >> /var/log/x.log", "echo"),
    ("> /dev/null", "job"),
    ("bash -c 'unclosed", "unclosed"),
]


@pytest.mark.parametrize(("command", "name"), REALISTIC)
def test_a_command_is_named_by_the_program_that_does_the_work(command: str, name: str) -> None:
    assert command_name(command) == name


@given(st.sampled_from(sorted(WRAPPERS)), st.sampled_from(["/opt/app/bin/", "", "./"]))
def test_every_wrapper_in_the_table_is_seen_through(wrapper: str, directory: str) -> None:
    """Each wrapper, with the subcommand and the operands its row says it takes, names the
    script it runs."""
    for row in WRAPPERS[wrapper]:
        operands = ["OPERAND"] * row.operands
        command = " ".join(
            [f"/usr/bin/{wrapper}", *row.subcommand, *operands, f"{directory}nightly-sync.sh"]
        )
        assert command_name(command) == "nightly-sync", command


@given(st.text())
def test_any_text_has_a_name(command: str) -> None:
    assert command_name(command)


def test_a_crontab_of_wrapped_commands_imports_with_ids_that_say_what_runs(
    tmp_path: Path,
) -> None:
    crontab = tmp_path / "app.crontab"
    crontab.write_text(
        "MAILTO=ops@example.com\n"
        "* * * * * cd /srv/app && . ./env.sh && flock -n /tmp/sched.lock php artisan "
        "schedule:run >> /var/log/sched.log 2>&1\n"
        "15 2 * * * . /etc/profile; /opt/app/bin/backup-db.sh\n"
        "30 2 * * * . /etc/profile; /opt/app/bin/backup-db.sh --incremental\n"
        "*/10 * * * * env APP_ENV=prod /usr/bin/nice -n 19 /opt/app/bin/prune-cache.py\n"
        "0 4 * * 0 sh -c 'timeout 1h /opt/app/bin/reindex.sh'\n"
        "0 5 * * * /opt/app/bin/report.sh > /tmp/report-$(date +\\%F).log\n",
        encoding="utf-8",
    )
    status, out, _ = cronlapse("import", "crontab", str(crontab))
    assert status == 0
    assert [job.job_id for job in parse_scenario(out).jobs] == [
        "artisan-schedule-run",
        "backup-db",
        "backup-db-2",
        "prune-cache",
        "reindex",
        "report",
    ]
