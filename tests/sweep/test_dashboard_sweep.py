"""``:sweep`` in the dashboard, the model: the open scenario's sweep played in the background."""

from __future__ import annotations

from pathlib import Path

import pytest
from sweep_helpers import longest_wait, write_queue

from tui.model.sweep_run import SweepProblem, SweepRun


@pytest.mark.e2e
def test_a_sweep_plays_in_the_background_and_answers_the_target(tmp_path: Path) -> None:
    run = SweepRun(
        write_queue(tmp_path), ["workers=1..6", "metric=max_wait", "target=max_wait<=20"]
    )
    run.start()
    run.join(timeout=120)
    state = run.snapshot()
    assert state.finished and (state.done, state.total) == (6, 6)
    assert [row.estimates[0].mean for row in state.rows] == [
        float(longest_wait(w)) for w in range(1, 7)
    ]
    assert state.answer is not None and state.answer.variant.label() == "workers=4"


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ([], "vary something"),
        (["workers=0"], "workers: 0 is not a whole number of at least 1"),
        (["polcy.order=fifo"], "closest valid path: policy.order"),
        (["workers=2", "metric=p97_wait"], "unknown metric 'p97_wait'"),
        (["workers=2", "replicas=0"], "replicas=0: expected a whole number from 1 to 100"),
    ],
)
def test_a_sweep_that_cannot_start_says_why(tmp_path: Path, words: list[str], message: str) -> None:
    with pytest.raises(SweepProblem) as raised:
        SweepRun(write_queue(tmp_path), words)
    assert message in str(raised.value)
