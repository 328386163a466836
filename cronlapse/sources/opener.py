"""Opening a source: the one place that reads a path (or standard input) and makes of it what it
is, for every front end (run, check, export, explain, compare, sweep, backfill, the dashboard).

A scenario is parsed and validated; a seed 001 script is played to its end (a rejected line makes
it invalid, as a wrong key makes a scenario invalid); a crontab, Kubernetes manifests or a
systemd timer is imported with ``cronlapse import``'s defaults and its scenario parsed. What a
front end does with it (play it, replay it, ask why) is the front end's business; which kinds it
takes, too: a front end that reads only scenarios refuses a script in its own words.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from cronlapse.importers.files import ImportProblems
from cronlapse.sources.recognise import SourceKind, recognise
from cronlapse.sources.stdin import STDIN, STDIN_NAME, stdin_text
from engine.model.problems import Problem
from engine.model.values import value
from engine.scenario import Scenario, ScenarioInvalid, ScriptRun, run_script_file
from engine.scenario.validate import Document, parse_document
from engine.scenario.yaml_source import read_text


@value
class Source:
    """A source opened: what it is, and the scenario or the played script it amounts to."""

    source: str
    """Its name in messages: the path as given, or ``<stdin>``."""
    kind: SourceKind
    name: str
    """What the run is called: the scenario's name, else the file's."""
    scenario: Scenario | None = None
    """The scenario, for every kind but a script."""
    script: ScriptRun | None = None
    """The script played to its end, for a script."""
    text: str = ""
    """The YAML the scenario was read from: the file's, standard input's, or the one an
    importer wrote (a sweep edits it, ``explain missed`` reads its document); empty for a
    script."""
    not_imported: tuple[str, ...] = ()
    """``file:line: why`` for each thing an importer could not bring in."""
    document: Document | None = field(default=None, compare=False, repr=False)
    """The parsed ``text`` and the jobs its load read, for a scenario's file or standard input:
    a sweep edits this tree, and its variants find the jobs it did not edit already read. What
    the source is does not depend on it (it is ``text`` parsed): not compared, not shown."""

    @property
    def played(self) -> Scenario | ScriptRun:
        """The scenario, or the played script."""
        played = self.scenario if self.script is None else self.script
        assert played is not None
        return played

    @property
    def notices(self) -> tuple[str, ...]:
        """What a front end tells the user on opening it."""
        return tuple(f"not imported: {reason}" for reason in self.not_imported)


class SourceInvalid(Exception):
    """A source that cannot be opened; ``problems`` holds every reason, in the order found."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.source = source
        self.problems = problems


def open_source(path: str | Path, *, stdin: bool = True) -> Source:
    """The source at ``path`` (``-``: a scenario on standard input, unless ``stdin`` is False,
    as for the dashboard, which reloads its file); :class:`SourceInvalid` with every problem."""
    path = str(path)
    from_stdin = stdin and path == STDIN
    source = STDIN_NAME if from_stdin else path
    try:
        if from_stdin:
            return _scenario(source, stdin_text())
        kind = recognise(path)
        if kind is SourceKind.SCRIPT:
            return Source(path, kind, Path(path).stem, script=run_script_file(path))
        if kind.imported:
            # The importers (crontab, Kubernetes, systemd) are imported when a file needs one:
            # most runs are of scenarios, and they cost a tenth of a short run's imports.
            from cronlapse.importers.fleet import ImportOptions, import_fleet

            fleet = import_fleet(kind.value, [path], ImportOptions())
            name = _name(fleet.scenario, path)
            return Source(path, kind, name, fleet.scenario, None, fleet.text, fleet.skipped)
        return _scenario(path, read_text(path))
    except ScenarioInvalid as invalid:
        raise SourceInvalid(source, invalid.problems) from None
    except ImportProblems as problems:
        raise SourceInvalid(source, problems.problems) from None


def _scenario(source: str, text: str) -> Source:
    scenario, document = parse_document(text, source)
    name = _name(scenario, source)
    return Source(source, SourceKind.SCENARIO, name, scenario, text=text, document=document)


def _name(scenario: Scenario, source: str) -> str:
    return scenario.name or Path(source).stem
