"""The bundled imported scenarios (scenarios/imports/*-week.yaml) are what ``cronlapse import``
writes today, with expectations added by hand below a marker, and those expectations hold."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from import_helpers import cronlapse

ROOT = Path(__file__).resolve().parents[2]
MARKER = "# Added by hand, below:"
BUNDLED = {
    "scenarios/imports/team-week.yaml": ("crontab", "scenarios/imports/team.crontab"),
    "scenarios/imports/reporting-week.yaml": ("k8s", "scenarios/imports/reporting-cronjobs.yaml"),
    "scenarios/imports/timers-week.yaml": (
        "systemd",
        "scenarios/imports/timers/backup.timer",
        "scenarios/imports/timers/weekday-report.timer",
    ),
}


@pytest.mark.parametrize("bundled", BUNDLED)
def test_a_bundled_scenario_is_its_import_plus_expectations_that_hold(bundled: str) -> None:
    with contextlib.chdir(ROOT):
        status, imported, _ = cronlapse("import", *BUNDLED[bundled])
        assert status == 0
        text = Path(bundled).read_text(encoding="utf-8")
        assert text[: text.index(MARKER)] == imported
        status, out, err = cronlapse("check", bundled)
    assert (status, err) == (0, "")
    assert out.endswith(" expectations, 0 mismatches\n") and " 0 expectations" not in out


def test_the_source_files_open_directly_as_their_imported_scenarios() -> None:
    with contextlib.chdir(ROOT):
        for _, *sources in BUNDLED.values():
            for source in sources:
                assert cronlapse("check", source)[:2] == (
                    0,
                    "1 file, 0 expectations, 0 mismatches\n",
                )
