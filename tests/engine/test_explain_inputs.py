"""``cronlapse explain run``'s inputs and the words of its answers: what is refused and how, the
DST fold's rules as the engine applies them, times with their seconds, rules by their names."""

from __future__ import annotations

import pytest

from cronlapse.analyses.explain.context import Context
from engine.schedules.clock import Clock
from tests.engine.explain_helpers import SCENARIOS, bundled, history_at, inline, why

DST = str(SCENARIOS / "nightly-etl-dst.yaml")
SERVICE = str(SCENARIOS / "seed-003-service.yaml")
FORMS = "expected a tick (1560), +N or +2h from the start, a time of day (03:00) or an ISO time"


def refused(result: tuple[int, str, str]) -> str:
    """The one line of a refusal, after checking it is one: exit 2, nothing on standard output."""
    status, out, err = result
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("at", [(), ("--at", "100")])
def test_a_run_after_the_end_is_refused_as_at_after_the_end_is(cli, at: tuple[str, ...]) -> None:
    """It was answered "has no run", as if the scenario went on to it."""
    err = refused(cli("explain", "run", "extract@99999", DST, *at))
    assert err == (
        "cronlapse explain run: extract@99999: tick 99999 is after the scenario ends "
        "(clock.until: 4320)\n"
    )


def test_a_time_of_day_without_at_is_on_the_ends_day_and_refused_past_the_end(cli) -> None:
    """02:30 on the end's day (Tue 2026-03-31) is tick 4410, after the end at 4320: it was
    answered SCHEDULED, a run the scenario never reaches."""
    err = refused(cli("explain", "run", "extract@02:30", DST))
    assert err == (
        "cronlapse explain run: extract@02:30: tick 4410 is after the scenario ends "
        "(clock.until: 4320); without --at, a time of day is on the end's day (Tue 2026-03-31)\n"
    )


def test_a_time_of_day_before_the_end_on_its_day_is_answered(cli) -> None:
    """The end is Tue 01:00 (+02:00 since the spring change): its midnight is tick 4260."""
    status, out, err = cli("explain", "run", "extract@00:00", DST)
    assert (status, err) == (0, "")
    assert out.startswith("extract has no run at tick 4260 (Tue 2026-03-31 00:00 +02:00)\n")


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (("extract@-5", DST), "extract@-5: -5"),
        (("extract@-30m", DST, "--at", "1565"), "extract@-30m: -30m"),
        (("extract@1560", DST, "--at", "-5"), "--at -5: -5"),
    ],
)
def test_a_negative_tick_is_refused_saying_what_minus_would_count_from(
    cli, argv: tuple[str, ...], shown: str
) -> None:
    """``-N`` would count back from the scenario's start, as ``+N`` counts on from it."""
    err = refused(cli("explain", "run", *argv))
    assert err == (
        f"cronlapse explain run: {shown} would count back from the scenario's start (tick 0), "
        "and no tick is before it: +N counts on from the start\n"
    )


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (("extract@1560", DST, "--at", "1560.5"), "--at 1560.5"),
        (("extract@1560.5", DST), "extract@1560.5"),
        (("extract@soon", DST), "extract@soon"),
    ],
)
def test_text_that_is_no_form_of_tick_gets_the_forms_that_are(
    cli, argv: tuple[str, ...], shown: str
) -> None:
    """It got "expected an ISO 8601 time", the last form tried, as if it were the only one."""
    typed = shown.rpartition(" ")[2].rpartition("@")[2]
    err = refused(cli("explain", "run", *argv))
    assert err == (f"cronlapse explain run: {shown}: {FORMS} (2026-03-29T03:00), got {typed!r}\n")


def test_without_a_clock_the_forms_are_a_tick_or_plus_n(cli, tmp_path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("scenario: p\nclock: {until: 20}\nworkers: [w]\njobs: [{id: x, every: 5}]\n")
    err = refused(cli("explain", "run", "x@1.5", str(path)))
    assert err == (
        "cronlapse explain run: x@1.5: expected a tick (1560) or +N from the start (the scenario "
        "has no clock, so no times of day), got '1.5'\n"
    )


def test_a_time_of_day_that_is_not_one_keeps_its_own_reason(cli) -> None:
    err = refused(cli("explain", "run", "extract@25:99", DST))
    assert "is not a time of day (HH:MM or HH:MM:SS)" in err


FOLD = """
scenario: fold
clock: {epoch: "2026-10-25T00:00:00", timezone: Europe/Berlin, tick: 60, until: 360}
policy: {order: fifo}
workers: [w1, w2]
jobs:
  - {id: fixed, daily: "02:30", duration: 5}
  - {id: half, cron: "*/30 * * * *", duration: 1}
  - {id: hourly, cron: "15 * * * *", duration: 1}
"""


def test_the_second_pass_of_a_fixed_time_has_no_run_by_the_first_pass_rule() -> None:
    """Tick 210 is 02:30 +01:00: the rule that left it without a run is cited, and the run of
    that 02:30 is named (tick 150, 02:30 +02:00; the log has AttemptStarted fixed@150)."""
    text = why(inline(FOLD), "fixed", 210, at=360)
    assert text.startswith("fixed has no run at tick 210 (Sun 2026-10-25 02:30 +01:00)\n")
    assert (
        "DST fold: 02:30 happens twice on Sun 2026-10-25 (+02:00 then +01:00); a fixed-time job "
        "runs in the first pass only: this tick is the second pass (02:30 +01:00)" in text
    )
    assert "its run of 02:30 that day: tick 150 (Sun 2026-10-25 02:30 +02:00)" in text


def test_a_tick_in_the_second_pass_that_is_no_fire_time_cites_no_rule() -> None:
    text = why(inline(FOLD), "fixed", 209, at=360)
    assert "DST" not in text


@pytest.mark.parametrize(
    ("job", "scheduled", "field"),
    [("hourly", 195, "hour field is *"), ("half", 210, "minute field is */30")],
)
def test_a_real_time_job_in_the_fold_is_named_by_the_field_that_makes_it_one(
    job: str, scheduled: int, field: str
) -> None:
    """The engine's rule is Debian cron's: a job whose minute or hour field starts with * follows
    real time. ``15 * * * *`` runs hourly, not "more often than hourly"."""
    text = why(inline(FOLD), job, scheduled, at=360)
    wall = "02:15" if job == "hourly" else "02:30"
    assert (
        f"a job whose minute or hour field starts with * follows real time (its {field}) and "
        f"runs in both passes: this is the second pass ({wall} +01:00)" in text
    )
    assert "more often than hourly" not in text


def test_times_show_their_seconds_when_ticks_are_shorter_than_a_minute(cli) -> None:
    """With 1-second ticks, ticks 10 and 40 both read 09:00."""
    status, out, _ = cli("explain", "run", "report@10", SERVICE, "--at", "40")
    assert status == 0
    assert out.startswith("report@10 is QUEUED at tick 40 (Mon 2026-05-04 09:00:40 +00:00)\n")
    assert "scheduled for tick 10 (Mon 2026-05-04 09:00:10 +00:00)" in out


@pytest.mark.parametrize(
    ("epoch", "tick", "expected"),
    [
        ("2026-01-05T00:00:00", 60, "tick 2 (Mon 2026-01-05 00:02 +00:00)"),
        ("2026-01-05T00:00:30", 60, "tick 2 (Mon 2026-01-05 00:02:30 +00:00)"),
        ("2026-01-05T00:00:00", 90, "tick 2 (Mon 2026-01-05 00:03:00 +00:00)"),
        ("2026-01-05T00:00:00", 3600, "tick 2 (Mon 2026-01-05 02:00 +00:00)"),
    ],
)
def test_a_time_drops_its_seconds_only_on_a_clock_of_whole_minutes(
    epoch: str, tick: int, expected: str
) -> None:
    """Every time of one clock has the same form: a 90-second clock's 00:03:00 keeps its :00."""
    clock = Clock.parse(epoch, "UTC", tick)
    engine = history_at(inline("scenario: c\nworkers: [w]\njobs: []\n"), 0).engine
    assert Context(engine, clock).at(2) == expected


def test_a_catch_up_window_says_its_span_in_ticks() -> None:
    """temporal@50 was missed 45 ticks before the resume at 95, outside its window of 30."""
    text = why(bundled("semantics/missed-runs-after-a-pause.yaml"), "temporal", 50, at=100)
    assert "catch_up_window: 30: it fell due more than 30 ticks before the resume" in text


def test_kubernetes_limit_is_worded_by_its_setting_not_its_event() -> None:
    text = why(bundled("semantics/scheduler-outage.yaml"), "k8s", 50, at=100)
    assert "max_missed: 5: more than 5 runs were missed, so only the latest of them may run" in text
    assert "TooManyMissedRuns" not in text


def test_a_buffer_one_skip_says_the_buffer_was_full_and_names_the_run_in_it() -> None:
    """At tick 20 buffer-one@0 runs and buffer-one@10 is held (OccurrenceHeld at 10): the one
    place BufferOne keeps is taken, so 20 is skipped (OccurrenceSkipped because=BufferOne)."""
    text = why(bundled("semantics/overlap-temporal.yaml"), "buffer-one", 20, at=40)
    assert (
        "its job was at its limit of active runs, and the buffer of its rule (overlap: "
        "BufferOne) holds one run: buffer-one@10 was waiting in it, so this run was skipped" in text
    )
    assert "still active" not in text


def test_a_forbid_skip_still_says_a_run_was_active() -> None:
    text = why(bundled("semantics/overlap-kubernetes.yaml"), "forbid", 10, at=40)
    assert "a run of the job was still active, and its rule (overlap: Forbid) skips" in text
