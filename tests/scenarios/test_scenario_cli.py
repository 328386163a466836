"""The run, check and export handlers, called as the cronlapse CLI calls them."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import pytest

from cronlapse.cli import check, export, run
from engine.parts.workers import Workforce

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"

SMALL = """\
scenario: small
policy: {order: fifo}
workers: [w-a, w-b]
jobs:
  - {id: report, at: 10, duration: 2, fail: [1], max_retries: 1}
  - {id: publish, depends_on: [report]}
expect:
  - {at: 14, job: report, status: SUCCEEDED}
"""


def call(*argv: str) -> tuple[int, str, str]:
    """Parse ``argv`` as the CLI would and run the handler; (status, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="cronlapse")
    subparsers = parser.add_subparsers()
    for command in (run, check, export):
        command.add_parser(subparsers)
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    status = args.handler(args, out, err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL, encoding="utf-8")
    return path


def test_run_prints_one_line_per_event_then_the_summary(small: Path) -> None:
    status, out, err = call("run", str(small))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:12] == [
        "t=0 WorkerRegistered w-a",
        "t=0 WorkerRegistered w-b",
        "t=0 JobScheduled report (once at 10)",
        "t=0 JobScheduled publish (once at 0)",
        "t=0 OccurrenceBlocked publish@0",
        "t=10 AttemptStarted report@10 attempt 1 on w-a",
        "t=12 AttemptFailed report@10 attempt 1 on w-a",
        "t=12 RetryScheduled report@10 next_attempt=2 eligible_at=12 delay=0",
        "t=12 AttemptStarted report@10 attempt 2 on w-a",
        "t=14 AttemptSucceeded report@10 attempt 2 on w-a",
        "t=14 OccurrenceUnblocked publish@0",
        "t=14 AttemptStarted publish@0 attempt 1 on w-a",
    ]
    summary = out[out.index("Jobs (at tick 15)") :]
    report_row = next(line for line in summary.splitlines() if "report" in line)
    assert report_row.split("│")[2:11] == [
        "    2 ",
        "  1 ",
        "      0 ",
        "       1 ",
        "       0 ",
        "         0 ",
        "        0 ",
        "   0 ",
        "   0 ",
    ]
    assert "w-a" in summary and "Workers" in summary


BRACKETS = """\
scenario: "brackets [/b]"
workers: ["[red]w1"]
jobs:
  - {id: "[/b]etl", every: 10, duration: 3}
  - {id: "x[", at: 2, duration: 1}
clock: {until: 30}
"""


@pytest.mark.parametrize("option", [(), ("--stats",)], ids=["summary", "stats"])
def test_ids_that_look_like_markup_are_printed_as_they_are(tmp_path: Path, option) -> None:
    """The tables are drawn with Rich, which would read ``[/b]`` as a closing tag (and raise)
    and ``[red]`` as a colour: ids go in as text."""
    path = tmp_path / "brackets.yaml"
    path.write_text(BRACKETS, encoding="utf-8")
    status, out, err = call("run", str(path), *option)
    assert (status, err) == (0, "")
    tables = out[out.index("Jobs (at tick") :] if not option else out
    assert "[/b]etl" in tables and "x[" in tables
    if not option:
        assert "│ [red]w1 " in tables, "the worker row, not read as a colour"


def test_run_jsonl_prints_one_object_per_event_and_no_table(small: Path) -> None:
    status, out, _ = call("run", str(small), "--jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(records) == 13
    assert records[5] == {
        "type": "AttemptStarted",
        "tick": 10,
        "job_id": "report",
        "scheduled": 10,
        "attempt": 1,
        "worker_id": "w-a",
    }


@pytest.mark.parametrize("jsonl", [False, True], ids=["lines", "jsonl"])
def test_two_runs_print_the_same_bytes(jsonl: bool) -> None:
    argv = ["run", str(LIBRARY / "demo.yaml"), "--until", "1440"] + (["--jsonl"] if jsonl else [])
    first, second = call(*argv), call(*argv)
    assert first[0] == 0 and first == second
    assert len(first[1].splitlines()) > 10_000


def test_the_jittered_storm_is_the_same_every_run() -> None:
    path = str(LIBRARY / "retry-storm-jitter.yaml")
    assert call("run", path, "--jsonl") == call("run", path, "--jsonl")


def test_run_refuses_recurring_jobs_without_until(tmp_path: Path) -> None:
    path = tmp_path / "endless.yaml"
    path.write_text("scenario: e\nworkers: [w]\njobs: [{id: a, every: 10}]\n", encoding="utf-8")
    status, out, err = call("run", str(path))
    assert (status, out) == (2, "")
    assert err == (
        f"{path}: recurring jobs never run out of work, so this run has no end: add 'until' to "
        "the clock (clock: {until: TICK}) or pass --until TICK to cronlapse run\n"
    )
    status, out, _ = call("run", str(path), "--until", "25")
    assert status == 0 and "t=20 AttemptStarted a@20" in out and "t=30" not in out


def test_an_invalid_file_prints_every_error_and_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("scenario: b\njobs:\n  - {id: a, duraton: 5}\n  - {id: a}\n", "utf-8")
    for command in (["run"], ["check"], ["export", "--csv", str(tmp_path / "x.csv")]):
        status, out, err = call(*command, str(path))
        assert status == 2
        assert err.splitlines()[:2] == [
            f"{path}:3:13: jobs[0].duraton: unknown key 'duraton' (did you mean 'duration'?)",
            f"{path}:4:10: jobs[1].id: duplicate job id 'a' (first at 3:10)",
        ]
        assert "Traceback" not in err and "t=" not in out
    assert not (tmp_path / "x.csv").exists()


def test_check_prints_each_mismatch_and_a_count_line(tmp_path: Path, small: Path) -> None:
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(SMALL.replace("status: SUCCEEDED", "status: FAILED"), encoding="utf-8")
    status, out, err = call("check", str(small), str(wrong))
    assert (status, err) == (1, "")
    assert out == (
        f"{wrong}:8: expected report@10 FAILED, got SUCCEEDED\n"
        "2 files, 2 expectations, 1 mismatch\n"
    )


def test_check_exits_0_when_all_hold_and_2_when_a_file_is_invalid(tmp_path: Path) -> None:
    assert call("check", str(LIBRARY / "seed-000-example-2.yaml"))[:2] == (
        0,
        "1 file, 12 expectations, 0 mismatches\n",
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("nothing: here\n", encoding="utf-8")
    status, out, err = call("check", str(LIBRARY / "seed-000-example-3.yaml"), str(bad))
    assert status == 2
    assert out == "2 files, 9 expectations, 0 mismatches, 1 invalid file\n"
    assert err.startswith(f"{bad}:1:1: ")


def test_a_script_runs_like_cronlapse_script_and_checks_against_its_expected_file(
    tmp_path: Path,
) -> None:
    script = tmp_path / "s.txt"
    script.write_text("INIT 1 1\nSUBMIT a 1 2 1 0\nTICK 3\nSTATUS a\n", encoding="utf-8")
    status, out, _ = call("run", str(script))
    assert status == 0
    assert out.splitlines()[:4] == ["OK a", "START a 0", "DONE a 2", "a SUCCEEDED 1"]
    assert call("check", str(script))[:2] == (0, "1 file, 0 expectations, 0 mismatches\n")
    (tmp_path / "s.expected").write_text("OK a\nSTART a 1\nDONE a 2\n", encoding="utf-8")
    status, out, _ = call("check", str(script))
    assert status == 1
    assert out == (
        f"{tmp_path / 's.expected'}:2: expected 'START a 1', got 'START a 0'\n"
        f"{tmp_path / 's.expected'}:4: expected end of output, got 'a SUCCEEDED 1'\n"
        "1 file, 3 expectations, 2 mismatches\n"
    )
    assert call("run", str(script), "--until", "3")[0] == 2


def test_a_script_with_a_rejected_line_is_invalid(tmp_path: Path) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("INIT 1 1\nBOGUS\nTICK x\n", encoding="utf-8")
    status, out, err = call("run", str(script))
    assert (status, out) == (2, "")
    assert err == (
        f"{script}:2:1: unknown command 'BOGUS'\n{script}:3:1: n must be an integer, got 'x'\n"
    )


def test_export_trace_is_chrome_trace_event_json(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    status, out, _ = call("export", str(LIBRARY / "worker-crash.yaml"), "--trace", str(target))
    assert (status, out) == (0, f"wrote 5 attempts to {target}\n")
    trace = json.loads(target.read_text(encoding="utf-8"))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in trace if e.get("name") == "thread_name"}
    assert names == {1: "w-a", 2: "w-b"}
    slices = [e for e in trace if e["ph"] == "X"]
    assert slices[0] == {
        "name": "render",
        "cat": "lost",
        "ph": "X",
        "pid": 1,
        "tid": 1,
        "ts": 0,
        "dur": 30_000_000,
        "args": {"scheduled": 0, "attempt": 1, "outcome": "LOST"},
    }


def test_export_trace_scales_ticks_by_the_tick_length(tmp_path: Path) -> None:
    target = tmp_path / "etl.json"
    assert call("export", str(LIBRARY / "nightly-etl-dst.yaml"), "--trace", str(target))[0] == 0
    slices = [e for e in json.loads(target.read_text())["traceEvents"] if e["ph"] == "X"]
    assert (slices[0]["ts"], slices[0]["dur"]) == (150 * 60 * 10**6, 20 * 60 * 10**6)


def test_export_csv_has_one_row_per_attempt(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    status, _, _ = call("export", str(LIBRARY / "worker-crash.yaml"), "--csv", str(target))
    rows = list(csv.reader(target.open(encoding="utf-8")))
    assert status == 0
    assert rows[:3] == [
        ["job", "scheduled", "attempt", "worker", "start", "end", "outcome"],
        ["render", "0", "1", "w-a", "0", "30", "LOST"],
        ["thumbnails", "0", "1", "w-b", "0", "20", "SUCCEEDED"],
    ]


@pytest.mark.parametrize("option", ["--trace", "--csv"])
def test_export_to_a_dash_writes_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    """As sweep's outputs do; it wrote a file named ``-``."""
    monkeypatch.chdir(tmp_path)
    status, out, err = call("export", str(LIBRARY / "worker-crash.yaml"), option, "-")
    assert (status, err) == (0, "")
    assert not (tmp_path / "-").exists()
    if option == "--trace":
        assert json.loads(out)["traceEvents"]
    else:
        assert out.startswith("job,scheduled,attempt,worker,start,end,outcome")


def test_export_to_an_unwritable_place_is_an_error(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "out.csv"
    status, _, err = call("export", str(LIBRARY / "worker-crash.yaml"), "--csv", str(target))
    assert status == 2
    assert err == f"cronlapse export: cannot write {target}: No such file or directory\n"


def test_until_must_be_a_tick() -> None:
    with pytest.raises(SystemExit) as exited:
        call("run", "x.yaml", "--until", "soon")
    assert exited.value.code == 2


def test_run_until_cuts_a_10_to_the_12_horizon_to_its_first_ticks(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text(
        "scenario: h\nclock: {until: 1000000000000}\nworkers: [w]\njobs: [{id: pulse, every: 1}]\n",
        encoding="utf-8",
    )
    status, out, _ = call("run", str(path), "--until", "20", "--jsonl")
    types = [json.loads(line)["type"] for line in out.splitlines()]
    assert status == 0
    assert (types.count("AttemptStarted"), types.count("AttemptSucceeded")) == (21, 20)


@pytest.mark.parametrize("command", ["run", "export"])
def test_until_is_refused_for_a_script(command: str, tmp_path: Path) -> None:
    script = str(LIBRARY / "seed-001-aging-cascade.txt")
    extra = ["--trace", str(tmp_path / "out.json")] if command == "export" else []
    status, out, err = call(command, script, "--until", "5", *extra)
    assert (status, out) == (2, "")
    assert err == f"{script}: --until does not apply to a script: its TICK lines set the time\n"
    assert not (tmp_path / "out.json").exists()


# ---------------------------------------------------------------------- the exactly-once checker

STUCK = (
    "publish@0 still waits at the end (it could run from tick 14), though w-a was idle at the "
    "end of tick 14: it was never dispatched, cancelled or skipped"
)


@pytest.fixture
def leaking_idle_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken engine: a worker whose attempt ends is idle but never offered work again."""
    release = Workforce.release

    def leak(self, worker) -> None:  # type: ignore[no-untyped-def]
        release(self, worker)
        self.idle.discard(worker.worker_id)

    monkeypatch.setattr(Workforce, "release", leak)


@pytest.mark.usefixtures("leaking_idle_pool")
def test_check_reports_an_invariant_violation_with_its_tick_and_exits_1(small: Path) -> None:
    # report succeeds at 14 on w-b; publish, unblocked then, never runs though both are idle.
    status, out, err = call("check", str(small))
    assert (status, err) == (1, "")
    assert out == (
        f"{small}: tick 14: {STUCK}\n1 file, 1 expectation, 0 mismatches, 1 invariant violation\n"
    )


@pytest.mark.usefixtures("leaking_idle_pool")
def test_run_reports_an_invariant_violation_on_stderr_and_exits_1(small: Path) -> None:
    status, out, err = call("run", str(small))
    assert (status, err) == (1, f"{small}: tick 14: {STUCK}\n")
    assert "t=14 OccurrenceUnblocked publish@0" in out
    assert call("run", str(small), "--jsonl")[0::2] == (1, f"{small}: tick 14: {STUCK}\n")


@pytest.mark.usefixtures("leaking_idle_pool")
def test_a_script_is_checked_too(tmp_path: Path) -> None:
    # The one worker runs a, then b waits for it forever.
    script = tmp_path / "s.txt"
    script.write_text("INIT 1 1\nSUBMIT a 1 2 1 0\nTICK 3\nSUBMIT b 1 2 1 0\nTICK 5\n", "utf-8")
    stuck = (
        f"{script}: tick 7: b@3 still waits at the end (it could run from tick 3), though worker "
        "was idle at the end of tick 3: it was never dispatched, cancelled or skipped\n"
    )
    assert call("run", str(script))[0::2] == (1, stuck)
    status, out, _ = call("check", str(script))
    assert status == 1
    assert out == stuck + "1 file, 0 expectations, 0 mismatches, 1 invariant violation\n"


def test_check_follows_a_modified_job_through_each_definition_it_had(tmp_path: Path) -> None:
    # The runs of pulse, created under three definitions, each match the one they had.
    path = tmp_path / "modified.yaml"
    path.write_text(
        "scenario: m\nclock: {until: 60}\nworkers: [w-a]\n"
        "jobs: [{id: pulse, every: 10, duration: 3}]\n"
        "timeline:\n"
        "  - {at: 15, modify: {job: pulse, priority: 2}, expect: ok}\n"
        "  - {at: 25, modify: {job: pulse, every: 7, duration: 2}, expect: ok}\n"
        "  - {at: 42, modify: {job: pulse, priority: 0, timeout: 9}, expect: ok}\n"
        "expect:\n"
        "  - {at: 60, events: {AttemptStarted: 9}}\n",
        encoding="utf-8",
    )
    assert call("check", str(path))[:2] == (0, "1 file, 4 expectations, 0 mismatches\n")
