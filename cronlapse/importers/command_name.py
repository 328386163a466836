"""The name of a scheduled command, for its job's id: the program that does the work.

Real crontabs wrap their work: ``cd /srv/app && . ./env.sh && flock -n /tmp/x.lock php artisan
schedule:run >> /var/log/x.log 2>&1`` runs Laravel's scheduler, and a job called ``cd`` or
``flock`` says nothing in the dashboard nor in ``sweep --vary jobs[id=...]``. So the command is
read as the shell reads it (words, quotes, operators, redirections), each of its simple commands
is unwrapped (:data:`~cronlapse.importers.wrappers.WRAPPERS`) down to the program it runs, and
the first that does work names the command; one that only prepares it (``cd``, ``source``,
``test``) or runs inline code (``perl -e '...'``) names it only when nothing else does. A script
is named by its file without its extension, an interpreter by its script, and a task runner by
its task too (:data:`~cronlapse.importers.wrappers.NAMED_WITH_TASK`).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from enum import IntEnum
from pathlib import PurePosixPath

from cronlapse.importers.wrappers import (
    INTERPRETERS,
    NAMED_WITH_TASK,
    PREPARATION,
    SCRIPT_SUFFIXES,
    SHELL_KEYWORDS,
    SHELLS,
    VERSIONED,
    WRAPPERS,
    Interpreter,
    Wrapper,
)

UNNAMED = "job"
"""The name of a command with no program in it (only redirections, or nothing)."""

_SEPARATORS = frozenset({"&&", "||", ";", ";;", "|", "|&", "&", "(", ")", "{", "}"})
_REDIRECTIONS = frozenset({">", ">>", "<", "<<", "<<<", ">&", "<&", "&>", "&>>", ">|", "<>"})
_OPERATOR_RUN = re.compile(r"[();&|<>]+")
_OPERATOR = re.compile(r"&>>|<<<|&&|\|\||;;|\|&|&>|>>|<<|>&|<&|>\||<>|[();&|<>]")
"""The shell's operators, longest first, to split a run the lexer gives as one (``));``)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
_MOST_NESTED = 4
"""How deep ``sh -c "bash -c '...'"`` is followed: real commands nest once or twice."""


class Role(IntEnum):
    """What a simple command is to the whole, best first."""

    WORK = 0
    INLINE = 1
    """An interpreter given code rather than a script: ``perl -e 'sleep int(rand(43200))'``."""
    PREPARATION = 2


@dataclass(frozen=True, slots=True)
class Named:
    name: str
    role: Role


def command_name(command: str) -> str:
    """The name of the program that does the work of the shell command ``command``."""
    named = _named(command, 0)
    return UNNAMED if named is None else named.name


def _named(text: str, depth: int) -> Named | None:
    """The best-named simple command of ``text``: the first of the best role."""
    found = [
        named
        for words in _simple_commands(_tokens(text))
        if (named := _name_of(words, depth)) is not None
    ]
    return min(found, key=lambda named: named.role, default=None)


def _tokens(text: str) -> list[str]:
    """The shell's words and operators, one operator a token; words split at blanks and quotes
    if the quotes do not close."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return re.sub(r"[\"']", " ", text).split()
    return [
        part
        for token in tokens
        for part in (_OPERATOR.findall(token) if _OPERATOR_RUN.fullmatch(token) else [token])
    ]


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    """The words of each simple command, without redirections and the shell's keywords."""
    commands: list[list[str]] = []
    current: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "(" and index > 0 and tokens[index - 1].endswith("$"):
            index = _after_substitution(tokens, index)  # ``$(date +%F)``: part of a word
            continue
        if token in _SEPARATORS:
            if current:
                commands.append(current)
            current = []
        elif token in _REDIRECTIONS:
            if current and current[-1].isdigit():
                current.pop()  # the file descriptor of ``2>&1``
            index += 1  # the redirection's target
        elif current or token not in SHELL_KEYWORDS:
            current.append(token)
        index += 1
    if current:
        commands.append(current)
    return commands


def _after_substitution(tokens: list[str], opening: int) -> int:
    """The index after the ``)`` that closes the ``(`` at ``opening``."""
    depth = 0
    for index in range(opening, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[index], 0)
        if depth == 0:
            return index + 1
    return len(tokens)


def _name_of(words: list[str], depth: int) -> Named | None:
    """The program a simple command runs, unwrapped, and its role."""
    while words:
        word = words[0]
        if _ASSIGNMENT.fullmatch(word):
            words = words[1:]
            continue
        program = word if word == "." else PurePosixPath(word).name
        key = _table_key(program)
        if key in PREPARATION:
            return Named(program, Role.PREPARATION)
        wrapper = _wrapper(key, words[1:])
        if wrapper is not None:
            words, shell_text = _unwrapped(wrapper, words[1 + len(wrapper.subcommand) :])
            if shell_text is not None:
                return _named(shell_text, depth + 1) if depth < _MOST_NESTED else None
            continue
        interpreter = INTERPRETERS.get(key)
        if interpreter is not None:
            return _interpreted(key, interpreter, words[1:], depth)
        return Named(_with_task(_script_name(word), words[1:]), Role.WORK)
    return None


def _table_key(program: str) -> str:
    """How the tables know ``program``: ``python3.11`` as ``python``."""
    versioned = VERSIONED.fullmatch(program)
    if program not in INTERPRETERS and versioned and versioned["name"] in INTERPRETERS:
        return versioned["name"]
    return program


def _wrapper(program: str, arguments: list[str]) -> Wrapper | None:
    for wrapper in WRAPPERS.get(program, ()):
        if tuple(arguments[: len(wrapper.subcommand)]) == wrapper.subcommand:
            return wrapper
    return None


def _unwrapped(wrapper: Wrapper, arguments: list[str]) -> tuple[list[str], str | None]:
    """The wrapped command's words after ``wrapper``'s options and operands, or the shell text
    an option gives it (``flock FILE -c 'CMD'``)."""
    operands = wrapper.operands
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            index += 1
            if operands == 0:
                break
            continue
        if argument.startswith("-"):
            option, attached, value = argument.partition("=")
            if option in wrapper.command_option:
                given = value if attached else _at(arguments, index + 1)
                return [], given or ""
            if option in wrapper.valued and not attached:
                index += 1
        elif operands > 0:
            operands -= 1
        else:
            break
        index += 1
    return arguments[index:], None


def _interpreted(
    program: str, interpreter: Interpreter, arguments: list[str], depth: int
) -> Named | None:
    """What an interpreter runs: its script, its module, or code inline (a shell's ``-c`` is
    read as a command of its own)."""
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            index += 1
            break
        if not argument.startswith("-"):
            break
        option, attached, value = argument.partition("=")
        given = value if attached else _at(arguments, index + 1)
        if program in SHELLS and not option.startswith("--") and "c" in option[1:]:
            return _named(given or "", depth + 1) if depth < _MOST_NESTED else None
        if option in interpreter.inline:
            return Named(program, Role.INLINE)
        if option in interpreter.script_option and given:
            return Named(_script_name(given), Role.WORK)
        if option in interpreter.module_option and given:
            return Named(given.rpartition(".")[2], Role.WORK)
        if option in interpreter.valued and not attached:
            index += 1
        index += 1
    script = _at(arguments, index)
    if script is None:
        return Named(program, Role.WORK)
    return Named(_with_task(_script_name(script), arguments[index + 1 :]), Role.WORK)


def _script_name(word: str) -> str:
    """A program's or script's file name, without a script's extension."""
    path = PurePosixPath(word)
    return path.stem if path.suffix in SCRIPT_SUFFIXES else path.name or word


def _with_task(name: str, arguments: list[str]) -> str:
    """``name``, and for a task runner the task it is given (its first word not an option)."""
    if name not in NAMED_WITH_TASK:
        return name
    task = next((word for word in arguments if not word.startswith("-")), None)
    return name if task is None else f"{name}-{PurePosixPath(task).name}"


def _at(words: list[str], index: int) -> str | None:
    return words[index] if index < len(words) else None
