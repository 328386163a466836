"""Where ``cronlapse serve``'s restart goes, phase by phase, in the restart of ``peers.py``.

The database is built as ``benchmarks/peers.py``'s restart workload builds it: a real server,
``--jobs`` hourly jobs created from 8 clients, 2 runs sleeping, 4 no-op probes due a moment
later, then kill -9. The restart runs the same command under a probe (:data:`PROBE`, given to
``python -c``) that wraps the server's phases and prints, for each, the seconds since the
process was spawned and its resident memory:

interpreter up, the server's modules imported, the store open (SQLAlchemy is imported there
on PostgreSQL), the snapshot loaded, the journal's tail replayed, the journal taken over
(retries of the lost attempts, the runs due dispatched), the executors started, the HTTP stack
imported, listening; and the first probe's dispatch and executor. ``--rounds`` restarts
copies of one database.

Run: ``python benchmarks/restart_timeline.py`` (``--jobs 2000`` for a quick look). Times are
wall-clock and swing with the machine's load (printed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from peers import TOKEN, Cronlapse, _wait_for, killed_with_jobs_stored  # noqa: E402

PROBE = r"""
import os, sys, time
SPAWNED = float(os.environ["TIMELINE_SPAWNED"])
SEEN = set()


def mark(what):
    rss = next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]
    sys.stderr.write(f"TIMELINE {time.time() - SPAWNED:.3f} {int(rss) / 1024:.1f} {what}\n")
    sys.stderr.flush()


mark("interpreter up")
from cronlapse.service import executors, live, server
from engine.model.events import AttemptStarted
mark(f"the server's modules imported ({len(sys.modules)} modules)")


def after(owner, name, what):
    wrapped = getattr(owner, name)

    def call(*args, **kwargs):
        result = wrapped(*args, **kwargs)
        mark(what)
        return result

    setattr(owner, name, call)


after(server, "open_store", "store open")
after(live.LiveService, "load_snapshot", "snapshot loaded")
after(live.LiveService, "take_over", "journal replayed and taken over")
after(server, "bound_socket", "port bound")
consume = live.LiveService._consume_events


def consumed(self):
    for event in self.engine.log:
        if isinstance(event, AttemptStarted) and event.job_id.startswith("probe-"):
            if "dispatch" not in SEEN:
                SEEN.add("dispatch")
                mark("first probe dispatched")
    consume(self)


live.LiveService._consume_events = consumed
run = executors.Executors._run


async def ran(self, launch):
    if launch.key.job_id.startswith("probe-") and "executor" not in SEEN:
        SEEN.add("executor")
        mark("first probe's executor started")
    return await run(self, launch)


executors.Executors._run = ran
import builtins

real_import = builtins.__import__


def imported(name, *args, **kwargs):
    first = name == "cronlapse.service.http_server" and name not in sys.modules
    module = real_import(name, *args, **kwargs)
    if first:
        mark("HTTP stack imported")
        http = sys.modules[name]
        init = http._AnnouncingServer.__init__

        def announcing(self, config, announce):
            def announced():
                announce()
                mark("listening")

            init(self, config, announced)

        http._AnnouncingServer.__init__ = announcing
    return module


builtins.__import__ = imported
from cronlapse.cli.entry import main

sys.argv = ["cronlapse", *sys.argv[1:]]
sys.exit(main())
"""


def build(directory: Path, jobs: int) -> Cronlapse:
    """The restart workload of ``peers.py`` up to its kill -9, and until its probes are due."""
    server = Cronlapse(f"sqlite:///{directory}/db.sqlite", directory)
    killed_with_jobs_stored(server, jobs, 20.0)
    return server


def timeline(directory: Path, config: Path, port: int) -> list[tuple[float, float, str]]:
    """Restart on ``directory``'s database under :data:`PROBE`; its marks, once it listens and
    a probe's executor has started."""
    stderr = directory / "timeline.stderr"
    command = [sys.executable, "-c", PROBE, "serve", "--db", f"sqlite:///{directory}/db.sqlite"]
    command += ["--port", str(port), "--config", str(config)]
    command += ["--log-file", str(directory / "timeline.jsonl")]
    env = dict(os.environ, CRONLAPSE_TOKEN=TOKEN, PYTHONPATH=str(ROOT))
    with stderr.open("w") as errors:
        env["TIMELINE_SPAWNED"] = repr(time.time())
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env)
    try:
        _wait_for(lambda: _marks(stderr, {"listening", "first probe's executor started"}), "ready")
        return _marks(stderr, set()) or []
    finally:
        process.terminate()
        process.wait(timeout=60)


def _marks(stderr: Path, wanted: set[str]) -> list[tuple[float, float, str]] | None:
    marks = []
    for line in stderr.read_text().splitlines():
        if line.startswith("TIMELINE "):
            seconds, rss, what = line.split(" ", 3)[1:]
            marks.append((float(seconds), float(rss), what))
    return marks if wanted <= {what for _, _, what in marks} else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="timeline-") as name:
        built = Path(name) / "built"
        built.mkdir()
        server = build(built, args.jobs)
        for round_number in range(args.rounds):
            copy = Path(name) / f"round{round_number}"
            shutil.copytree(built, copy)
            marks = timeline(copy, server.config, server.port)
            print(f"\nround {round_number + 1} ({args.jobs:,} jobs):  seconds   RSS MB")
            for seconds, rss, what in sorted(marks):
                print(f"  {what:<52}{seconds:7.3f}{rss:9.1f}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
