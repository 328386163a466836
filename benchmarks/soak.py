"""``cronlapse serve`` for simulated weeks on SQLite: does it stay as light and quick to restart?

One server at ``--speed`` ticks per wall second runs ``--jobs`` no-op jobs every simulated minute
(1,000 by default) for ``--days`` simulated days (30). Its RSS is sampled every simulated day; on
the days of ``--restart-days`` it is killed (kill -9) and started again, ``--restarts-per-day``
times in a row (3), each restart timed to ``/health`` and to the first run, and the day's figures
are their medians. The verdict is day ``--days`` against day 3: RSS (just before the day's first
restart) and restart time at most 1.15x (issue 36's target: memory and restart time bounded by live
work, not by how long the server has run), the restart's time as wall seconds and as the server's
CPU seconds to its first run (on a loaded machine the wall times follow the load, the CPU much
less), beside the journal rows the restarts replay (those after the latest snapshot when the server
was killed: the moment of the kill decides how many, up to as many as the jobs, at least 500).

A restart's downtime is simulated time too (``--speed`` seconds of it per wall second): past the
server's ``misfire_grace`` the runs missed while down follow the jobs' ``catch_up``, as after any
outage. The full soak is 43 million runs (12 hours at the default ``--speed 60``); shorten it
with ``--jobs``, ``--speed`` and ``--days``: the server must keep up with ``jobs * speed / 60``
runs a wall second (the lag of the first run after each restart says whether it does).

Run: ``python benchmarks/soak.py --jobs 10 --speed 3600`` (12 minutes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from http.client import HTTPConnection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import CLIENTS, TOKEN, Cronlapse, Job, compile_bytecode

DAY = 86400
TARGET = 1.15


@dataclass(frozen=True)
class Sample:
    day: float
    rss_mb: float
    to_ready_s: float | None = None
    to_first_run_s: float | None = None
    rss_after_restart_mb: float | None = None
    cpu_to_first_run_s: float | None = None
    """The restarted server's CPU seconds (user and system) when its first run is seen: what
    the restart cost, less swayed by the machine's load than the wall times."""
    replayed_rows: float | None = None
    """The journal's rows after its latest snapshot when the server was killed: what the
    restart replays, which the moment of the kill decides (a snapshot every as many rows as
    the state has jobs, at least 500), not the days the server ran."""


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tick(server: Cronlapse) -> int:
    connection = HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"})
    return json.loads(connection.getresponse().read())["tick"]


def _rows_after_snapshot(server: Cronlapse) -> int:
    """The journal's rows after its latest snapshot, read from the database file."""
    path = server.db_url.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        query = (
            "SELECT (SELECT coalesce(max(seq), 0) FROM journal)"
            " - (SELECT coalesce(max(seq), 0) FROM snapshots)"
        )
        return int(connection.execute(query).fetchone()[0])


def _restarts(server: Cronlapse, day: float, times: int) -> Sample:
    """``times`` restarts in a row: the RSS before the first, the medians of the restarts."""
    rss = server.rss_mb()
    restarts = [_restart(server, day) for _ in range(times)]
    return Sample(
        day,
        rss,
        statistics.median(sample.to_ready_s for sample in restarts),  # type: ignore[misc]
        statistics.median(sample.to_first_run_s for sample in restarts),  # type: ignore[misc]
        statistics.median(sample.rss_after_restart_mb for sample in restarts),  # type: ignore[misc]
        statistics.median(sample.cpu_to_first_run_s for sample in restarts),  # type: ignore[misc]
        statistics.median(sample.replayed_rows for sample in restarts),  # type: ignore[misc]
    )


def _restart(server: Cronlapse, day: float) -> Sample:
    rss = server.rss_mb()
    server.kill()
    replayed = _rows_after_snapshot(server)
    server.spawn()
    ready = server.wait_ready()
    deadline = time.monotonic() + 120
    while not (runs := server.runs()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no run within 120 s of the restart on day {day:.1f}")
        time.sleep(0.05)
    assert server.process is not None
    cpu = _cpu_s(server.process.pid)
    first = min(run.started for run in runs) - server.spawned_at
    previous = server.directory / f"log.{server.generation - 1}.jsonl"
    previous.unlink(missing_ok=True)
    return Sample(day, rss, ready, first, server.rss_mb(), cpu, replayed)


def soak(
    jobs: int, speed: float, days: int, restart_days: set[int], restarts_per_day: int = 3
) -> list[Sample]:
    samples: list[Sample] = []
    with tempfile.TemporaryDirectory(prefix="soak-") as name:
        directory = Path(name)
        server = Cronlapse(
            f"sqlite:///{directory}/soak.db", directory, options=("--speed", f"{speed:g}")
        )
        server.spawn()
        try:
            server.wait_ready()
            start = _tick(server)
            minute = float(start - start % 60 + 60)
            runs = days * DAY // 60
            server.create(
                [Job(f"j{n}", minute, every=60.0, count=runs) for n in range(jobs)], CLIENTS
            )
            for day in range(1, days + 1):
                while (_tick(server) - start) / DAY < day:
                    time.sleep(min(1.0, DAY / speed / 20))
                if day in restart_days or day == days:
                    samples.append(_restarts(server, day, restarts_per_day))
                else:
                    samples.append(Sample(day, server.rss_mb()))
                print(f"  day {day}: {samples[-1]}", file=sys.stderr, flush=True)
        finally:
            server.stop()
    return samples


def report(samples: list[Sample]) -> str:
    lines = [
        f"  {'day':>4} {'RSS MB':>8} {'to /health s':>13} {'to 1st run s':>13} {'RSS after':>10}"
        f" {'CPU to 1st s':>13} {'rows replayed':>13}"
    ]
    for sample in samples:
        cells = [
            sample.to_ready_s,
            sample.to_first_run_s,
            sample.rss_after_restart_mb,
            sample.cpu_to_first_run_s,
        ]
        text = [f"{value:.3f}" if value is not None else "-" for value in cells]
        text.append("-" if sample.replayed_rows is None else f"{sample.replayed_rows:,.0f}")
        row = [f"{sample.day:.0f}", f"{sample.rss_mb:.1f}", *text]
        lines.append("  " + " ".join(f"{cell:>13}" for cell in row))
    restarts = [sample for sample in samples if sample.to_ready_s is not None]
    third = next((sample for sample in restarts if sample.day == 3), None)
    last = restarts[-1] if restarts else None
    if third and last and last is not third:
        for label, attribute in (
            ("RSS", "rss_mb"),
            ("restart to /health", "to_ready_s"),
            ("restart to the first run", "to_first_run_s"),
            ("restart's CPU to the first run", "cpu_to_first_run_s"),
        ):
            ratio = getattr(last, attribute) / getattr(third, attribute)
            verdict = "ok" if ratio <= TARGET else "MISSED"
            lines.append(
                f"  {label}: day {last.day:.0f} / day 3 = {ratio:.2f}x "
                f"(target <= {TARGET}x: {verdict})"
            )
    daily = [sample.rss_mb for sample in samples]
    lines.append(
        f"  RSS over the soak: min {min(daily):.1f}, median {statistics.median(daily):.1f}"
    )
    stretch = longest_run(samples)
    if stretch is not None:
        first, last = stretch
        slope = (last.rss_mb - first.rss_mb) / (last.day - first.day)
        lines.append(
            f"  RSS while running, day {first.day:.0f} to {last.day:.0f} (no restart between): "
            f"{first.rss_mb:.1f} to {last.rss_mb:.1f} MB, {slope:+.2f} MB a simulated day"
        )
    return "\n".join(lines)


def longest_run(samples: list[Sample]) -> tuple[Sample, Sample] | None:
    """The first and last samples of the longest stretch a server ran without a restart, from
    the day after its start (the day of a restart samples the process it kills): the verdict
    compares RSS just before restarts, which a process's growth since its own start hides."""
    stretches: list[list[Sample]] = [[]]
    for sample in samples:
        if sample.to_ready_s is not None:
            stretches[-1].append(sample)
            stretches.append([])
        else:
            stretches[-1].append(sample)
    longest = max(stretches, key=len)
    return (longest[0], longest[-1]) if len(longest) >= 2 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1000, help="jobs every simulated minute")
    parser.add_argument("--speed", type=float, default=60.0, help="ticks per wall second")
    parser.add_argument("--days", type=int, default=30, help="simulated days")
    parser.add_argument(
        "--restart-days", default="3,10,20", help="days of a kill -9 and restart (and the last)"
    )
    parser.add_argument(
        "--restarts-per-day",
        type=int,
        default=3,
        help="restarts in a row on each restart day; the day's times are their medians",
    )
    parser.add_argument("--quick", action="store_true", help="no compileall: a smoke test")
    args = parser.parse_args(argv)
    if args.days < 1 or args.jobs < 1 or args.speed <= 0 or args.restarts_per_day < 1:
        parser.error("--days, --jobs and --restarts-per-day must be at least 1, --speed above 0")
    restart_days = {int(day) for day in args.restart_days.split(",") if day}
    if not args.quick:
        compile_bytecode()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"soak: {args.jobs} jobs every simulated minute, {args.days} days at --speed "
        f"{args.speed:g} ({args.jobs * args.speed / 60:,.0f} runs a wall second), SQLite; "
        f"{args.restarts_per_day} restarts on each restart day (medians)"
    )
    samples = soak(args.jobs, args.speed, args.days, restart_days, args.restarts_per_day)
    print(report(samples))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
