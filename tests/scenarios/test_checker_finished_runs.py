"""The checker's set of finished runs (:mod:`cronlapse.analyses.invariants.finished`) holds
exactly the keys added, in any order, and costs a few progressions a job when runs finish in
the order they were due."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cronlapse.analyses.invariants.finished import FinishedRuns


@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 60)), max_size=60))
def test_it_holds_exactly_the_runs_added_in_any_order(keys: list[tuple[str, int]]) -> None:
    finished = FinishedRuns()
    for key in keys:
        finished.add(*key)
    assert len(finished) == len(set(keys))
    for job_id in "ab":
        for tick in range(-1, 62):
            assert finished.holds(job_id, tick) == ((job_id, tick) in set(keys))


def test_runs_finishing_in_their_order_cost_one_progression_a_job() -> None:
    finished = FinishedRuns()
    for tick in range(0, 1_000_000, 5):
        finished.add("job", tick)
    finished.add("job", 2)  # out of order, inside the progression: split around it
    progressions = finished._jobs["job"]
    assert len(progressions.starts) == 2  # and the open one
    assert finished.holds("job", 2) and finished.holds("job", 995)
    assert not finished.holds("job", 996)
