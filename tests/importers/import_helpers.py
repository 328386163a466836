"""What the importer tests share: running the ``cronlapse`` command in-process."""

from __future__ import annotations

import contextlib
import io

from cronlapse.cli.main import main


def cronlapse(*argv: str) -> tuple[int, str, str]:
    """Run ``cronlapse ARGV...``: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()
