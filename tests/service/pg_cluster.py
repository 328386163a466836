"""A throwaway PostgreSQL server: ``initdb`` and ``pg_ctl`` into a temporary directory, on a free
loopback port, stopped (immediately) at the end, and a streaming replica of it when a test asks
(``pg_basebackup -R``). The tests and benchmarks/scale_out.py use it.

PostgreSQL refuses to run as root; as root (CI runs as root) the server runs as the ``postgres``
user that Debian's package creates, through ``runuser``. Durability of the server itself is not
what is tested (a test kills cronlapse, never PostgreSQL), so ``fsync`` is off for speed.

Each server has a reaper: a small process in a session of its own that waits for the end of a
pipe from the process that started the server, then stops the server and removes its
directory. :meth:`Cluster.stop` closes the pipe; so does the starting process's death, however
it ends (a test run killed by a signal or a timeout leaves no server behind).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import psycopg

SEARCHED = ("/usr/local/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True))
"""Where the server binaries are looked for after ``$PATH`` (Debian keeps them off it)."""


REAPER = """
import shutil, subprocess, sys
sys.stdin.buffer.read()
subprocess.run(sys.argv[2:], capture_output=True, check=False)
shutil.rmtree(sys.argv[1], ignore_errors=True)
"""
"""Given the server's directory and its stop command: waits for the end of its standard input,
then stops the server and removes the directory."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def find_binaries() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or None."""
    found = shutil.which("initdb")
    candidates = ([str(Path(found).parent)] if found else []) + list(SEARCHED)
    for directory in candidates:
        if (Path(directory) / "initdb").exists() and (Path(directory) / "pg_ctl").exists():
            return Path(directory)
    return None


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why."""


class Cluster:
    """One server; :meth:`database` makes a fresh empty database on it."""

    def __init__(self) -> None:
        binaries = find_binaries()
        if binaries is None:
            raise Unavailable(
                "no PostgreSQL server binaries (initdb, pg_ctl) on $PATH, in /usr/local/bin or "
                "/usr/lib/postgresql/*/bin: .ci/run installs Debian's postgresql package"
            )
        self.binaries = binaries
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None or _uid("postgres") is None:
                raise Unavailable("running as root, and no postgres user to run the server as")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.port = _free_port()
        self.base = Path(tempfile.mkdtemp(prefix="cronlapse-pg-"))
        self.data = self.base / "data"
        self._reaper: subprocess.Popen[bytes] | None = None

    def _run(self, *command: str) -> None:
        result = subprocess.run(
            [*self.prefix, *command], capture_output=True, text=True, cwd=self.base, check=False
        )
        if result.returncode != 0:
            raise Unavailable(f"{command[0]} failed:\n{result.stdout}{result.stderr}")

    def start(self) -> Cluster:
        self._own_base()
        self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        return self._serve()

    def replica(self) -> Cluster:
        """A streaming replica of this server, started on a port of its own: ``pg_basebackup
        -R`` (initdb's trust rules already let loopback replicate), then a hot standby."""
        replica = Cluster()
        replica._own_base()
        replica._run(
            _beside(self.binaries, "pg_basebackup"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-D",
            str(replica.data),
            "-R",
            "-X",
            "stream",
            "--checkpoint=fast",
            "--no-sync",
        )
        return replica._serve()

    def _own_base(self) -> None:
        if self.prefix:
            uid = _uid("postgres")
            assert uid is not None
            os.chown(self.base, uid, -1)

    def _serve(self) -> Cluster:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.base} -c fsync=off "
            "-c full_page_writes=off -c max_connections=300"
        )
        log = self.base / "server.log"
        pg_ctl = str(self.binaries / "pg_ctl")
        stop = [*self.prefix, pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"]
        self._reaper = subprocess.Popen(
            [sys.executable, "-c", REAPER, str(self.base), *stop],
            stdin=subprocess.PIPE,
            start_new_session=True,
        )
        self._run(pg_ctl, "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start")
        return self

    def tool(self, name: str) -> str:
        """The path of one of the server's client programs (``createdb``, ``dropdb``...)."""
        return _beside(self.binaries, name)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new empty database's URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (immediately) and remove its directory: its reaper does both."""
        reaper, self._reaper = self._reaper, None
        if reaper is None:
            shutil.rmtree(self.base, ignore_errors=True)
            return
        assert reaper.stdin is not None
        reaper.stdin.close()
        reaper.wait()


def _beside(binaries: Path, name: str) -> str:
    """``name`` from the server's own directory (through its symlinks), else ``$PATH``."""
    for directory in (binaries, (binaries / "initdb").resolve().parent):
        if (directory / name).exists():
            return str(directory / name)
    found = shutil.which(name)
    if found is None:
        raise Unavailable(f"no {name} beside initdb or on $PATH")
    return found


def _uid(user: str) -> int | None:
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return None
