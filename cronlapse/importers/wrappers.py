"""What the programs of a scheduled command are to its name, as data: which only wrap the
command that does the work (``flock``, ``nice``, ``sudo``...), which run a script or code
(``php``, ``python``...), which only prepare it (``cd``, ``source``...), and which are named by
what they are asked to do (``run-parts DIR``, ``php artisan TASK``).

:mod:`cronlapse.importers.command_name` reads a command with these tables; a program missing
from them is taken as the work itself, so adding a row is all a new wrapper needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A program that runs the command after its own options and operands."""

    valued: frozenset[str] = frozenset()
    """Its options that take the next word as their value (``-n`` of ``nice -n 10``)."""
    operands: int = 0
    """Words of its own between its options and the command (``flock``'s lock file)."""
    command_option: frozenset[str] = frozenset()
    """Options whose value is the command, as shell text (``flock -c``, ``su -c``)."""
    subcommand: tuple[str, ...] = ()
    """The words that make it a wrapper (``bundle exec``; ``bundle install`` is none)."""


def _options(*names: str) -> frozenset[str]:
    return frozenset(names)


WRAPPERS: dict[str, tuple[Wrapper, ...]] = {
    "env": (Wrapper(_options("-u", "--unset", "-C", "--chdir")),),
    "nice": (Wrapper(_options("-n", "--adjustment")),),
    "ionice": (Wrapper(_options("-c", "--class", "-n", "--classdata", "-p", "--pid")),),
    "chrt": (Wrapper(operands=1),),
    "taskset": (Wrapper(operands=1),),
    "flock": (
        Wrapper(
            _options("-w", "--wait", "--timeout", "-E", "--conflict-exit-code"),
            operands=1,
            command_option=_options("-c", "--command"),
        ),
    ),
    "setlock": (Wrapper(operands=1),),
    "lockrun": (Wrapper(_options("-L", "--lockfile", "--maxtime")),),
    "run-one": (Wrapper(),),
    "run-this-one": (Wrapper(),),
    "timeout": (Wrapper(_options("-s", "--signal", "-k", "--kill-after"), operands=1),),
    "nohup": (Wrapper(),),
    "exec": (Wrapper(_options("-a")),),
    "command": (Wrapper(),),
    "time": (Wrapper(_options("-f", "--format", "-o", "--output")),),
    "stdbuf": (Wrapper(_options("-i", "-o", "-e")),),
    "chronic": (Wrapper(),),
    "cronic": (Wrapper(),),
    "ifne": (Wrapper(),),
    "sudo": (
        Wrapper(
            _options(
                "-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"
            )
        ),
    ),
    "su": (
        Wrapper(
            _options("-s", "--shell", "-g", "--group", "-G", "-w"),
            operands=1,
            command_option=_options("-c", "--command"),
        ),
    ),
    "runuser": (
        Wrapper(
            _options("-s", "--shell", "-g", "--group", "-G", "-u", "--user"),
            command_option=_options("-c", "--command"),
        ),
    ),
    "bundle": (Wrapper(subcommand=("exec",)),),
    "pipenv": (Wrapper(subcommand=("run",)),),
    "poetry": (Wrapper(subcommand=("run",)),),
    "uv": (Wrapper(_options("--with", "--python", "-p"), subcommand=("run",)),),
    "cronitor": (Wrapper(operands=1, subcommand=("exec",)),),
    "docker": (
        Wrapper(
            _options("-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir"),
            operands=1,
            subcommand=("exec",),
        ),
        Wrapper(
            _options("-e", "--env", "-u", "--user", "-w", "--workdir", "--index"),
            operands=1,
            subcommand=("compose", "exec"),
        ),
    ),
    "docker-compose": (
        Wrapper(
            _options("-e", "--env", "-u", "--user", "-w", "--workdir", "--index"),
            operands=1,
            subcommand=("exec",),
        ),
    ),
}
"""Programs that run the command after them (their options as their manual pages give them):
the command's name is that of the command they run."""


@dataclass(frozen=True, slots=True)
class Interpreter:
    """A program that runs a script (named by it) or code given inline (named by itself)."""

    valued: frozenset[str] = frozenset()
    """Options that take the next word as their value."""
    inline: frozenset[str] = frozenset()
    """Options whose value is code (``python -c``, ``perl -e``): no script to name the job by."""
    script_option: frozenset[str] = frozenset()
    """Options whose value is the script (``php -f FILE``, ``java -jar FILE``)."""
    module_option: frozenset[str] = frozenset()
    """Options whose value is a dotted module (``python -m app.jobs.cleanup``): its last part."""


_SHELL = Interpreter(_options("-o", "-O", "--rcfile", "--init-file"), _options("-c"))
INTERPRETERS: dict[str, Interpreter] = {
    "sh": _SHELL,
    "bash": _SHELL,
    "dash": _SHELL,
    "zsh": _SHELL,
    "ksh": _SHELL,
    "python": Interpreter(_options("-W", "-X", "-Q"), _options("-c"), module_option=_options("-m")),
    "php": Interpreter(_options("-d", "-c", "-z"), _options("-r"), _options("-f")),
    "perl": Interpreter(_options("-I", "-M"), _options("-e", "-E")),
    "ruby": Interpreter(_options("-I", "-r"), _options("-e")),
    "node": Interpreter(_options("-r", "--require"), _options("-e", "--eval")),
    "nodejs": Interpreter(_options("-r", "--require"), _options("-e", "--eval")),
    "java": Interpreter(
        _options("-cp", "-classpath", "--class-path"), script_option=_options("-jar")
    ),
    "Rscript": Interpreter(inline=_options("-e")),
}
"""Interpreters, by name without a version (``python3.11`` is ``python``: :data:`VERSIONED`)."""

VERSIONED = re.compile(r"(?P<name>[A-Za-z]+?)[0-9][0-9.]*")
"""A program named with its version (``python3``, ``php8.2``), to find it in the tables."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
"""Interpreters whose combined flags may hold ``c`` (``bash -lc 'CMD'``)."""

PREPARATION = frozenset(
    {
        "cd",
        "pushd",
        "popd",
        "source",
        ".",
        "test",
        "[",
        "[[",
        "true",
        ":",
        "export",
        "set",
        "umask",
        "ulimit",
        "sleep",
        "echo",
        "printf",
        "date",
        "mkdir",
        "exit",
    }
)
"""Commands that prepare or guard the work (``cd DIR &&``, ``. ./env.sh &&``, ``test -x F ||``,
``sleep 30;``): a command's name comes from another of its commands when it has one."""

SHELL_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "while", "until", "do", "done", "!"}
)
"""Words of the shell's grammar, not commands: ``if [ -x F ]; then F; fi`` runs ``F``."""

NAMED_WITH_TASK = frozenset(
    {"run-parts", "artisan", "manage", "console", "rake", "drush", "wp", "occ", "rails"}
)
"""Programs and scripts named with the first word they are given, as the task they run:
``run-parts /etc/cron.daily`` is ``run-parts-cron.daily``, ``php artisan schedule:run`` is
``artisan-schedule:run``, ``python manage.py clearsessions`` is ``manage-clearsessions``."""

SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".ksh", ".py", ".php", ".pl", ".rb", ".js", ".mjs", ".cjs", ".ts"}
    | {".jar", ".R", ".r", ".lua", ".tcl"}
)
"""Extensions dropped from a script's name: ``/opt/app/bin/backup-db.sh`` is ``backup-db``."""
