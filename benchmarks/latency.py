"""What latency attribution and a "why?" answer cost, against the play that produced them.

The demo fleet (scenarios/demo.yaml: 2,000 jobs on 50 workers for a week) is played headless to
its end; ``latency_report`` is then timed on that engine, and the ratio to the play is printed
(the yardstick is the play, in the same run: absolute times on a shared machine swing). Then a
history is sought to 01:15 and ``explain_run`` answers about batch-299's midnight run, whose
forecast plays the run on until it starts; the ratio is to the seek.

Run: ``python benchmarks/latency.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cronlapse.analyses.explain import explain_run  # noqa: E402
from cronlapse.analyses.latency.attribution import latency_report  # noqa: E402
from engine.play.history import History  # noqa: E402
from engine.scenario import ScenarioRunner, load_scenario  # noqa: E402


def _timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    scenario = load_scenario(str(ROOT / "scenarios" / "demo.yaml"))
    runner = ScenarioRunner(scenario)
    played, _ = _timed(runner.run)
    reported, report = _timed(lambda: latency_report(runner.engine))
    print(f"play the demo's week: {played:.2f} s ({len(runner.engine.log):,} events)")
    print(
        f"latency_report on it: {reported:.2f} s ({report.overall.runs:,} runs), "
        f"{reported / played:.2f}x the play"
    )
    history = History(scenario.new_engine, scenario.commands, scenario.until)
    sought, _ = _timed(lambda: history.seek(75))
    answered, _ = _timed(lambda: explain_run(history, "batch-299", 0, scenario.clock))
    print(
        f"seek to 01:15: {sought:.3f} s; explain batch-299@0 there: {answered:.3f} s, "
        f"{answered / sought:.2f}x the seek"
    )


if __name__ == "__main__":
    main()
