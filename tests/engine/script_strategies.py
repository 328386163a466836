"""Random seed 001 scripts for property tests.

The scripts use a handful of ids (so duplicates, BADDEP and FAIL-before-SUBMIT happen often),
small priorities, durations, attempt counts and backoff bases, dependencies mostly on ids submitted
earlier, FAIL lines for attempts 1..3, TICKs of 0, small steps, 1000 and 10^9, STATUS and RUNNING,
blank lines and a sample of lines that must be rejected.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from hypothesis import strategies as st

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


class Chooser(Protocol):
    """Where a script's random choices come from: hypothesis (which shrinks) or a seeded
    ``random.Random`` (which is fast enough for thousands of scripts)."""

    def integer(self, low: int, high: int) -> int: ...

    def one_of(self, items: Sequence[str]) -> str: ...


class _Drawing:
    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))

    def one_of(self, items: Sequence[str]) -> str:
        return self._draw(st.sampled_from(items))


class SeededChooser:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)

    def one_of(self, items: Sequence[str]) -> str:
        return self._random.choice(items)


def random_script(choose: Chooser) -> list[str]:
    """A script of up to 30 lines after INIT."""
    lines = [""] * choose.integer(0, 1)
    lines.append(f"INIT {choose.integer(1, 4)} {choose.integer(0, 3)}")
    submitted: list[str] = []
    kinds = ["SUBMIT"] * 5 + ["FAIL"] * 2 + ["TICK"] * 3 + ["STATUS", "RUNNING", "BLANK", "BAD"]
    for _ in range(choose.integer(0, 30)):
        kind = choose.one_of(kinds)
        if kind == "SUBMIT":
            fresh = [job_id for job_id in IDS if job_id not in submitted]
            # Mostly a new id; sometimes any id, which may be a duplicate (an error).
            job_id = choose.one_of(fresh if fresh and choose.integer(0, 9) else IDS)
            # Mostly ids submitted earlier; sometimes any id, which may give BADDEP.
            pool = submitted if choose.integer(0, 9) else [*IDS, "zz"]
            count = choose.integer(0, 3) if pool else 0
            deps = list(dict.fromkeys(choose.one_of(pool) for _ in range(count)))
            priority, duration = choose.integer(0, 5), choose.integer(1, 4)
            attempts = choose.integer(1, 3)
            fields = [job_id, priority, duration, attempts, len(deps), *deps]
            lines.append(" ".join(["SUBMIT", *map(str, fields)]))
            if job_id not in submitted:
                submitted.append(job_id)
            # Script failures right away, sometimes of every attempt (a permanent failure).
            for attempt in range(1, attempts + 1):
                if choose.integer(0, 2) == 0:
                    lines.append(f"FAIL {job_id} {attempt}")
        elif kind == "FAIL":
            lines.append(f"FAIL {choose.one_of(IDS)} {choose.integer(1, 3)}")
        elif kind == "TICK":
            lines.append(f"TICK {TICKS[choose.integer(0, len(TICKS) - 1)]}")
        elif kind == "STATUS":
            pool = submitted if submitted and choose.integer(0, 3) else [*IDS, "zz"]
            lines.append(f"STATUS {choose.one_of(pool)}")
        elif kind == "RUNNING":
            lines.append("RUNNING")
        elif kind == "BLANK":
            lines.append("")
        else:
            lines.append(choose.one_of(INVALID))
    return lines


@st.composite
def scripts(draw: st.DrawFn) -> list[str]:
    return random_script(_Drawing(draw))


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
