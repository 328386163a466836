"""What every peer's contender script shares with the harness (``benchmarks/peers.py``).

A contender script is one process: the peer library set up as its documentation says, with 4
worker slots. It prints ``{"ready": true}`` once its scheduler (or worker) has started, then reads
commands on standard input, one JSON object a line: ``{"create": [JOB, ...], "clients": 8}``
creates the jobs from that many concurrent clients through the library's own API, and answers
``{"created": N, "seconds": S}``. A JOB is ``{"id", "at", "every", "count", "sleep"}``: first run
at Unix time ``at``, then ``count - 1`` more every ``every`` seconds; its run sleeps ``sleep``
seconds (0: a no-op).

Each run's start is appended to the events file as ``job scheduled started`` (Unix seconds), the
same line for every contender (cronlapse's come from its structured log), so the harness counts
runs, lag and duplicates alike for all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

SLEEPER_PREFIX = "nap-"
"""The ids the harness gives its sleeping jobs (the runs a kill interrupts): a script that
records no-op runs after they end (APScheduler's listener) leaves these to record themselves."""


@dataclass(frozen=True)
class Job:
    """One job the harness asks for."""

    id: str
    at: float
    every: float = 0.0
    count: int = 1
    sleep: float = 0.0

    def scheduled(self, index: int) -> float:
        return self.at + index * self.every


class RunLog:
    """Appends one line per run start; a lock, because runs start on several threads."""

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = threading.Lock()

    def started(self, job: str, scheduled: float) -> None:
        line = f"{job} {scheduled:.3f} {time.time():.6f}\n".encode()
        with self._lock:
            os.write(self._fd, line)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True, help="the library's database URL")
    parser.add_argument("--events", help="the file the run starts are appended to")
    parser.add_argument("--slots", type=int, default=4, help="runs at once")
    parser.add_argument("--setup", action="store_true", help="create the schema, then exit")
    return parser.parse_args()


def say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve_commands(create: Callable[[list[Job], int], None]) -> None:
    """Say ready, then answer the harness's commands until standard input closes (the
    harness kills the process instead, mostly: a kill -9 is part of the benchmark)."""
    say({"ready": True})
    for line in sys.stdin:
        command = json.loads(line)
        jobs = [Job(**job) for job in command["create"]]
        start = time.perf_counter()
        create(jobs, command["clients"])
        say({"created": len(jobs), "seconds": time.perf_counter() - start})


def shares(jobs: list[Job], clients: int) -> list[list[Job]]:
    """The jobs split over the clients, round-robin."""
    return [jobs[client::clients] for client in range(clients)]
