"""What the sweep tests share: a scenario whose answers are known by construction, and the CLI."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from cronlapse.cli.main import main

QUEUE = """\
# Twelve ten-tick jobs fall due together. On W workers, fifo, they start in waves of W at
# ticks 0, 10, 20, ...: the job in place i (0-based) waits 10 * (i // W) ticks, so the
# longest wait is 10 * (ceil(12 / W) - 1).
scenario: A queue of twelve
policy: {order: fifo}
workers: [w1, w2]
generate:
  - count: 12
    id: "job-{n:02}"
    job: {at: 0, duration: 10}
"""


def longest_wait(workers: int) -> int:
    return 10 * (-(-12 // workers) - 1)


def write_queue(directory: Path) -> Path:
    path = directory / "queue.yaml"
    path.write_text(QUEUE, encoding="utf-8")
    return path


def cronlapse(*argv: str) -> tuple[int, str, str]:
    """Run ``cronlapse ARGV...`` in this process: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def die_on_variant_two(task):  # type: ignore[no-untyped-def]
    """Plays a task as :func:`cronlapse.analyses.sweep.evaluate.evaluate` does, except that variant
    2 kills its process (as an out-of-memory kill would)."""
    import os

    from cronlapse.analyses.sweep.evaluate import evaluate

    if task.variant == 2:
        os._exit(9)
    return evaluate(task)
