"""Comparing two futures: runs moved, dropped and added; latency change; thresholds and exits."""

from __future__ import annotations

from pathlib import Path

import pytest

from cronlapse.analyses.compare.futures import Threshold, compare, parse_threshold
from cronlapse.cli.main import main
from engine.model.commands import RegisterWorker, WorkerDown
from engine.play.history import History
from engine.scenario import ScenarioRunner
from tests.engine.explain_helpers import SCENARIOS, inline
from tests.engine.state_fingerprint import state_fingerprint

DST = SCENARIOS / "nightly-etl-dst.yaml"
BASE = """
scenario: base
clock: {until: 30}
policy: {order: priority}
workers: [w1]
jobs:
  - {id: a, duration: 5, priority: 3}
  - {id: b, duration: 5, priority: 2}
  - {id: c, at: 2, duration: 5, priority: 1}
"""


def _engine(text: str):
    runner = ScenarioRunner(inline(text))
    runner.run()
    return runner.engine


def _two_workers(text: str) -> str:
    return text.replace("workers: [w1]", "workers: [w1, w2]")


def test_one_more_worker_moves_runs_earlier_by_the_ticks_they_no_longer_wait() -> None:
    comparison = compare(_engine(BASE), _engine(_two_workers(BASE)))
    moved = {(m.job_id, m.scheduled): (m.before, m.after, m.by) for m in comparison.moved}
    assert moved == {("b", 0): (5, 0, -5), ("c", 2): (10, 5, -5)}
    assert comparison.dropped == comparison.added == ()
    assert comparison.change("p95_wait") == (8, 3)


def test_the_same_future_twice_moves_nothing() -> None:
    comparison = compare(_engine(BASE), _engine(BASE))
    assert (comparison.moved, comparison.dropped, comparison.added) == ((), (), ())
    assert comparison.before.metrics() == comparison.after.metrics()


def test_runs_only_one_future_started_are_dropped_or_added() -> None:
    cancelled = BASE + "timeline:\n  - {at: 1, cancel: {job: c, scheduled: 2}}\n"
    extra = BASE.replace("jobs:\n", "jobs:\n  - {id: d, at: 20, duration: 1}\n")
    assert compare(_engine(BASE), _engine(cancelled)).dropped == (("c", 2),)
    assert compare(_engine(BASE), _engine(extra)).added == (("d", 20),)


@pytest.mark.parametrize(
    ("limit", "before", "after", "crossed"),
    [
        ("10%", 100, 110, False),
        ("10%", 100, 111, True),
        ("10%", 0, 1, True),
        ("10%", 50, 0, False),
        ("30", 100, 130, False),
        ("30", 100, 131, True),
    ],
)
def test_a_threshold_is_crossed_only_beyond_its_limit(
    limit: str, before: int, after: int, crossed: bool
) -> None:
    threshold = parse_threshold("p95_wait", limit)

    class Fake:
        def change(self, figure: str):
            return before, after

    assert (threshold.crossed(Fake()) is not None) is crossed  # type: ignore[arg-type]


def test_a_threshold_that_does_not_read_says_what_would() -> None:
    with pytest.raises(ValueError, match="expected a percentage such as 10%"):
        parse_threshold("p95_wait", "ten")
    with pytest.raises(ValueError, match="no figure 'p99_wait'"):
        parse_threshold("p99_wait", "10%")
    assert str(Threshold("max_lag", 30, False)) == "max_lag may grow by 30 ticks"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text(BASE)
    two.write_text(_two_workers(BASE))
    return str(one), str(two)


def test_compare_exits_1_when_a_threshold_is_crossed(files, capsys) -> None:
    one, two = files
    assert main(["compare", one, two, "--max-p95-wait-increase", "10%"]) == 0
    out = capsys.readouterr().out
    assert "2 run(s) moved, 0 dropped, 0 added" in out
    assert "ok: p95_wait may grow by 10%" in out
    assert main(["compare", two, one, "--max-p95-wait-increase", "10%"]) == 1
    assert "CROSSED: p95_wait grew from 3 to 8 (166.7%), over 10%" in capsys.readouterr().out
    assert main(["compare", two, one, "--max-max-lag-increase", "0"]) == 0


def test_compare_exits_2_for_a_bad_limit_or_file(files, capsys) -> None:
    one, two = files
    assert main(["compare", one, two, "--max-p95-wait-increase", "lots"]) == 2
    assert "--max-p95-wait-increase: expected a percentage" in capsys.readouterr().err
    assert main(["compare", one, "missing.yaml"]) == 2
    assert "missing.yaml" in capsys.readouterr().err


def test_compare_reads_the_bundled_dst_scenario(capsys) -> None:
    assert main(["compare", str(DST), str(DST)]) == 0
    assert "0 run(s) moved, 0 dropped, 0 added" in capsys.readouterr().out


def _history(text: str) -> History:
    scenario = inline(text)
    return History(scenario.new_engine, scenario.commands, scenario.until)


def test_a_history_gives_the_replaced_future_and_this_one_to_compare() -> None:
    history = _history(BASE)
    assert history.futures() is None
    history.seek(3)
    history.apply(WorkerDown("w1"))
    history.seek(1)
    history.apply(RegisterWorker("w2"))
    futures = history.futures()
    assert futures is not None
    old, new = futures
    assert (old.tick, new.tick, history.tick) == (0, 0, 1)
    old.seek(30)
    new.seek(30)
    history.seek(30)
    assert state_fingerprint(new.engine) == state_fingerprint(history.engine)
    history.redo_branch()
    history.seek(30)
    assert state_fingerprint(old.engine) == state_fingerprint(history.engine)
    comparison = compare(old.engine, new.engine)
    assert comparison.added and not comparison.dropped


def test_a_history_compares_the_timelines_own_future_with_a_command_issued_while_rewound() -> None:
    """The replaced future is the file's own when no user command came after the new one."""
    history = _history(BASE)
    history.seek(30)
    history.seek(1)
    history.apply(RegisterWorker("w2"))
    futures = history.futures()
    assert futures is not None
    old, new = futures
    old.seek(30)
    new.seek(30)
    assert state_fingerprint(old.engine) == state_fingerprint(_engine(BASE))
    history.seek(30)
    assert state_fingerprint(new.engine) == state_fingerprint(history.engine)
    comparison = compare(old.engine, new.engine)
    assert comparison.moved and not comparison.dropped
