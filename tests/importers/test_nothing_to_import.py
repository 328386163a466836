"""An input with nothing to import is an error naming it, as other bad input is: no scenario
with no jobs, written as if all were well."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import cronlapse

USER = Path(__file__).parent / "corpus" / "user.crontab"


@pytest.mark.parametrize(
    ("kind", "name", "text", "why"),
    [
        ("crontab", "empty.crontab", "", "no crontab entry"),
        (
            "crontab",
            "template.crontab",
            "# Edit this file to introduce tasks to be run by cron.\n"
            "# m h  dom mon dow   command\n",
            "no crontab entry",
        ),
        ("crontab", "env.crontab", "MAILTO=ops@example.com\nSHELL=/bin/bash\n", "no crontab entry"),
        ("k8s", "empty.yaml", "", "no CronJob"),
        ("k8s", "comments.yaml", "# nothing yet\n---\n", "no CronJob"),
    ],
)
def test_a_file_without_jobs_is_an_error_naming_it(
    tmp_path: Path, kind: str, name: str, text: str, why: str
) -> None:
    source, output = tmp_path / name, tmp_path / "out.yaml"
    source.write_text(text, encoding="utf-8")
    status, out, err = cronlapse("import", kind, str(source), "-o", str(output))
    assert (status, out) == (1, "")
    assert err == f"cronlapse import: {source}: nothing to import: {why}\n"
    assert not output.exists()


def test_a_file_whose_every_entry_is_not_imported_is_an_error_giving_why(tmp_path: Path) -> None:
    source = tmp_path / "boot.crontab"
    source.write_text("@reboot /opt/agent/start\n", encoding="utf-8")
    status, out, err = cronlapse("import", "crontab", str(source))
    assert (status, out) == (1, "")
    assert err == (
        f"cronlapse import: {source}: nothing to import: not imported: {source}:1: "
        "@reboot runs when cron starts; no schedule models it\n"
    )


def test_a_manifest_of_other_kinds_only_is_an_error(tmp_path: Path) -> None:
    source = tmp_path / "m.yaml"
    source.write_text("kind: Widget\napiVersion: example.com/v1\nmetadata: {name: w}\n")
    status, _, err = cronlapse("import", "k8s", str(source))
    assert status == 1
    assert err == (
        f"cronlapse import: {source}: nothing to import: not imported: {source}:1:1: Widget w: "
        "not a CronJob\n"
    )


def test_an_empty_file_among_others_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    empty = tmp_path / "empty.crontab"
    empty.write_text("\n", encoding="utf-8")
    status, out, err = cronlapse("import", "crontab", str(USER), str(empty))
    assert (status, out) == (1, "")
    assert err == f"cronlapse import: {empty}: nothing to import: no crontab entry\n"


def test_an_empty_cron_d_file_is_read_with_its_directory(tmp_path: Path) -> None:
    """A directory is one input, as cron reads it: an empty file in it is no error."""
    cron_d = tmp_path / "cron.d"
    cron_d.mkdir()
    (cron_d / "placeholder").write_text("# keep\n", encoding="utf-8")
    (cron_d / "certbot").write_text("0 */12 * * * root certbot -q renew\n", encoding="utf-8")
    assert cronlapse("import", "crontab", str(cron_d))[0] == 0
    (cron_d / "certbot").write_text("", encoding="utf-8")
    status, _, err = cronlapse("import", "crontab", str(cron_d))
    assert status == 1
    assert err == f"cronlapse import: {cron_d}: nothing to import: no crontab entry\n"


def test_opening_an_empty_crontab_directly_is_refused_as_bad_input(tmp_path: Path) -> None:
    source = tmp_path / "empty.crontab"
    source.write_text("", encoding="utf-8")
    status, _, err = cronlapse("check", str(source))
    assert status == cronlapse("check", str(tmp_path / "missing.crontab"))[0] != 0
    assert f"{source}: nothing to import: no crontab entry" in err
    assert "Traceback" not in err
