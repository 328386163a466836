"""Seed 001 command scripts as the second input format of run, check and export (a ``.txt``
file: :mod:`cronlapse.sources` tells them from scenarios).

A script runs through :mod:`engine.facades.script`, so it gives the same engine and the same
output lines as ``cronlapse script``. A rejected line makes the file invalid (nothing is
printed from it), like a wrong key in a YAML scenario. ``check`` compares the output with a
sibling ``NAME.expected`` file, line by line, when there is one.
"""

from __future__ import annotations

import os
from dataclasses import replace
from itertools import zip_longest

from engine.core import Engine
from engine.facades.script import ScriptSession
from engine.model.problems import Problem
from engine.model.values import value
from engine.scenario.checks import Mismatch
from engine.scenario.errors import Position, ScenarioInvalid
from engine.scenario.runner import Failure
from engine.scenario.yaml_source import read_text

EXPECTED_SUFFIX = ".expected"


def expected_path(path: str) -> str:
    """``scenarios/x.txt`` -> ``scenarios/x.expected``."""
    return os.path.splitext(path)[0] + EXPECTED_SUFFIX


@value
class ScriptRun:
    """A script played to its end by the protocol's session, which holds its output lines, the
    engine it drove, and the commands it applied (what a history replays)."""

    source: str
    session: ScriptSession

    @property
    def output(self) -> tuple[str, ...]:
        return tuple(self.session.result.output)

    @property
    def engine(self) -> Engine:
        engine = self.session.engine
        assert engine is not None  # run_script_file refuses a script without INIT
        return engine


def run_script_file(path: str) -> ScriptRun:
    """Play the script at ``path``; :class:`ScenarioInvalid` lists every rejected line."""
    session = ScriptSession()
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        session.feed(number, line)
    problems = [replace(problem, source=path) for problem in session.result.problems]
    if session.engine is None and not problems:
        problems = [Problem(path, 1, 1, "", "the script is empty: its first command must be INIT")]
    if problems:
        raise ScenarioInvalid(problems)
    return ScriptRun(path, session)


def check_script(run: ScriptRun) -> tuple[list[Failure], int]:
    """The lines that differ from ``NAME.expected`` and how many lines it expects (0, and no
    failures, without such a file)."""
    path = expected_path(run.source)
    if not os.path.exists(path):
        return [], 0
    expected = read_text(path).splitlines()
    failures = []
    for index, (want, got) in enumerate(zip_longest(expected, run.output), start=1):
        if want != got:
            mismatch = Mismatch(_shown(want), _shown(got))
            failures.append(Failure(path, Position(index, 1), mismatch))
    return failures, len(expected)


def _shown(line: str | None) -> str:
    return "end of output" if line is None else repr(line)
