"""Hand-checked examples of the seed 001 script protocol: ``run_script``, ``cronlapse script``.

Every expected line below was derived by hand from the rules (the arithmetic is in the comments),
then checked against the reference model in ``protocol_model.py``: each example runs against both
the engine and the model, so the model used by the property tests cannot drift from these.

Notation in comments: SUBMIT id priority duration maxAttempts depCount [deps]; "eff" is the
effective priority priority + floor(waitingTicks / AGING_STEP); "t=5" is tick 5.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from protocol_model import model_run

from engine import run_script
from engine.facades.script import execute_script

REPO_ROOT = Path(__file__).resolve().parents[2]
BIG = 10**12


@dataclass(frozen=True)
class Example:
    """A script, its exact stdout lines, and the 1-based numbers of the lines it rejects."""

    name: str
    script: list[str]
    output: list[str]
    errors: list[int] = field(default_factory=list)


EXAMPLES = [
    # ---- scheduling order ------------------------------------------------------------------
    Example(
        "priority_beats_submission_order",
        [
            "INIT 100 0",
            "SUBMIT a 1 2 1 0",
            "SUBMIT b 5 2 1 0",
            "TICK 5",  # t=0: a eff 1, b eff 5 -> b (ends 2); t=2: DONE b, START a (ends 4)
        ],
        ["OK a", "OK b", "START b 0", "DONE b 2", "START a 2", "DONE a 4"],
    ),
    Example(
        "aging_lets_low_priority_overtake",
        [
            "INIT 3 0",
            "SUBMIT a 10 10 1 0",  # t=0: a (10) beats low (0); a runs 0..10
            "SUBMIT low 0 1 1 0",  # runnable since 0
            "TICK 8",
            "SUBMIT mid 2 1 1 0",  # runnable since 8
            # t=10: DONE a; low eff 0 + floor(10/3) = 3, mid eff 2 + floor(2/3) = 2 -> low
            "TICK 5",
        ],
        [
            "OK a",
            "OK low",
            "START a 0",
            "OK mid",
            "DONE a 10",
            "START low 10",
            "DONE low 11",
            "START mid 11",
            "DONE mid 12",
        ],
    ),
    Example(
        "aging_step_too_large_to_overtake",
        [
            "INIT 6 0",  # the same script with AGING_STEP 6
            "SUBMIT a 10 10 1 0",
            "SUBMIT low 0 1 1 0",
            "TICK 8",
            "SUBMIT mid 2 1 1 0",
            # t=10: low eff 0 + floor(10/6) = 1, mid eff 2 + floor(2/6) = 2 -> mid
            "TICK 5",
        ],
        [
            "OK a",
            "OK low",
            "START a 0",
            "OK mid",
            "DONE a 10",
            "START mid 10",
            "DONE mid 11",
            "START low 11",
            "DONE low 12",
        ],
    ),
    Example(
        "aging_floors_not_rounds",
        [
            "INIT 3 0",
            "SUBMIT a 10 5 1 0",  # runs 0..5
            "SUBMIT low 0 1 1 0",  # runnable since 0
            "TICK 4",
            "SUBMIT mid 2 1 1 0",  # runnable since 4
            # t=5: low eff 0 + floor(5/3) = 1 (rounding would give 2 and a tie won by low),
            # mid eff 2 + floor(1/3) = 2 -> mid
            "TICK 4",  # ticks 4..7
        ],
        [
            "OK a",
            "OK low",
            "START a 0",
            "OK mid",
            "DONE a 5",
            "START mid 5",
            "DONE mid 6",
            "START low 6",
            "DONE low 7",
        ],
    ),
    Example(
        "equal_effective_priority_goes_to_earlier_submission",
        [
            "INIT 2 0",
            "SUBMIT x 9 4 1 0",  # runs 0..4
            "SUBMIT b 0 1 1 0",  # runnable since 0
            "TICK 3",
            "SUBMIT a 2 1 1 0",  # runnable since 3
            # t=4: b eff 0 + floor(4/2) = 2, a eff 2 + floor(1/2) = 2: tie -> b, submitted first
            "TICK 3",
        ],
        [
            "OK x",
            "OK b",
            "START x 0",
            "OK a",
            "DONE x 4",
            "START b 4",
            "DONE b 5",
            "START a 5",
        ],
    ),
    # The third tie-break (smallest id) is unreachable: ids are unique and a job is submitted
    # once, so submission order never ties. This example shows submission order deciding against
    # the lexicographic order of the ids ("b" > "a" yet b goes first).
    Example(
        "equal_base_priority_goes_to_submission_order_not_id",
        [
            "INIT 100 0",
            "SUBMIT b 3 1 1 0",
            "SUBMIT a 3 1 1 0",
            "TICK 2",  # t=0: both eff 3 -> b; t=1: DONE b, START a (ends 2, not yet processed)
            "RUNNING",
        ],
        ["OK b", "OK a", "START b 0", "DONE b 1", "START a 1", "a"],
    ),
    Example(
        "negative_priorities_are_ordinary_integers",
        [
            "INIT 100 0",
            "SUBMIT a -5 1 1 0",
            "SUBMIT b -2 1 1 0",
            "TICK 2",  # t=0: a eff -5, b eff -2 -> b; t=1: DONE b, START a
        ],
        ["OK a", "OK b", "START b 0", "DONE b 1", "START a 1"],
    ),
    # ---- execution and dependencies --------------------------------------------------------
    Example(
        "completion_and_start_in_the_same_tick",
        [
            "INIT 1 0",
            "SUBMIT a 0 3 1 0",
            "SUBMIT b 0 2 1 1 a",
            "TICK 10",  # a runs 0..3; t=3: DONE a, then b (now runnable) starts at once; ends 5
        ],
        ["OK a", "OK b", "START a 0", "DONE a 3", "START b 3", "DONE b 5"],
    ),
    Example(
        "completion_at_the_clock_is_not_processed_until_the_next_tick",
        [
            "INIT 1 0",
            "SUBMIT a 0 3 1 0",
            "TICK 3",  # ticks 0, 1, 2: a ends at 3, which this TICK does not process
            "RUNNING",
            "STATUS a",
            "TICK 1",  # tick 3: DONE a
            "RUNNING",
        ],
        ["OK a", "START a 0", "a", "a RUNNING 1", "DONE a 3", "IDLE"],
    ),
    Example(
        "waiting_counts_from_the_last_dependency_success",
        [
            "INIT 1 0",
            "SUBMIT a 5 4 1 0",  # runs 0..4
            "SUBMIT c 1 1 1 1 a",  # runnable only from t=4
            "TICK 2",
            "SUBMIT e 0 1 1 0",  # runnable since 2
            # t=4: DONE a; c eff 1 + (4-4) = 1, e eff 0 + (4-2) = 2 -> e
            # (had c aged from its submission it would have 1 + 4 = 5 and won)
            "TICK 5",
        ],
        [
            "OK a",
            "OK c",
            "START a 0",
            "OK e",
            "DONE a 4",
            "START e 4",
            "DONE e 5",
            "START c 5",
            "DONE c 6",
        ],
    ),
    Example(
        "waiting_counts_from_submission_when_dependencies_already_succeeded",
        [
            "INIT 1 0",
            "SUBMIT a 0 1 1 0",
            "TICK 5",  # a runs 0..1
            "SUBMIT x 9 3 1 0",
            "TICK 1",  # t=5: START x (ends 8)
            "SUBMIT c 0 1 1 1 a",  # a succeeded at 1, before this: runnable since the clock, 6
            "SUBMIT e 1 1 1 0",  # runnable since 6
            # t=8: DONE x; c eff 0 + (8-6) = 2, e eff 1 + (8-6) = 3 -> e
            # (had c aged from a's success at 1 it would have 7 and won)
            "TICK 4",
        ],
        [
            "OK a",
            "START a 0",
            "DONE a 1",
            "OK x",
            "START x 5",
            "OK c",
            "OK e",
            "DONE x 8",
            "START e 8",
            "DONE e 9",
            "START c 9",
        ],
    ),
    # ---- retries and backoff ---------------------------------------------------------------
    Example(
        "backoff_zero_retries_in_the_failure_tick",
        [
            "INIT 1 0",
            "SUBMIT a 0 2 3 0",
            "FAIL a 1",
            "TICK 5",  # t=2: attempt 1 fails; backoff 0 * 2^0 = 0 -> START again at 2; DONE 4
            "STATUS a",
        ],
        ["OK a", "START a 0", "FAILATTEMPT a 2 1", "START a 2", "DONE a 4", "a SUCCEEDED 2"],
    ),
    Example(
        "backoff_one_tick",
        [
            "INIT 1 1",
            "SUBMIT a 0 2 3 0",
            "FAIL a 1",
            "TICK 6",  # t=2: attempt 1 fails; backoff 1 * 2^0 = 1 -> eligible from 3; DONE 5
        ],
        ["OK a", "START a 0", "FAILATTEMPT a 2 1", "START a 3", "DONE a 5"],
    ),
    Example(
        "backoff_doubles_2_4_8",
        [
            "INIT 1 2",
            "SUBMIT a 0 1 4 0",
            "FAIL a 1",
            "FAIL a 2",
            "FAIL a 3",
            # fail t=1, wait 2*2^0 = 2 -> start 3; fail t=4, wait 2*2^1 = 4 -> start 8;
            # fail t=9, wait 2*2^2 = 8 -> start 17; attempt 4 succeeds at 18
            "TICK 30",
        ],
        [
            "OK a",
            "START a 0",
            "FAILATTEMPT a 1 1",
            "START a 3",
            "FAILATTEMPT a 4 2",
            "START a 8",
            "FAILATTEMPT a 9 3",
            "START a 17",
            "DONE a 18",
        ],
    ),
    Example(
        "aging_is_not_reset_by_a_failed_attempt",
        [
            "INIT 1 2",
            "SUBMIT a 0 3 2 0",  # runnable since 0
            "FAIL a 1",
            "TICK 5",  # attempt 1 runs 0..3 and fails; backoff 2 * 2^0 = 2 -> eligible from 5
            "SUBMIT c 4 1 1 0",  # runnable since 5
            # t=5: a eff 0 + 5 = 5 > c eff 4 + 0 = 4 -> a (a reset at the failure would give 2,
            # at the end of the backoff 0: c would win either way)
            "TICK 5",
        ],
        [
            "OK a",
            "START a 0",
            "FAILATTEMPT a 3 1",
            "OK c",
            "START a 5",
            "DONE a 8",
            "START c 8",
            "DONE c 9",
        ],
    ),
    Example(
        "other_jobs_run_during_a_backoff",
        [
            "INIT 100 3",
            "SUBMIT a 5 1 2 0",
            "SUBMIT b 0 2 1 0",
            "FAIL a 1",
            # t=0: a (5) before b (0); t=1: a fails, eligible from 1 + 3 = 4, so b starts at 1;
            # t=3: DONE b, a still in backoff: idle; t=4: START a; t=5: DONE a
            "TICK 6",
        ],
        [
            "OK a",
            "OK b",
            "START a 0",
            "FAILATTEMPT a 1 1",
            "START b 1",
            "DONE b 3",
            "START a 4",
            "DONE a 5",
        ],
    ),
    # ---- permanent failure and the cascade -------------------------------------------------
    Example(
        "single_attempt_failure_prints_failattempt_then_failed",
        ["INIT 1 0", "SUBMIT a 0 1 1 0", "FAIL a 1", "TICK 2", "STATUS a"],
        ["OK a", "START a 0", "FAILATTEMPT a 1 1", "FAILED a 1", "a FAILED 1"],
    ),
    Example(
        # f <- b, c, x (direct); b <- d, g; c <- h, d; x <- y; h <- y; d <- e; e <- x.
        # Level 1 (direct dependents of f, submission order): b(2) c(3) x(8).
        # Level 2 (not yet seen, submission order over the whole level): h(4) d(5) g(6) y(10).
        #   A queue walk grouped by parent would print d g h y instead: not what the rule says.
        # Level 3: e(7) (via d). x depends on e but was already cancelled at level 1.
        "cascade_is_breadth_first_by_level_in_submission_order",
        [
            "INIT 1 0",
            "SUBMIT f 5 2 2 0",
            "SUBMIT b 0 1 1 1 f",
            "SUBMIT c 0 1 1 1 f",
            "SUBMIT h 0 1 1 1 c",
            "SUBMIT d 0 1 1 2 b c",
            "SUBMIT g 0 1 1 1 b",
            "SUBMIT e 0 1 1 1 d",
            "SUBMIT x 0 1 1 2 e f",
            "SUBMIT z 0 1 1 0",
            "SUBMIT y 0 1 1 2 h x",
            "FAIL f 1",
            "FAIL f 2",
            # t=0: f eff 5 > z eff 0; t=2: attempt 1 fails, backoff 0; f eff 7 > z eff 2 -> f;
            # t=4: attempt 2 fails: FAILATTEMPT, FAILED, the cascade, then z starts at 4.
            "TICK 10",
            "STATUS f",
            "STATUS e",
            "STATUS z",
        ],
        [
            "OK f",
            "OK b",
            "OK c",
            "OK h",
            "OK d",
            "OK g",
            "OK e",
            "OK x",
            "OK z",
            "OK y",
            "START f 0",
            "FAILATTEMPT f 2 1",
            "START f 2",
            "FAILATTEMPT f 4 2",
            "FAILED f 4",
            "CANCEL b 4",
            "CANCEL c 4",
            "CANCEL x 4",
            "CANCEL h 4",
            "CANCEL d 4",
            "CANCEL g 4",
            "CANCEL y 4",
            "CANCEL e 4",
            "START z 4",
            "DONE z 5",
            "f FAILED 2",
            "e CANCELLED 0",
            "z SUCCEEDED 1",
        ],
    ),
    Example(
        "a_job_is_cancelled_once",
        [
            "INIT 1 0",
            "SUBMIT p 2 1 1 0",
            "SUBMIT q 1 1 1 0",
            "SUBMIT j 0 1 1 2 p q",
            "FAIL p 1",
            "FAIL q 1",
            # t=0: p (2) > q (1); t=1: p fails for good, j cancelled; q (eff 1 + 1) starts;
            # t=2: q fails for good; j is already CANCELLED: no second CANCEL line.
            "TICK 5",
        ],
        [
            "OK p",
            "OK q",
            "OK j",
            "START p 0",
            "FAILATTEMPT p 1 1",
            "FAILED p 1",
            "CANCEL j 1",
            "START q 1",
            "FAILATTEMPT q 2 1",
            "FAILED q 2",
        ],
    ),
    Example(
        "submitting_after_a_failure_prints_only_ok_and_stays_pending",
        [
            "INIT 1 0",
            "SUBMIT p 0 1 1 0",
            "SUBMIT ok 0 1 1 0",
            "FAIL p 1",
            "TICK 5",  # p: START 0, fails for good at 1; ok: START 1, DONE 2; clock 5
            "SUBMIT k 0 1 1 2 ok p",  # a FAILED dependency: OK only; k is never runnable
            "SUBMIT m 0 1 1 1 k",  # depends on a job that can never run: OK only
            "STATUS k",
            "TICK 3",  # nothing can run, nothing is cancelled
            "STATUS m",
            "RUNNING",
        ],
        [
            "OK p",
            "OK ok",
            "START p 0",
            "FAILATTEMPT p 1 1",
            "FAILED p 1",
            "START ok 1",
            "DONE ok 2",
            "OK k",
            "OK m",
            "k PENDING 0",
            "m PENDING 0",
            "IDLE",
        ],
    ),
    Example(
        "a_job_stuck_behind_a_failed_dependency_is_cancelled_by_a_later_failure",
        [
            "INIT 1 0",
            "SUBMIT p 0 1 1 0",
            "FAIL p 1",
            "TICK 2",  # p fails for good at 1
            "SUBMIT q 0 3 1 0",
            "FAIL q 1",
            "SUBMIT k 0 1 1 2 p q",  # OK only: p has failed, q has not yet
            "SUBMIT m 0 1 1 1 k",
            "SUBMIT n 0 1 1 1 q",
            "TICK 10",  # q: START 2, fails for good at 5: its cascade cancels k and n, then m
            "STATUS k",
            "STATUS m",
        ],
        [
            "OK p",
            "START p 0",
            "FAILATTEMPT p 1 1",
            "FAILED p 1",
            "OK q",
            "OK k",
            "OK m",
            "OK n",
            "START q 2",
            "FAILATTEMPT q 5 1",
            "FAILED q 5",
            "CANCEL k 5",
            "CANCEL n 5",
            "CANCEL m 5",
            "k CANCELLED 0",
            "m CANCELLED 0",
        ],
    ),
    # ---- FAIL ------------------------------------------------------------------------------
    Example(
        "fail_before_submit_applies",
        [
            "INIT 1 0",
            "FAIL a 1",  # a does not exist yet
            "SUBMIT a 0 1 2 0",
            "TICK 3",  # t=1: attempt 1 fails, backoff 0, START again; t=2: DONE
        ],
        ["OK a", "START a 0", "FAILATTEMPT a 1 1", "START a 1", "DONE a 2"],
    ),
    Example(
        "fail_while_the_attempt_runs_applies",
        [
            "INIT 1 0",
            "SUBMIT a 0 3 1 0",
            "TICK 2",  # attempt 1 runs 0..3
            "FAIL a 1",  # decided at completion, so it still applies
            "TICK 2",
        ],
        ["OK a", "START a 0", "FAILATTEMPT a 3 1", "FAILED a 3"],
    ),
    Example(
        "fail_naming_a_past_or_impossible_attempt_changes_nothing",
        [
            "INIT 1 0",
            "SUBMIT a 0 1 2 0",
            "TICK 2",  # attempt 1 runs 0..1 and succeeds
            "FAIL a 1",  # that attempt is over: no effect, no output, not an error
            "FAIL a 3",  # a has at most 2 attempts: never used, not an error
            "STATUS a",
        ],
        ["OK a", "START a 0", "DONE a 1", "a SUCCEEDED 1"],
    ),
    # ---- SUBMIT answers --------------------------------------------------------------------
    Example(
        "baddep_adds_nothing",
        [
            "INIT 1 0",
            "SUBMIT a 0 1 1 0",
            "SUBMIT b 0 1 1 2 a zz",  # zz was never submitted
            "STATUS b",
            "SUBMIT c 0 1 1 1 b",  # b was not added
            "SUBMIT b 0 1 1 1 a",  # so b can be submitted now
            "SUBMIT s 0 1 1 1 s",  # a job cannot depend on itself: s is not submitted yet
            "TICK 3",  # t=0: a; t=1: DONE a, b starts; t=2: DONE b
        ],
        [
            "OK a",
            "BADDEP b",
            "b UNKNOWN 0",
            "BADDEP c",
            "OK b",
            "BADDEP s",
            "START a 0",
            "DONE a 1",
            "START b 1",
            "DONE b 2",
        ],
    ),
    Example(
        "duplicate_submit_is_an_error_never_baddep",
        [
            "INIT 1 0",
            "SUBMIT a 0 1 1 0",
            "SUBMIT a 5 9 1 1 zz",  # line 3: duplicate, checked before zz: error, no BADDEP
            "STATUS a",  # unchanged
            "TICK 2",  # duration is still 1
            "SUBMIT a 0 1 1 0",  # line 6: still a duplicate once a has finished
        ],
        ["OK a", "a PENDING 0", "START a 0", "DONE a 1"],
        errors=[3, 6],
    ),
    # ---- STATUS and RUNNING ----------------------------------------------------------------
    Example(
        "status_in_every_state",
        [
            "INIT 100 2",
            "SUBMIT a 5 2 2 0",
            "SUBMIT b 0 1 1 1 a",
            "FAIL a 1",
            "STATUS a",  # waiting for its first attempt
            "STATUS b",  # waiting for a dependency
            "STATUS nope",
            "RUNNING",
            "TICK 3",  # t=0: START a; t=2: attempt 1 fails, backoff 2 * 2^0 = 2 -> from 4
            "STATUS a",  # in backoff
            "STATUS b",
            "RUNNING",
            "TICK 4",  # t=4: START a; t=6: DONE a, START b
            "STATUS a",
            "RUNNING",
            "TICK 1",  # t=7: DONE b
            "STATUS b",
            "SUBMIT c 0 1 1 0",
            "SUBMIT d 0 1 1 1 c",
            "FAIL c 1",
            "TICK 2",  # t=8: START c; t=9: c fails for good, d cancelled
            "STATUS c",
            "STATUS d",
            "RUNNING",
        ],
        [
            "OK a",
            "OK b",
            "a PENDING 0",
            "b PENDING 0",
            "nope UNKNOWN 0",
            "IDLE",
            "START a 0",
            "FAILATTEMPT a 2 1",
            "a PENDING 1",
            "b PENDING 0",
            "IDLE",
            "START a 4",
            "DONE a 6",
            "START b 6",
            "a SUCCEEDED 2",
            "b",
            "DONE b 7",
            "b SUCCEEDED 1",
            "OK c",
            "OK d",
            "START c 8",
            "FAILATTEMPT c 9 1",
            "FAILED c 9",
            "CANCEL d 9",
            "c FAILED 1",
            "d CANCELLED 0",
            "IDLE",
        ],
    ),
    Example(
        # attemptsUsed counts the running attempt: the same count FAILATTEMPT would print.
        "status_of_a_running_job_counts_its_attempt",
        [
            "INIT 1 0",
            "SUBMIT a 0 2 3 0",
            "FAIL a 1",
            "TICK 1",
            "STATUS a",  # attempt 1 running
            "TICK 2",  # t=2: attempt 1 fails, attempt 2 starts at once (backoff 0)
            "STATUS a",
        ],
        ["OK a", "START a 0", "a RUNNING 1", "FAILATTEMPT a 2 1", "START a 2", "a RUNNING 2"],
    ),
    # ---- TICK ------------------------------------------------------------------------------
    Example(
        "tick_zero_does_nothing",
        [
            "INIT 1 0",
            "SUBMIT a 0 1 1 0",
            "TICK 0",
            "RUNNING",
            "STATUS a",
            "TICK 1",  # the clock is still 0
        ],
        ["OK a", "IDLE", "a PENDING 0", "START a 0"],
    ),
    Example(
        "huge_tick_advances_the_clock",
        [
            "INIT 1 0",
            "SUBMIT a 0 3 1 0",
            f"TICK {BIG}",  # a runs 0..3; then idle until the clock reaches 10^12
            "SUBMIT b 0 2 1 1 a",  # runnable since 10^12
            "SUBMIT c 0 5 1 0",
            f"TICK {BIG}",  # b: START 10^12, DONE 10^12+2; c: START 10^12+2, DONE 10^12+7
            "STATUS b",
            "SUBMIT long 0 1000000000000 1 0",
            f"TICK {BIG}",  # long starts at 2*10^12 and ends at 3*10^12: not processed yet
            "RUNNING",
            "TICK 1",
        ],
        [
            "OK a",
            "START a 0",
            "DONE a 3",
            "OK b",
            "OK c",
            f"START b {BIG}",
            f"DONE b {BIG + 2}",
            f"START c {BIG + 2}",
            f"DONE c {BIG + 7}",
            "b SUCCEEDED 1",
            "OK long",
            f"START long {2 * BIG}",
            "long",
            f"DONE long {3 * BIG}",
        ],
    ),
    # ---- INIT, blank lines and errors ------------------------------------------------------
    Example(
        "clean_script",
        ["INIT 1 0", "SUBMIT a 0 1 1 0", "TICK 1"],
        ["OK a", "START a 0"],
    ),
    Example(
        "blank_lines_are_ignored_but_counted",
        ["", "INIT 1 0", "", "   ", "SUBMIT a 0 1 1 0", "", "TICK x", "TICK 2"],
        ["OK a", "START a 0", "DONE a 1"],
        errors=[7],
    ),
    Example(
        "init_missing_rejects_every_command",
        ["SUBMIT a 0 1 1 0", "TICK 1", "STATUS a", "", "RUNNING", "FAIL a 1"],
        [],
        errors=[1, 2, 3, 5, 6],
    ),
    Example(
        # Only a valid INIT counts; lines before it are errors; the first valid one is accepted.
        "invalid_init_then_a_valid_one",
        [
            "INIT 0 0",  # AGING_STEP below 1
            "SUBMIT a 0 1 1 0",  # INIT missing
            "INIT 1 -1",  # BACKOFF_BASE below 0
            "INIT 1",
            "INIT 1 0 0",
            "INIT x 0",
            "INIT 1 0",
            "SUBMIT a 0 1 1 0",
            "TICK 2",
        ],
        ["OK a", "START a 0", "DONE a 1"],
        errors=[1, 2, 3, 4, 5, 6],
    ),
    Example(
        "repeated_init_is_an_error_and_changes_nothing",
        [
            "INIT 1 5",
            "INIT 1 0",  # error: BACKOFF_BASE stays 5
            "SUBMIT a 0 1 2 0",
            "FAIL a 1",
            "TICK 10",  # t=1: attempt 1 fails, backoff 5 * 2^0 = 5 -> START 6, DONE 7
        ],
        ["OK a", "START a 0", "FAILATTEMPT a 1 1", "START a 6", "DONE a 7"],
        errors=[2],
    ),
]

# Lines that must be rejected. Each is put at line 3 of BAD_LINE_SCRIPT; the rest of the script
# shows that nothing was printed, nothing changed (b never exists, a's single attempt succeeds,
# the clock is 2 before z is submitted) and that processing went on.
BAD_LINES = {
    "unknown_command": "FROB a",
    "tick_missing_field": "TICK",
    "tick_not_an_integer": "TICK two",
    "tick_decimal": "TICK 1.5",
    "tick_extra_field": "TICK 1 2",
    "tick_negative": "TICK -1",
    "running_extra_field": "RUNNING now",
    "status_missing_field": "STATUS",
    "status_extra_field": "STATUS a b",
    "fail_missing_field": "FAIL a",
    "fail_not_an_integer": "FAIL a x",
    "fail_extra_field": "FAIL a 1 2",
    "fail_attempt_zero": "FAIL a 0",  # attempts are numbered from 1
    "submit_no_fields": "SUBMIT",
    "submit_missing_depcount": "SUBMIT b 0 1 1",
    "submit_priority_not_an_integer": "SUBMIT b x 1 1 0",
    "submit_duration_not_an_integer": "SUBMIT b 0 1.0 1 0",
    "submit_depcount_not_an_integer": "SUBMIT b 0 1 1 one a",
    "submit_depcount_too_high": "SUBMIT b 0 1 1 1",
    "submit_depcount_too_low": "SUBMIT b 0 1 1 0 a",
    "submit_depcount_negative": "SUBMIT b 0 1 1 -1",
    "submit_duration_zero": "SUBMIT b 0 0 1 0",
    "submit_duration_negative": "SUBMIT b 0 -2 1 0",
    "submit_max_attempts_zero": "SUBMIT b 0 1 0 0",
    "submit_duplicate_id": "SUBMIT a 9 5 1 0",
    "init_repeated": "INIT 1 0",
    # More digits than int reads (4,300): an error, not a ValueError.
    "submit_priority_too_many_digits": "SUBMIT b " + "9" * 5000 + " 1 1 0",
    "tick_too_many_digits": "TICK " + "9" * 5000,
    "fail_attempt_too_many_digits": "FAIL a -" + "9" * 5000,
}
BAD_LINE_SCRIPT = [
    "INIT 1 0",
    "SUBMIT a 0 1 1 0",
    None,  # the bad line
    "TICK 2",
    "STATUS a",
    "STATUS b",
    "SUBMIT z 0 1 1 0",
    "TICK 1",
]
BAD_LINE_OUTPUT = [
    "OK a",
    "START a 0",
    "DONE a 1",
    "a SUCCEEDED 1",
    "b UNKNOWN 0",
    "OK z",
    "START z 2",
]


def _with_bad_line(bad: str) -> list[str]:
    return [bad if line is None else line for line in BAD_LINE_SCRIPT]


def _error_numbers(errors: list[str]) -> list[int]:
    numbers = []
    for error in errors:
        match = re.match(r"line (\d+): ", error)
        assert match, f"error entry does not start with 'line N: ': {error!r}"
        numbers.append(int(match.group(1)))
    return numbers


def _by_name(examples: list[Example]):
    return pytest.mark.parametrize("example", examples, ids=[e.name for e in examples])


# ---- the engine against the hand-checked examples ------------------------------------------


@_by_name(EXAMPLES)
def test_engine_matches_example(example: Example) -> None:
    result = execute_script(example.script)
    assert result.output == example.output
    assert _error_numbers(result.errors) == example.errors
    assert result.exit_code == (1 if example.errors else 0)


@_by_name(EXAMPLES)
def test_run_script_returns_the_output_lines(example: Example) -> None:
    assert run_script(example.script) == example.output


@_by_name(EXAMPLES)
def test_model_matches_example(example: Example) -> None:
    # Keeps the reference model used by test_script_vs_model.py honest.
    assert model_run(example.script) == (example.output, example.errors)


@pytest.mark.parametrize("bad", list(BAD_LINES.values()), ids=list(BAD_LINES))
def test_rejected_line_prints_nothing_and_changes_nothing(bad: str) -> None:
    result = execute_script(_with_bad_line(bad))
    assert result.output == BAD_LINE_OUTPUT
    assert _error_numbers(result.errors) == [3]
    assert result.exit_code == 1


def test_a_number_too_long_to_read_says_so() -> None:
    result = execute_script(["INIT 1 0", "SUBMIT b 0 1 1 " + "9" * 5000])
    assert result.errors == ["line 2: depCount has 5000 digits: at most 4300 are read"]


@pytest.mark.parametrize("bad", list(BAD_LINES.values()), ids=list(BAD_LINES))
def test_model_rejects_bad_line(bad: str) -> None:
    assert model_run(_with_bad_line(bad)) == (BAD_LINE_OUTPUT, [3])


def test_script_without_the_bad_line_is_clean() -> None:
    script = [line for line in BAD_LINE_SCRIPT if line is not None]
    result = execute_script(script)
    assert result.output == BAD_LINE_OUTPUT
    assert result.errors == []
    assert result.exit_code == 0


def test_lines_may_end_with_a_newline() -> None:
    # What iterating over an open file yields.
    script = ["INIT 1 0\n", "SUBMIT a 0 1 1 0\n", "\n", "TICK 2\n"]
    result = execute_script(script)
    assert result.output == ["OK a", "START a 0", "DONE a 1"]
    assert result.exit_code == 0


def test_same_script_same_result() -> None:
    example = next(e for e in EXAMPLES if e.name.startswith("cascade_is_breadth_first"))
    first = execute_script(example.script)
    second = execute_script(example.script)
    assert (first.output, first.errors, first.exit_code) == (
        second.output,
        second.errors,
        second.exit_code,
    )


# ---- the command line ----------------------------------------------------------------------

CLI_SCRIPT = [
    "INIT 1 0",
    "SUBMIT a 2 1 1 0",
    "SUBMIT b 0 1 1 1 a",
    "TICK x",  # line 4: rejected
    "FAIL a 1",
    "TICK 3",
    "BOGUS",  # line 7: rejected
    "STATUS b",
]
CLI_OUTPUT = ["OK a", "OK b", "START a 0", "FAILATTEMPT a 1 1", "FAILED a 1", "CANCEL b 1"]
CLI_OUTPUT += ["b CANCELLED 0"]


def _cli(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # Run from the checkout, so `-m cronlapse` is this checkout's engine even if not installed.
    return subprocess.run(
        [sys.executable, "-m", "cronlapse", "script", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )


def test_model_matches_cli_script() -> None:
    assert model_run(CLI_SCRIPT) == (CLI_OUTPUT, [4, 7])


@pytest.mark.e2e
def test_cli_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "script.txt"
    path.write_text("\n".join(CLI_SCRIPT) + "\n")
    proc = _cli([str(path)])
    assert proc.stdout.splitlines() == CLI_OUTPUT
    assert _error_numbers(proc.stderr.splitlines()) == [4, 7]
    assert proc.returncode == 1


@pytest.mark.e2e
def test_cli_reads_stdin() -> None:
    proc = _cli(["-"], stdin="\n".join(CLI_SCRIPT) + "\n")
    assert proc.stdout.splitlines() == CLI_OUTPUT
    assert _error_numbers(proc.stderr.splitlines()) == [4, 7]
    assert proc.returncode == 1


@pytest.mark.e2e
def test_cli_clean_script_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "clean.txt"
    path.write_text("INIT 1 0\nSUBMIT a 0 1 1 0\n\nTICK 2\nRUNNING\n")
    proc = _cli([str(path)])
    assert proc.stdout.splitlines() == ["OK a", "START a 0", "DONE a 1", "IDLE"]
    assert proc.stderr == ""
    assert proc.returncode == 0
    proc = _cli(["-"], stdin=path.read_text())
    assert proc.stdout.splitlines() == ["OK a", "START a 0", "DONE a 1", "IDLE"]
    assert proc.returncode == 0


def test_a_rejected_line_is_a_problem_at_its_line() -> None:
    """The protocol prints ``line N: ...``; a front end gets the line as a number, not a text to
    parse back (the dashboard points at it, ``run`` names it ``FILE:N:1``)."""
    result = execute_script(["INIT 2 3", "SUBMIT A 1 x 1 0", "TICK 1", "JUMP"])
    assert [(p.line, p.column, p.message) for p in result.problems] == [
        (2, 1, "duration must be an integer, got 'x'"),
        (4, 1, "unknown command 'JUMP'"),
    ]
    assert result.errors == [
        "line 2: duration must be an integer, got 'x'",
        "line 4: unknown command 'JUMP'",
    ]


def test_a_submit_at_the_engines_limits_is_accepted_and_one_beyond_them_refused() -> None:
    """SUBMIT compares its numbers with the limits itself and, within them, has the engine skip
    its own check of them: each limit is met exactly, and one past it is the engine's message."""
    low, high, longest, most = -(2**31), 2**31 - 1, 10**12, 1001
    result = execute_script(
        [
            "INIT 1 0",
            f"SUBMIT low {low} 1 1 0",
            f"SUBMIT high {high} {longest} {most} 0",
            f"SUBMIT below {low - 1} 1 1 0",
            f"SUBMIT above {high + 1} 1 1 0",
            f"SUBMIT long 0 {longest + 1} 1 0",
            f"SUBMIT many 0 1 {most + 1} 0",
            f"FAIL late {most + 1}",
            "SUBMIT late 0 1 1 0",
            f"FAIL last {most}",
            "SUBMIT last 0 1 1 0",
        ]
    )
    assert result.output == ["OK low", "OK high", "OK last"]
    assert [(problem.line, problem.message.split(":")[0]) for problem in result.problems] == [
        (4, "priority"),
        (5, "priority"),
        (6, "duration"),
        (7, "max_attempts"),
        (9, "fail_attempts"),
    ]
