"""``timeline:``: engine commands at ticks, each optionally with the answer it must give.

An entry is ``{at: TICK, COMMAND: {...}, expect: ANSWER}``. The commands are the table of
:mod:`engine.scenario.vocabulary`, shared with the dashboard's command line: the engine's own
commands plus ``status``, a read-only query like seed 000's ``getJobStatus``. References to jobs
and workers are collected as :class:`Reference` values and checked by the loader once every
definition in the file is known.
"""

from __future__ import annotations

from engine.model import commands as cmd
from engine.model.digits import is_digits
from engine.model.records import OccurrenceState
from engine.model.values import value
from engine.scenario.checks import (
    OUTCOME_NAMES,
    Accepted,
    Answer,
    Assignments,
    OutcomeIs,
    StateIs,
    StatusQuery,
)
from engine.scenario.command_reader import CommandReader, Reference
from engine.scenario.errors import Position, one_of, path_key
from engine.scenario.model import Action
from engine.scenario.vocabulary import VERBS
from engine.scenario.yaml_source import Node, Scalar, Sequence

__all__ = ["COMMAND_KEYS", "RawEntry", "Reference", "TimelineReader"]

COMMAND_KEYS = tuple(VERBS)
"""The commands: one table with the dashboard's command line."""
ENTRY_KEYS = ("at", "expect", *COMMAND_KEYS)

_HTTP = {outcome.value: outcome for outcome in cmd.Outcome}


@value
class RawEntry:
    """A timeline entry before sorting: its position in the file keeps ties in file order."""

    tick: int
    action: Action
    expected: Answer | None
    pos: Position
    at_node: Node


class TimelineReader(CommandReader):
    """Reads the ``timeline:`` list; collects references and job definitions for the loader."""

    def read(self, node: Node) -> list[RawEntry]:
        entries = []
        for path, item in self.reader.items(node, "timeline", "a list of {at: TICK, COMMAND: ...}"):
            entry = self._entry(item, path)
            if entry is not None:
                entries.append(entry)
        return entries

    def _entry(self, node: Node, path: str) -> RawEntry | None:
        fields = self.reader.mapping(node, path, ENTRY_KEYS, required=("at",))
        if fields is None:
            return None
        given = [key for key in fields if key in COMMAND_KEYS]
        if not given:
            self.reader.error(node, path, f"expected one command: {one_of(COMMAND_KEYS)}")
            return None
        for extra in given[1:]:
            self.reader.error(
                fields[extra], path_key(path, extra), f"one command per entry; {given[0]} is given"
            )
        if "at" not in fields or len(given) > 1:
            return None
        tick = self.reader.tick(fields["at"], path_key(path, "at"))
        key = given[0]
        expect = fields.get("expect")
        lenient = expect is not None
        # A wrong tick is reported; the command is still read (at tick 0) for its own problems.
        action = self.command(VERBS[key], fields[key], path_key(path, key), tick or 0, lenient)
        if action is None or tick is None:
            return None
        expected = None
        if expect is not None:
            expected = self._answer(action, expect, path_key(path, "expect"))
            if expected is None:
                return None
        pos = expect.pos if expect is not None else node.pos
        return RawEntry(tick, action, expected, pos, fields["at"])

    # --------------------------------------------------------------- answers

    def _answer(self, action: Action, node: Node, path: str) -> Answer | None:
        value = node.value if isinstance(node, Scalar) else None
        if isinstance(action, StatusQuery):
            states = {state.name: state for state in OccurrenceState}
            if value == "":
                return StateIs(None)
            state = self.reader.choice(node, path, states)
            return None if state is None else StateIs(state)
        if isinstance(node, Sequence) and isinstance(action, cmd.Dispatch):
            lines = [self._assignment(item, f"{path}[{i}]") for i, item in enumerate(node.items)]
            return None if None in lines else Assignments(tuple(lines))  # type: ignore[arg-type]
        if isinstance(value, bool):
            return Accepted(value)
        if isinstance(value, int) and value in _HTTP:
            return OutcomeIs(_HTTP[value])
        if isinstance(value, str):
            outcome = self.reader.choice(node, path, OUTCOME_NAMES)
            return None if outcome is None else OutcomeIs(outcome)
        what = "true, false, an outcome (created, ok, not_found, conflict, invalid), an HTTP status"
        if isinstance(action, cmd.Dispatch):
            what += ' or a list of "job,scheduled,attempt,worker"'
        self.reader.expected(node, path, what)
        return None

    def _assignment(self, node: Node, path: str) -> str | None:
        text = node.value if isinstance(node, Scalar) else None
        parts = text.split(",") if isinstance(text, str) else []
        if len(parts) != 4 or not is_digits(parts[1]) or not is_digits(parts[2]):
            self.reader.expected(
                node, path, '"job,scheduled,attempt,worker" such as "report,10,1,w-a"'
            )
            return None
        return text
