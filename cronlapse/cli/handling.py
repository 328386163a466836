"""Running a command's handler the one way: no traceback, ever, from any command.

Shared by the whole command line (:mod:`cronlapse.cli.main`) and by the service's commands,
which are parsed without it (:mod:`cronlapse.cli.entry`).
"""

from __future__ import annotations

import argparse
import os
import sys

from cronlapse.cli.collector import collector_tuned_for

INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as shells report it."""
INTERNAL_ERROR = 70
"""The exit status of a bug in cronlapse (sysexits' EX_SOFTWARE), said in one line."""


def run_handler(args: argparse.Namespace, handler) -> int:
    """Run ``handler`` for the parsed ``args``; Ctrl-C, a closed pipe and a bug each end in
    one line and an exit status, never a traceback."""
    words = ("cronlapse", args.command, getattr(args, "explain_command", None))
    name = " ".join(word for word in words if word)
    try:
        with collector_tuned_for(args.command):
            return handler(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C: the user knows why it stopped, so one line will do
        sys.stderr.write(f"{name}: interrupted\n")
        return INTERRUPTED
    except BrokenPipeError:  # the reader left (``| head``): nothing more to say
        _silence_stdout()
        return 0
    except Exception as error:  # the promise is: no traceback, ever, from any command
        sys.stderr.write(f"{name}: internal error: {type(error).__name__}: {error}\n")
        return INTERNAL_ERROR


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail on the closed pipe
    a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to flush
        pass
