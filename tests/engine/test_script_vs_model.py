"""Random small scripts: the engine's script facade against the reference model.

The scripts use a handful of ids (so duplicates, BADDEP and FAIL-before-SUBMIT happen often),
small priorities, durations, attempt counts and backoff bases, dependencies mostly on ids submitted
earlier, FAIL lines for attempts 1..3, TICKs of 0, small steps, 1000 and 10^9, STATUS and RUNNING,
blank lines and a sample of lines that must be rejected. Failures shrink to a script to paste into
``test_script_protocol.py``.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_model import model_run

from engine import run_script
from engine.facades.script import execute_script

IDS = ["a", "b", "c", "d", "e", "f", "g", "h"]
TICKS = [0, 1, 1, 1, 2, 2, 3, 4, 5, 8, 1000, 10**9]
# Lines that must be rejected whatever the state (INIT has already been given).
INVALID = [
    "FROB",
    "TICK",
    "TICK -1",
    "TICK 1 2",
    "TICK x",
    "RUNNING 1",
    "STATUS",
    "STATUS a b",
    "FAIL a",
    "FAIL a x",
    "SUBMIT a 1 0 1 0",
    "SUBMIT b 1 1 0 0",
    "SUBMIT c 1 1 1 1",
    "SUBMIT d 1 1 1 0 a",
    "SUBMIT e x 1 1 0",
    "INIT 1 0",
]


@st.composite
def scripts(draw: st.DrawFn) -> list[str]:
    lines = [""] * draw(st.integers(0, 1))
    lines.append(f"INIT {draw(st.integers(1, 4))} {draw(st.integers(0, 3))}")
    submitted: list[str] = []
    kinds = ["SUBMIT"] * 5 + ["FAIL"] * 2 + ["TICK"] * 3 + ["STATUS", "RUNNING", "BLANK", "BAD"]
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(kinds))
        if kind == "SUBMIT":
            fresh = [job_id for job_id in IDS if job_id not in submitted]
            # Mostly a new id; sometimes any id, which may be a duplicate (an error).
            job_id = draw(st.sampled_from(fresh if fresh and draw(st.integers(0, 9)) else IDS))
            # Mostly ids submitted earlier; sometimes any id, which may give BADDEP.
            pool = submitted if draw(st.integers(0, 9)) else [*IDS, "zz"]
            deps = draw(st.lists(st.sampled_from(pool), unique=True, max_size=3)) if pool else []
            priority, duration = draw(st.integers(0, 5)), draw(st.integers(1, 4))
            attempts = draw(st.integers(1, 3))
            fields = [job_id, priority, duration, attempts, len(deps), *deps]
            lines.append(" ".join(["SUBMIT", *map(str, fields)]))
            if job_id not in submitted:
                submitted.append(job_id)
            # Script failures right away, sometimes of every attempt (a permanent failure).
            for attempt in range(1, attempts + 1):
                if draw(st.integers(0, 2)) == 0:
                    lines.append(f"FAIL {job_id} {attempt}")
        elif kind == "FAIL":
            lines.append(f"FAIL {draw(st.sampled_from(IDS))} {draw(st.integers(1, 3))}")
        elif kind == "TICK":
            lines.append(f"TICK {draw(st.sampled_from(TICKS))}")
        elif kind == "STATUS":
            pool = submitted if submitted and draw(st.integers(0, 3)) else [*IDS, "zz"]
            lines.append(f"STATUS {draw(st.sampled_from(pool))}")
        elif kind == "RUNNING":
            lines.append("RUNNING")
        elif kind == "BLANK":
            lines.append("")
        else:
            lines.append(draw(st.sampled_from(INVALID)))
    return lines


@st.composite
def dependency_graphs(draw: st.DrawFn) -> list[str]:
    """Many valid jobs, most with dependencies, some failing for good: deep, crossing cascades."""
    lines = [f"INIT {draw(st.integers(1, 3))} {draw(st.integers(0, 2))}"]
    ids: list[str] = []
    for i in range(draw(st.integers(2, 16))):
        job_id = f"j{i}"
        deps: list[str] = []
        if ids and draw(st.integers(0, 4)):
            deps = draw(st.lists(st.sampled_from(ids), unique=True, min_size=1, max_size=2))
        priority, duration = draw(st.integers(0, 3)), draw(st.integers(1, 3))
        attempts = draw(st.integers(1, 2))
        fields = [job_id, priority, duration, attempts, len(deps), *deps]
        lines.append(" ".join(["SUBMIT", *map(str, fields)]))
        ids.append(job_id)
        if draw(st.integers(0, 1 if i < 3 else 5)) == 0:  # early jobs have more dependents
            lines.extend(f"FAIL {job_id} {attempt}" for attempt in range(1, attempts + 1))
        if draw(st.integers(0, 7)) == 0:
            lines.append(f"TICK {draw(st.integers(0, 6))}")
    lines.append("TICK 1000")
    lines.extend(f"STATUS {job_id}" for job_id in ids)
    return lines


def _error_numbers(errors: list[str]) -> list[int]:
    numbers = []
    for error in errors:
        match = re.match(r"line (\d+): ", error)
        assert match, f"error entry does not start with 'line N: ': {error!r}"
        numbers.append(int(match.group(1)))
    return numbers


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_engine_agrees_with_model(script: list[str]) -> None:
    expected_output, expected_errors = model_run(script)
    result = execute_script(script)
    assert result.output == expected_output
    numbers = _error_numbers(result.errors)
    assert set(numbers) == set(expected_errors)
    assert numbers == sorted(numbers)  # reported in input order
    assert result.exit_code == (1 if expected_errors else 0)


@settings(max_examples=100, deadline=None)
@given(scripts())
def test_same_script_same_result(script: list[str]) -> None:
    first = execute_script(script)
    second = execute_script(script)
    assert (first.output, first.errors, first.exit_code) == (
        second.output,
        second.errors,
        second.exit_code,
    )
    assert run_script(script) == first.output


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dependency_graphs())
def test_cascades_agree_with_model(script: list[str]) -> None:
    expected_output, expected_errors = model_run(script)
    assert expected_errors == []
    result = execute_script(script)
    assert result.output == expected_output
    assert result.errors == []
