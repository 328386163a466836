"""Scheduler, API and worker processes on one PostgreSQL database, for the role tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.service.conftest import ROOT, TOKEN, Server
from tests.waiting import PATIENCE, wait_until

SCHEDULER = ("--role", "scheduler")
SLOTS = 2


class WorkerProcess:
    """A ``cronlapse worker`` process."""

    def __init__(self, directory: Path, url: str, config: Path, name: str) -> None:
        self.name = name
        self.log = directory / f"{name}.log"
        """Its standard error: its messages (standard output is ``{name}.stdout``)."""
        self.stdout = directory / f"{name}.stdout"
        self.command = [sys.executable, "-m", "cronlapse", "worker", "--db", url, "--slots"]
        self.command += [str(SLOTS), "--config", str(config), "--name", name]
        self.process: subprocess.Popen | None = None

    def start(self) -> WorkerProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with open(self.log, "ab") as errors, open(self.stdout, "ab") as output:
            self.process = subprocess.Popen(self.command, stdout=output, stderr=errors, env=env)
        return self

    def wait_ready(self) -> None:
        """Until the process has registered itself."""

        def registered() -> bool:
            assert self.process is not None and self.process.poll() is None, self.log.read_text()
            return "slots" in self.log.read_text()

        wait_until(registered, "the worker to register", context=self.log.read_text)

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` (SIGTERM, Ctrl-C's SIGINT) without waiting: a stop may take a while."""
        assert self.process is not None
        self.process.send_signal(sig)

    def wait(self) -> int:
        """The process's exit status, once it has exited (killed if it is still running after
        the suite's patience, which fails the caller)."""
        assert self.process is not None
        try:
            return self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@dataclass
class Processes:
    """Scheduler and worker processes on one database, all killed at the end."""

    directory: Path
    url: str
    config: str
    made: list = field(default_factory=list)

    def scheduler(self, name: str) -> Server:
        directory = self.directory / name
        directory.mkdir()
        self.made.append(Server(directory, self.config, "1", TOKEN, self.url, SCHEDULER))
        return self.made[-1]

    def worker(self, name: str) -> WorkerProcess:
        server = self.made[0]
        self.made.append(WorkerProcess(self.directory, self.url, server.config, name).start())
        return self.made[-1]

    def names(self) -> dict[str, str]:
        """The name of each worker process by its pid (as the test's executor records it)."""
        return {
            str(made.process.pid): made.name
            for made in self.made
            if isinstance(made, WorkerProcess) and made.process is not None
        }
