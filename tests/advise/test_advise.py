"""``cronlapse advise``: findings named by job and time, changes proven by playing the fleet
before and after, and the advised fleet written back."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from cronlapse.analyses.advise import AdviceOptions, FleetError, advise, read_fleet
from cronlapse.analyses.advise.findings import Kind
from cronlapse.analyses.advise.proposals import NO_POOL
from cronlapse.analyses.advise.writer import scenario_text
from cronlapse.cli.main import main
from cronlapse.exports.fleet import kept_keys
from engine.scenario import parse_scenario

MIDNIGHT_HERD = """\
scenario: Midnight herd
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 2880}
workers: [w1, w2]
jobs:
  - {id: backup, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: report, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: cleanup, cron: "@daily", duration: 10, catch_up: latest}
  - {id: export, daily: "00:00", duration: 10, catch_up: latest}
  - {id: index, cron: "0 0 * * *", duration: 10, catch_up: latest}
  - {id: mail, cron: "0 0 * * *", duration: 10, catch_up: latest}
"""

LONGER_THAN_ITS_INTERVAL = """\
scenario: A sync slower than its schedule
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 120}
workers: [w1, w2, w3, w4, w5]
jobs:
  - {id: sync, cron: "* * * * *", duration: 5, catch_up: latest}
"""

BERLIN_FALL_BACK = """\
scenario: Berlin, the night the clocks go back
clock: {epoch: "2026-10-24T00:00:00", timezone: Europe/Berlin, tick: 60, until: 2880}
workers: [w1, w2]
jobs:
  - {id: nightly, cron: "30 2 * * *", duration: 5, catch_up: latest}
  - {id: poll, cron: "15 * * * *", duration: 1, catch_up: latest}
"""


def fleet_of(text: str, name: str = "fleet.yaml"):  # type: ignore[no-untyped-def]
    return read_fleet(name, text)


def cronlapse(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_a_midnight_herd_is_spread_and_the_play_shows_the_p95_wait_drop() -> None:
    advice = advise(fleet_of(MIDNIGHT_HERD), AdviceOptions(window=30))
    herd = advice.steps[0]
    assert herd.finding.kind is Kind.HERD
    assert herd.finding.jobs == ("backup", "cleanup", "export", "index", "mail", "report")
    assert "2026-01-05 00:00" in herd.finding.text
    assert herd.taken and herd.proposal is not None
    assert herd.proposal.changes == (
        "cleanup: cron @daily -> 5 0 * * *",
        "export: daily 00:00 -> 00:10",
        "index: cron 0 0 * * * -> 15 0 * * *",
        "mail: cron 0 0 * * * -> 20 0 * * *",
        "report: cron 0 0 * * * -> 25 0 * * *",
    )
    assert herd.before is not None and herd.after is not None
    assert herd.before.p95_wait == 20
    assert herd.after.p95_wait == 0
    assert advice.after.p95_wait == 0


def test_the_same_fleet_gets_the_same_advice() -> None:
    first = advise(fleet_of(MIDNIGHT_HERD), AdviceOptions(window=17))
    again = advise(fleet_of(MIDNIGHT_HERD), AdviceOptions(window=17))
    assert scenario_text(first) == scenario_text(again)
    assert [step.proposal.changes for step in first.steps if step.proposal] == [
        step.proposal.changes for step in again.steps if step.proposal
    ]


def test_the_window_bounds_how_far_a_job_moves() -> None:
    advice = advise(fleet_of(MIDNIGHT_HERD), AdviceOptions(window=6))
    proposal = advice.steps[0].proposal
    assert proposal is not None
    minutes = [int(change.split("-> ")[1].split()[0].split(":")[-1]) for change in proposal.changes]
    assert minutes == [1, 2, 3, 4, 5]


def test_a_job_longer_than_its_interval_gets_an_overlap_rule_that_ends_the_doubling() -> None:
    advice = advise(fleet_of(LONGER_THAN_ITS_INTERVAL), AdviceOptions())
    (step,) = [step for step in advice.steps if step.finding.kind is Kind.LONG_RUN]
    assert step.finding.jobs == ("sync",)
    assert "sync runs 5 ticks but fires every 1" in step.finding.text
    assert step.taken and step.proposal is not None
    assert step.proposal.changes == ("sync: overlap none -> Forbid",)
    assert step.before is not None and step.after is not None
    assert step.before.peak_concurrency == 5 and step.after.peak_concurrency == 1
    assert step.before.doubled > 0 and step.after.doubled == 0
    assert step.after.missed > step.before.missed  # the trade is shown, not hidden


def test_jobs_in_the_hour_berlin_repeats_move_out_of_it_or_run_in_utc() -> None:
    advice = advise(fleet_of(BERLIN_FALL_BACK), AdviceOptions())
    dst = {
        step.finding.jobs[0]: step for step in advice.steps if step.finding.kind is Kind.DST_HOUR
    }
    nightly, poll = dst["nightly"], dst["poll"]
    assert "2026-10-25 02:30 happens twice" in nightly.finding.text
    assert nightly.taken and nightly.proposal is not None
    assert nightly.proposal.changes == ("nightly: cron 30 2 * * * -> 30 3 * * *",)
    assert nightly.before is not None and nightly.after is not None
    # the fleet's figures: poll's 02:15 is the one left after nightly moves
    assert (nightly.before.dst_hour_runs, nightly.after.dst_hour_runs) == (2, 1)
    assert "2026-10-25 02:15 happens twice" in poll.finding.text
    assert poll.taken and poll.proposal is not None
    assert poll.proposal.changes == ("poll: timezone Europe/Berlin -> UTC",)
    assert poll.before is not None and poll.after is not None
    assert poll.before.doubled == 1 and poll.after.doubled == 0
    assert (poll.before.dst_hour_runs, poll.after.dst_hour_runs) == (1, 0)


def test_a_skipped_hour_is_found_in_spring() -> None:
    spring = BERLIN_FALL_BACK.replace("2026-10-24", "2026-03-28")
    advice = advise(fleet_of(spring), AdviceOptions())
    texts = [step.finding.text for step in advice.steps if step.finding.kind is Kind.DST_HOUR]
    assert any("2026-03-29 02:30 does not exist" in text for text in texts)


def test_jobs_that_lose_runs_to_an_outage_are_proven_to_keep_them() -> None:
    exposed = MIDNIGHT_HERD.replace(", catch_up: latest", "")
    advice = advise(fleet_of(exposed), AdviceOptions())
    (step,) = [step for step in advice.steps if step.finding.kind is Kind.MISSED]
    assert step.taken and step.proposal is not None and step.proposal.probe
    assert step.before is not None and step.after is not None
    assert step.before.missed == 6 and step.after.missed == 0


def test_too_few_workers_get_the_fewest_that_leave_no_run_waiting() -> None:
    one_a_minute = (
        MIDNIGHT_HERD.replace("minute", "")
        .replace('cron: "0 0 * * *"', "every: 120")
        .replace('cron: "@daily"', "every: 120")
        .replace('daily: "00:00"', "every: 120")
    )
    advice = advise(fleet_of(one_a_minute), AdviceOptions())
    (step,) = [step for step in advice.steps if step.finding.kind is Kind.PEAK]
    assert step.taken and step.proposal is not None
    assert step.proposal.changes == ("workers: 2 -> 6",)
    assert step.after is not None and step.after.p95_wait == 0


def test_a_change_the_play_does_not_bear_out_is_not_proposed() -> None:
    one_worker_each = MIDNIGHT_HERD.replace(
        "workers: [w1, w2]", "workers: [w1, w2, w3, w4, w5, w6]"
    )
    advice = advise(fleet_of(one_worker_each), AdviceOptions(window=1))
    herd = advice.steps[0]
    assert herd.finding.kind is Kind.HERD
    # one minute apart, ten-minute runs still all run at once: no wait to cut, no peak lowered
    assert not herd.taken and "no gain" in herd.reason
    assert advice.taken == ()


def test_the_written_fleet_plays_as_the_proof_said(tmp_path: Path) -> None:
    source = tmp_path / "herd.yaml"
    source.write_text(MIDNIGHT_HERD, encoding="utf-8")
    written = tmp_path / "advised.yaml"
    status, out, err = cronlapse("advise", str(source), "-o", str(written))
    assert (status, err) == (0, "")
    assert out.endswith(f"wrote {written}\n")
    advised = parse_scenario(written.read_text(encoding="utf-8"), str(written))
    crons = {spec.job_id: spec.schedule.describe() for spec in advised.jobs}
    assert crons["report"] == "cron 25 0 * * * (UTC)"
    again = advise(read_fleet(str(written), written.read_text(encoding="utf-8")), AdviceOptions())
    assert again.steps == ()


def test_a_crontab_is_imported_in_memory_and_advised() -> None:
    status, out, err = cronlapse("advise", "scenarios/imports/team.crontab")
    assert status == 0, err
    assert out.startswith("scenarios/imports/team.crontab: ")
    assert "missed-run exposure" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["missing.yaml"], "missing.yaml: cannot read: No such file or directory"),
        (["HERD", "--window", "0"], "--window: expected a whole number of minutes from 1 to 60"),
        (["HERD", "--until", "5000"], "--until 5000 is after the scenario ends"),
    ],
)
def test_bad_input_is_said_with_its_place_and_exits_2(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    source = tmp_path / "herd.yaml"
    source.write_text(MIDNIGHT_HERD, encoding="utf-8")
    status, out, err = cronlapse("advise", *[str(source) if a == "HERD" else a for a in argv])
    assert status == 2 and out == ""
    assert said in err and "Traceback" not in err


def test_an_invalid_scenario_is_refused_at_its_line(tmp_path: Path) -> None:
    source = tmp_path / "bad.yaml"
    source.write_text(MIDNIGHT_HERD.replace("duration: 10, catch", "duration: -1, catch", 1))
    status, _, err = cronlapse("advise", str(source))
    assert status == 2
    assert f"{source}:5:" in err


def test_an_unknown_job_change_is_refused() -> None:
    with pytest.raises(FleetError, match="ghost"):
        fleet_of(MIDNIGHT_HERD).with_job("ghost", {"duration": 2})


HOURLY_AND_INTERVALS = """\
scenario: Hourly crons and interval jobs
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 1440}
workers: [w1, w2, w3]
jobs:
  - {id: sync-a, cron: "0 * * * *", catch_up: latest}
  - {id: sync-b, cron: "0 * * * *", catch_up: latest}
  - {id: sync-c, cron: "@hourly", catch_up: latest}
  - {id: svc-a, every: 90, catch_up: latest}
  - {id: svc-b, every: 90, catch_up: latest}
  - {id: svc-c, every: 90, catch_up: latest}
"""


def test_an_hourly_herd_is_one_finding_and_interval_jobs_are_no_herd() -> None:
    advice = advise(fleet_of(HOURLY_AND_INTERVALS), AdviceOptions())
    herds = [step.finding for step in advice.steps if step.finding.kind is Kind.HERD]
    assert [finding.jobs for finding in herds] == [("sync-a", "sync-b", "sync-c")]
    assert "at 00:00, 01:00, 02:00 and 21 more (25 times from 2026-01-05 00:00)" in herds[0].text


def test_a_herd_from_generate_is_found_and_said_to_be_out_of_reach() -> None:
    generated = """\
scenario: Generated herd
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 1440}
workers: [w1]
generate:
  - {count: 4, id: "nightly-{n}", job: {daily: "00:00", duration: 5, catch_up: latest}}
"""
    advice = advise(fleet_of(generated), AdviceOptions())
    herd = advice.steps[0]
    assert herd.finding.kind is Kind.HERD and len(herd.finding.jobs) == 4
    assert herd.proposal is None
    assert herd.reason == "the jobs come from generate:, whose items a change cannot rewrite"


def test_the_written_fleet_keeps_the_files_head_and_leaves_out_its_expectations() -> None:
    text = (
        "# our nightly jobs\n# (from ops)\n"
        + MIDNIGHT_HERD
        + ("expect:\n  - {at: 0, job: backup, scheduled: 0, status: RUNNING}\n")
    )
    written = scenario_text(advise(fleet_of(text), AdviceOptions()))
    lines = written.splitlines()
    assert lines[:3] == [
        "# our nightly jobs",
        "# (from ops)",
        "# Advised by `cronlapse advise` (1 change):",
    ]
    assert "#   report: cron 0 0 * * * -> 25 0 * * *" in lines
    assert "expect" not in written
    assert parse_scenario(written, "advised.yaml").expectations == ()


def test_an_output_that_cannot_be_written_is_said_before_anything_plays(tmp_path: Path) -> None:
    source = tmp_path / "herd.yaml"
    source.write_text(MIDNIGHT_HERD, encoding="utf-8")
    missing = tmp_path / "no-such-dir" / "advised.yaml"
    status, out, err = cronlapse("advise", str(source), "-o", str(missing))
    assert (status, out) == (2, "")
    assert err == f"cronlapse advise: cannot write {missing}: No such file or directory\n"


HERD_CRONTAB = """\
# nightly jobs of the shop (ops)
MAILTO=ops@example.com

# backups first
0 0 * * * /usr/local/bin/backup-db.sh > /dev/null 2>&1
0 0 * * * /usr/bin/nice -n 19 /opt/shop/bin/report
@daily /opt/shop/bin/cleanup
0 0 * * * timeout 600 /opt/shop/bin/export
0 0 * * * /opt/shop/bin/index   # search
@reboot /opt/shop/bin/warm-up
"""


def test_an_advised_crontab_is_written_back_as_a_crontab(tmp_path: Path) -> None:
    source = tmp_path / "herd.crontab"
    source.write_text(HERD_CRONTAB, encoding="utf-8")
    written = tmp_path / "advised.crontab"
    status, out, _ = cronlapse("advise", str(source), "-o", str(written))
    assert status == 0
    assert out.endswith(f"wrote {written}: herd.crontab with the changes\n")
    # cron has no catch-up: that finding gets no change the crontab could not say
    assert (
        "nothing proposed: backup-db, report, cleanup, export, index: its crontab file "
        "cannot say catch_up" in out
    )
    text = written.read_text(encoding="utf-8")
    lines, original = text.splitlines(), HERD_CRONTAB.splitlines()
    moved = [n for n, (new, old) in enumerate(zip(lines, original, strict=True)) if new != old]
    assert moved == [5, 6, 7, 8]  # the herd's entries but the first; the rest byte for byte
    assert [line.split(" ", 1)[0] for line in lines[4:9]] == ["0", "24", "6", "12", "18"]
    assert [line.split(" * * * ", 1)[1] for line in lines[4:9]] == [
        line.split(" * * * ", 1)[1] if "@" not in line else "/opt/shop/bin/cleanup"
        for line in original[4:9]
    ]
    status, again, _ = cronlapse("import", "crontab", str(written))
    assert status == 0
    imported = read_fleet(str(source), cronlapse("import", "crontab", str(source))[1])
    options = AdviceOptions(kept=kept_keys(imported.scenario))
    advised = advise(imported, options).advised.scenario
    assert parse_scenario(again, "again.yaml").jobs == advised.jobs


def test_with_scenario_an_advised_crontab_is_written_as_a_scenario(tmp_path: Path) -> None:
    source = tmp_path / "herd.crontab"
    source.write_text(HERD_CRONTAB, encoding="utf-8")
    written = tmp_path / "advised.yaml"
    status, out, _ = cronlapse("advise", str(source), "--scenario", "-o", str(written))
    assert status == 0 and out.endswith(f"wrote {written}\n")
    advised = parse_scenario(written.read_text(encoding="utf-8"), str(written))
    # a scenario says what a crontab cannot: the catch-up is proposed and written
    assert {spec.catch_up.value for spec in advised.jobs} == {"latest"}


SYNC_FROM_A_CRONTAB = """\
scenario: A sync from a crontab, on one worker
clock: {epoch: "2026-01-05T00:00:00", timezone: UTC, tick: 60, until: 120}
workers: [w1]
jobs:
  - {id: sync, cron: "* * * * *", duration: 5, catch_up: latest,
     source: {format: crontab, file: app.crontab, line: "1", text: "* * * * * sync"}}
"""


def test_a_fleet_going_back_to_its_files_is_proposed_only_what_they_say() -> None:
    fleet = fleet_of(SYNC_FROM_A_CRONTAB)
    as_scenario = advise(fleet, AdviceOptions())
    kinds = [step.finding.kind for step in as_scenario.steps if step.proposal is not None]
    assert kinds == [Kind.LONG_RUN, Kind.PEAK]
    going_back = advise(fleet, AdviceOptions(kept=kept_keys(fleet.scenario)))
    assert going_back.taken == ()
    reasons = {step.finding.kind: step.reason for step in going_back.steps}
    assert reasons[Kind.LONG_RUN] == "sync: its crontab file cannot say overlap"
    assert reasons[Kind.PEAK] == NO_POOL


def test_a_fleet_of_several_files_is_written_into_a_directory_not_over_a_file(
    tmp_path: Path,
) -> None:
    herd = tmp_path / "herd.crontab"
    herd.write_text(HERD_CRONTAB, encoding="utf-8")
    other = tmp_path / "other.crontab"
    other.write_text("30 1 * * * /opt/shop/bin/vacuum\n", encoding="utf-8")
    fleet = tmp_path / "fleet.yaml"
    assert cronlapse("import", str(herd), str(other), "-o", str(fleet))[0] == 0
    a_file = tmp_path / "taken"
    a_file.write_text("", encoding="utf-8")
    status, out, err = cronlapse("advise", str(fleet), "-o", str(a_file))
    assert (status, out) == (2, "")
    assert err == f"cronlapse advise: cannot write {a_file}: Not a directory\n"
    status, out, _ = cronlapse("advise", str(fleet), "-o", str(tmp_path / "back"))
    assert status == 0
    assert out.endswith(f"wrote 2 files in {tmp_path / 'back'}: herd.crontab, other.crontab\n")
    assert (tmp_path / "back" / "other.crontab").read_text() == other.read_text()
