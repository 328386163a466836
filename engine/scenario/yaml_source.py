"""Safe YAML: plain data with source positions, refusing what a hostile file could abuse.

Scenario files come from anywhere, so this module never constructs Python objects. It composes
the file with PyYAML's composer over libyaml's parser (composition keeps every node's start mark)
and turns the nodes into :class:`Scalar`, :class:`Mapping` and :class:`Sequence` values that carry
their 1-based position. On the way it refuses anchors and aliases (the "billion laughs" bomb
needs them, and plain scenarios do not), explicit tags other than the core ones, duplicate keys
(PyYAML silently keeps the last), files over :data:`MAX_BYTES`, more than :data:`MAX_NODES` nodes
and nesting deeper than :data:`MAX_DEPTH`. libyaml reads a few files PyYAML's own parser
wrongly refuses (a tab after a value): those load; a file libyaml refuses is read again by
PyYAML's parser, so a syntax error is always worded as PyYAML words it.

Scalars are resolved with YAML 1.2's core rules rather than PyYAML's YAML 1.1 ones: only
``true``/``false`` are booleans (``on``, ``no`` and ``yes`` stay strings, so ``on:`` can be a key),
``2:30`` is the string a time of day should be (not the sexagesimal integer 150), and ISO
timestamps stay strings for the clock to parse.
"""

from __future__ import annotations

import os
import re
from typing import ClassVar

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from engine.model.problems import Problem
from engine.model.values import value
from engine.scenario.errors import (
    Position,
    Problems,
    ScenarioInvalid,
    located,
    path_index,
    path_key,
)

MAX_BYTES = 5 * 1024 * 1024
"""Largest scenario file read; the 2,000-job demo is a few kilobytes thanks to ``generate``."""
MAX_NODES = 200_000
"""Most YAML nodes in one file: far beyond a hand-written fleet, far below exhausting memory."""
MAX_DEPTH = 64
"""Deepest nesting: PyYAML composes recursively, so an unbounded ``[[[[...`` would overflow."""

_CORE = "tag:yaml.org,2002:"
_NULL, _BOOL, _INT, _FLOAT, _STR = (
    _CORE + name for name in ("null", "bool", "int", "float", "str")
)
_SEQ, _MAP = _CORE + "seq", _CORE + "map"


@value
class Scalar:
    """A plain value: str, int, float, bool or None."""

    value: str | int | float | bool | None
    pos: Position
    text: str
    """The scalar as written (keys are compared by it, so ``1:`` is the key ``"1"``)."""
    poisoned: bool = False
    """A stand-in for something already reported (an alias, a bad tag): never report it again."""
    plain: bool = True
    """Written without quotes (nor as a block): what a YAML 1.1 reader, such as Kubernetes',
    may take for another type (``yes`` a boolean) where a quoted ``'yes'`` stays a string."""


@value
class Mapping:
    """A YAML mapping whose keys are plain scalars, in file order, without duplicates."""

    entries: tuple[tuple[Scalar, Node], ...]
    pos: Position

    def get(self, key: str) -> Node | None:
        for name, item in self.entries:
            if name.text == key:
                return item
        return None


@value
class Sequence:
    items: tuple[Node, ...]
    pos: Position


Node = Scalar | Mapping | Sequence


class _TooLarge(Exception):
    """Composition stopped: the file is bigger or deeper than a scenario may be."""

    def __init__(self, mark: yaml.Mark, message: str) -> None:
        super().__init__(message)
        self.mark = mark


class _CoreResolver(Resolver):
    """YAML 1.2's core schema (see the module's docstring)."""

    yaml_implicit_resolvers: ClassVar[dict] = {}


_CoreResolver.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_CoreResolver.add_implicit_resolver(_INT, re.compile(r"^[-+]?[0-9][0-9_]*$"), list("-+0123456789"))
_CoreResolver.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_CoreResolver.add_implicit_resolver(
    _NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)


class _GuardedComposer(Composer):
    """Composes nodes only; refuses anchors and aliases; counts nodes and depth. The events
    come from libyaml's parser or from PyYAML's (:class:`_CLoader`, :class:`_PythonLoader`)."""

    def __init__(self) -> None:
        super().__init__()
        self.refusals: list[tuple[yaml.Mark, str]] = []
        self.poisoned: set[int] = set()
        """Ids of the stand-in nodes composed for refused aliases."""
        self._nodes = 0
        self._depth = 0
        self._reported_anchors: set[str] = set()

    def compose_node(self, parent, index):
        self._nodes += 1
        if self._nodes > MAX_NODES:
            mark = self.peek_event().start_mark
            raise _TooLarge(mark, f"more than {MAX_NODES:,} YAML nodes: too large for a scenario")
        if self.check_event(AliasEvent):
            event = self.get_event()
            if event.anchor not in self._reported_anchors:
                self.refusals.append((event.start_mark, _anchor_message("alias *", event.anchor)))
            stand_in = ScalarNode(_NULL, "", event.start_mark, event.end_mark)
            self.poisoned.add(id(stand_in))
            return stand_in
        event = self.peek_event()
        if event.anchor is not None:
            self._reported_anchors.add(event.anchor)
            self.refusals.append((event.start_mark, _anchor_message("anchor &", event.anchor)))
            event.anchor = None  # compose it as a plain node; the refusal above stops the load
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _TooLarge(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _PythonLoader(Reader, Scanner, Parser, _GuardedComposer, _CoreResolver):
    """PyYAML's own scanner and parser: the reference, and the one whose syntax errors are
    reported (their wording and marks are what the tests and the docs quote)."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _GuardedComposer.__init__(self)
        _CoreResolver.__init__(self)


if yaml.__with_libyaml__:
    from yaml._yaml import CParser

    class _CLoader(_GuardedComposer, CParser, _CoreResolver):
        """libyaml's scanner and parser under the same composer: six times faster on a
        5,000-job scenario (the Python scanner was nine tenths of a load). Its marks are the
        Python ones (characters, 0-based); a file it refuses is read again by
        :class:`_PythonLoader`, whose message is the one shown."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _GuardedComposer.__init__(self)
            _CoreResolver.__init__(self)

    _LOADERS: tuple[type[_GuardedComposer], ...] = (_CLoader, _PythonLoader)
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADERS = (_PythonLoader,)


def _anchor_message(kind: str, name: str) -> str:
    return (
        f"{kind}{name}: anchors and aliases are not allowed (they are how 'billion laughs' "
        "files explode); write the value out"
    )


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


def read_text(path: str) -> str:
    """The file's text; :class:`ScenarioInvalid` if it is unreadable, too big or not UTF-8."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise unreadable(path, error) from None
    return limited_text(data, path, "the file", size)


def unreadable(source: str, error: OSError) -> ScenarioInvalid:
    """``SOURCE: cannot read: WHY``, the one wording of every command for a file it cannot read."""
    return ScenarioInvalid([located(source, None, "", f"cannot read: {error.strerror}")])


def limited_text(data: bytes, source: str, what: str, size: int = 0) -> str:
    """The text of ``data``, read as at most ``MAX_BYTES + 1`` bytes of ``what`` (``the file``,
    ``standard input``; ``size`` bytes when known); refused when larger than :data:`MAX_BYTES`
    or not UTF-8, so that a file and standard input are held to the same rules."""
    if max(size, len(data)) > MAX_BYTES:
        message = f"{what} is larger than {MAX_BYTES // (1024 * 1024)} MB: too large for a scenario"
        raise ScenarioInvalid([located(source, None, "", message)])
    return utf8_text(data, source)


def utf8_text(data: bytes, source: str) -> str:
    """``data`` decoded; :class:`ScenarioInvalid` at the line and column of the first byte that
    is not UTF-8, so that a script's refusal (``cronlapse script``) is worded as a scenario's."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        message = f"not UTF-8 text: byte 0x{data[error.start]:02x} cannot be decoded"
        pos = Position(line, column)
        raise ScenarioInvalid([located(source, pos, "", message)]) from None


def parse_yaml(text: str, problems: Problems) -> Node:
    """The document in ``text`` as plain positioned data.

    A syntax error, an empty document or a size limit raises :class:`ScenarioInvalid` at once
    (there is nothing to validate); refused anchors, tags and duplicate keys are added to
    ``problems`` and validation goes on, so a file's errors are all reported together.
    """
    roots = _compose(text, problems, single=True)
    if roots[0] is None:
        problems.add(Position(1, 1), "", "the file is empty: expected a mapping with 'scenario:'")
        raise ScenarioInvalid(problems)
    return roots[0]


def parse_yaml_documents(text: str, problems: Problems) -> list[Node]:
    """Every document in ``text`` (``---`` separates them, as in a Kubernetes manifest), each as
    :func:`parse_yaml` reads one; empty documents are left out."""
    return [root for root in _compose(text, problems, single=False) if root is not None]


def _compose(text: str, problems: Problems, single: bool) -> list[Node | None]:
    source = problems.source
    if len(text) > MAX_BYTES:
        message = f"the text is longer than {MAX_BYTES:,} characters: too large for a scenario"
        raise ScenarioInvalid([located(source, None, "", message)])
    try:
        Reader(text)  # checks every character, before any parsing
    except yaml.reader.ReaderError as error:
        pos = _offset_position(text, error.position)
        message = f"character #x{error.character:04x} is not allowed in YAML"
        raise ScenarioInvalid([located(source, pos, "", message)]) from None
    for loader_type in _LOADERS:
        loader = loader_type(text)
        try:
            nodes = _nodes(loader, single)
            break
        except _TooLarge as error:
            raise ScenarioInvalid(
                [located(source, _position(error.mark), "", str(error))]
            ) from None
        except yaml.MarkedYAMLError as error:
            if loader_type is _LOADERS[-1]:
                raise ScenarioInvalid([_syntax_error(error, source)]) from None
        finally:
            loader.dispose()
    for mark, message in loader.refusals:
        problems.add(_position(mark), "", message)
    converter = _Converter(problems, loader.poisoned)
    return [None if node is None else converter.convert(node) for node in nodes]


def _nodes(loader: _GuardedComposer, single: bool) -> list[yaml.Node | None]:
    if single:
        return [loader.get_single_node()]
    nodes = []
    while loader.check_node():
        nodes.append(loader.get_node())
    return nodes


def _syntax_error(error: yaml.MarkedYAMLError, source: str) -> Problem:
    mark = error.problem_mark or error.context_mark
    problem = error.problem or "invalid YAML"
    if error.context and error.context_mark is not None and error.context_mark is not mark:
        problem = f"{problem} ({error.context} at line {error.context_mark.line + 1})"
    pos = _position(mark) if mark is not None else None
    return located(source, pos, "", f"YAML syntax error: {problem}")


def _offset_position(text: str, offset: int) -> Position:
    line = text.count("\n", 0, offset) + 1
    return Position(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


class _Converter:
    """Turns composed nodes into positioned plain data, reporting what it refuses."""

    def __init__(self, problems: Problems, poisoned: set[int]) -> None:
        self.problems = problems
        self.poisoned = poisoned

    def convert(self, node: yaml.Node, path: str = "") -> Node:
        """``node`` as plain data; ``path`` is its key path, for the messages."""
        pos = _position(node.start_mark)
        if isinstance(node, ScalarNode):
            return self._scalar(node, pos, path)
        if node.tag not in (_SEQ, _MAP):
            self.problems.add(pos, path, _tag_message(node.tag))
            return Scalar(None, pos, "", poisoned=True)
        if isinstance(node, SequenceNode):
            items = (self.convert(item, path_index(path, i)) for i, item in enumerate(node.value))
            return Sequence(tuple(items), pos)
        assert isinstance(node, MappingNode)
        entries: list[tuple[Scalar, Node]] = []
        seen: dict[str, Position] = {}
        for key_node, value_node in node.value:
            key_pos = _position(key_node.start_mark)
            if not isinstance(key_node, ScalarNode):
                message = "a key must be a plain name, not a list or a mapping"
                self.problems.add(key_pos, path, message)
                continue
            key = Scalar(key_node.value, key_pos, key_node.value)
            key_path = path_key(path, key.text)
            value = self.convert(value_node, key_path)
            first = seen.get(key.text)
            if first is not None:
                message = f"duplicate key {key.text!r} (first at {first})"
                self.problems.add(key_pos, key_path, message)
                continue
            seen[key.text] = key_pos
            entries.append((key, value))
        return Mapping(tuple(entries), pos)

    def _scalar(self, node: ScalarNode, pos: Position, path: str) -> Scalar:
        text, tag = node.value, node.tag
        if id(node) in self.poisoned:
            return Scalar(None, pos, text, poisoned=True)
        try:
            if tag == _STR:
                return Scalar(text, pos, text, plain=not node.style)  # libyaml: "", PyYAML: None
            if tag == _NULL:
                return Scalar(None, pos, text)
            if tag == _BOOL and text.lower() in ("true", "false"):
                return Scalar(text.lower() == "true", pos, text)
            if tag == _INT:
                return Scalar(int(text.replace("_", "")), pos, text)
            if tag == _FLOAT:
                number = text.replace("_", "")
                if number.lstrip("+-").lower() in (".inf", ".nan"):
                    number = number.replace(".", "", 1)  # YAML's .inf and .nan, Python's inf
                return Scalar(float(number), pos, text)
        except ValueError:  # an explicit !!int on text, or more digits than int() accepts
            pass
        if tag in (_BOOL, _INT, _FLOAT):
            kind = tag.removeprefix(_CORE)
            self.problems.add(pos, path, f"{text[:40]!r} is not a valid {kind}")
        else:
            self.problems.add(pos, path, _tag_message(tag))
        return Scalar(None, pos, text, poisoned=True)


def _tag_message(tag: str) -> str:
    shown = "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag
    return (
        f"tag {shown} is not allowed: scenario files hold plain data only "
        "(mappings, lists, strings, numbers, true/false, null)"
    )
