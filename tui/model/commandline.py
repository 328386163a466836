"""The command line: what users type after ``:``, as engine commands or dashboard actions.

Engine commands are the verbs of :mod:`engine.scenario.vocabulary`, the table a scenario's
timeline reads too: ``schedule x priority=high`` here is ``schedule: {id: x, priority: high}`` in
a file, builds the same command and is refused with the same message. The dashboard's own
commands (``goto``, ``open``...) are :data:`APP_COMMANDS`. Parsing never raises anything but
:class:`CommandError`, whose message is shown under the command line.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from engine.core import Engine
from engine.scenario.command_reader import engine_zones
from engine.scenario.model import Action
from engine.scenario.vocabulary import VERBS, CommandLineError, Verb, read_words
from engine.schedules.clock import Clock


class CommandError(ValueError):
    """A line that is not a command; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class AppCommand:
    """A dashboard action typed as a word (what a key does)."""

    name: str
    usage: str
    summary: str
    args: tuple[str, ...] = ()
    """What each word after the name is, for completion: ``path`` or ``text``."""


APP_COMMANDS: dict[str, AppCommand] = {
    spec.name: spec
    for spec in (
        AppCommand(
            "goto", "goto TICK|+N|-N|+2h|HH:MM|ISO-TIME", "go to a tick or a time", ("text",)
        ),
        AppCommand("speed", "speed N", "play speed in event ticks per second", ("text",)),
        AppCommand("redo", "redo", "bring back the future the last command replaced"),
        AppCommand("compare", "compare", "the future the last command replaced beside this one"),
        AppCommand(
            "sweep",
            "sweep KEY=VALUES... [metric=M,...] [target=EXPR] [replicas=N] | sweep | sweep stop",
            "play the file many ways in the background (workers, policies, seeds)",
            ("text",),
        ),
        AppCommand("filter", "filter TEXT", "filter the focused table (words, !word)", ("text",)),
        AppCommand("open", "open PATH", "open a scenario or a script", ("path",)),
        AppCommand("reload", "reload", "reload the file from disk"),
        AppCommand(
            "export", "export [PATH]", "write the attempts as a Chrome trace or .csv", ("path",)
        ),
        AppCommand("help", "help", "show keys and commands"),
        AppCommand("quit", "quit", "leave the dashboard"),
    )
}

COMMANDS: dict[str, Verb | AppCommand] = {**VERBS, **APP_COMMANDS}
"""Everything the command line takes, in the order help lists it."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed line: an engine command (or status query), or a dashboard action and its words."""

    name: str
    command: Action | None = None
    args: tuple[str, ...] = ()


def parse(text: str, engine: Engine, clock: Clock | None) -> Parsed:
    """Parse one command line; :class:`CommandError` says what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise CommandError(f"cannot split the line into words: {error}") from None
    if not words:
        raise CommandError("type a command; tab completes, ? lists them all")
    name, args = words[0].lower(), words[1:]
    if name in APP_COMMANDS:
        return Parsed(name, None, tuple(args))
    verb = VERBS.get(name)
    if verb is None:
        close = [known for known in COMMANDS if known.startswith(name[:2])]
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CommandError(f"unknown command {words[0]!r}{hint}")
    try:
        return Parsed(name, read_words(verb, args, engine.now, clock, engine_zones(engine)))
    except CommandLineError as error:
        raise CommandError(str(error)) from None
