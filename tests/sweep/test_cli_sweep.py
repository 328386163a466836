"""``cronlapse sweep``: the target search, the outputs, failing variants, executors, Ctrl-C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sweep_helpers import cronlapse, die_on_variant_two, longest_wait, write_queue

from cronlapse.analyses.sweep.evaluate import Outcome
from cronlapse.analyses.sweep.executors import run_local
from cronlapse.analyses.sweep.keys import parse_variation
from cronlapse.analyses.sweep.plan import plan_tasks
from cronlapse.cli import sweep as cli_sweep


def test_the_target_search_finds_the_answer_known_by_construction(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    status, out, err = cronlapse(
        "sweep", str(queue), "--vary", "workers=1..6", "--metric", "max_wait",
        "--target", "max_wait <= 20", "--processes", "1",
    )  # fmt: skip
    assert (status, err) == (0, "")
    assert min(w for w in range(1, 7) if longest_wait(w) <= 20) == 4
    assert "cheapest variant meeting max_wait <= 20: workers=4 (max_wait = 20)" in out
    assert "max_wait" in out.splitlines()[-1] or "workers" in out  # the table and the plot


def test_no_variant_meeting_the_target_exits_1(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    status, out, _ = cronlapse(
        "sweep", str(queue), "--vary", "workers=1..2", "--target", "max_wait <= 5",
        "--processes", "1", "--no-plot",
    )  # fmt: skip
    assert status == 1
    assert "no variant meets max_wait <= 5" in out


def test_a_failing_variant_is_a_row_and_the_sweep_goes_on(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    status, out, _ = cronlapse(
        "sweep", str(queue), "--vary", "policy.order=fifo,sideways,priority", "--json", "-",
        "--processes", "1",
    )  # fmt: skip
    document = json.loads(out)
    assert status == 0
    errors = [variant["errors"] for variant in document["variants"]]
    assert errors[0] == errors[2] == []
    assert errors[1] == [
        "5:17: policy.order: expected 'fifo', 'priority' or 'aging', got 'sideways'"
    ]


def test_bad_options_exit_2_naming_the_key(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    status, out, err = cronlapse("sweep", str(queue), "--vary", "polcy.order=fifo")
    assert (status, out) == (2, "")
    assert err == (
        "cronlapse sweep: --vary polcy.order: unknown key 'polcy' (did you mean 'policy'?); "
        "closest valid path: policy.order\n"
    )
    status, _, err = cronlapse("sweep", str(queue), "--vary", "workers=1", "--metric", "p97_wait")
    assert status == 2 and "unknown metric 'p97_wait'" in err


@pytest.mark.parametrize("until", ["-1", "100000000000000000000"])
def test_until_is_a_tick_as_run_takes_it(tmp_path: Path, until: str) -> None:
    """-1 gave a table of dashes; 10**20 played on without end."""
    with pytest.raises(SystemExit) as exit_:
        cronlapse("sweep", str(write_queue(tmp_path)), "--vary", "workers=1", "--until", until)
    assert exit_.value.code == 2


@pytest.mark.parametrize("option", ["--csv", "--json"])
@pytest.mark.parametrize("where", ["a directory", "a missing directory"])
def test_an_output_that_cannot_be_written_is_refused_before_the_sweep_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, where: str
) -> None:
    queue = write_queue(tmp_path)
    target = tmp_path if where == "a directory" else tmp_path / "missing" / "out.csv"
    monkeypatch.setattr(cli_sweep, "run_inline", _never_run)
    status, out, err = cronlapse(
        "sweep", str(queue), "--vary", "workers=1..2", option, str(target), "--processes", "1"
    )
    assert (status, out) == (2, "")
    assert err.startswith(f"cronlapse sweep: cannot write {target}: "), err
    assert "internal error" not in err


def _never_run(tasks):
    raise AssertionError("the sweep ran before its output was found unwritable")


def _outputs(queue: Path, *executor: str) -> tuple[str, str]:
    common = [
        "sweep",
        str(queue),
        "--vary",
        "workers=1..4",
        "--vary",
        "defaults.failure_rate=0,0.3",
    ]
    common += ["--replicas", "3", "--metric", "p95_wait", "--metric", "failed", *executor]
    _, as_csv, _ = cronlapse(*common, "--csv", "-")
    _, as_json, _ = cronlapse(*common, "--json", "-")
    return as_csv, as_json


@pytest.mark.e2e
def test_results_are_the_same_bytes_in_one_process_and_in_several(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    inline = _outputs(queue, "--processes", "1")
    pooled = _outputs(queue, "--processes", "2")
    assert inline == pooled
    rows = inline[0].splitlines()
    assert rows[0] == (
        "variant,workers,defaults.failure_rate,p95_wait,p95_wait_ci95,p95_wait_n,"
        "failed,failed_ci95,failed_n,errors"
    )
    assert len(rows) == 1 + 8


@pytest.mark.e2e
def test_a_process_that_dies_fails_its_own_row_only(tmp_path: Path) -> None:
    queue = write_queue(tmp_path)
    option = parse_variation("workers=1..5")
    _, tasks = plan_tasks("q.yaml", queue.read_text(), [option], 1, ("max_wait",))
    outcomes = {o.variant: o for o in run_local(tasks, 2, play=die_on_variant_two)}
    assert outcomes[2].error == "crashed: the process playing it died"
    assert {v: o.values for v, o in outcomes.items() if v != 2} == {
        0: (110.0,),
        1: (50.0,),
        3: (20.0,),
        4: (20.0,),
    }


def test_ctrl_c_prints_what_finished_and_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = write_queue(tmp_path)

    def two_then_interrupt(tasks, *_):  # type: ignore[no-untyped-def]
        yield Outcome(0, 0, (110.0,))
        yield Outcome(1, 0, (50.0,))
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_sweep, "run_local", two_then_interrupt)
    status, out, err = cronlapse(
        "sweep", str(queue), "--vary", "workers=1..6", "--metric", "max_wait", "--csv", "-",
        "--processes", "2",
    )  # fmt: skip
    assert status == 130
    assert err == "cronlapse sweep: interrupted; 2 of 6 variants shown\n"
    assert out.splitlines()[1:] == ["0,1,110.0,,1,", "1,2,50.0,,1,"]
