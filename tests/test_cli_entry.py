"""The ``cronlapse`` program parses a command alone, from its own module (see
cronlapse/cli/entry.py): it must read exactly as the whole command line reads it, and import
none of the other commands' modules."""

from __future__ import annotations

import pytest

from cronlapse.cli.entry import COMMAND_MODULES, command_parser
from cronlapse.cli.main import build_parser

ARGVS = (
    ["serve"],
    ["serve", "--db", "sqlite:///x.db", "--port", "9000", "--speed", "60", "--metrics-public"],
    ["serve", "--role", "api", "--read-db", "postgresql://r/db", "--log-file", "l.jsonl"],
    ["status", "--json"],
    ["worker", "--db", "postgresql://h/db", "--slots", "3", "--name", "n"],
    ["run", "demo.yaml", "--until", "1440", "--jsonl"],
    ["check", "a.yaml", "b.yaml"],
    ["sweep", "demo.yaml", "--vary", "workers=30..70/10", "--no-plot", "--processes", "1"],
    ["explain", "run", "svc-0001@60", "demo.yaml", "--at", "90"],
    ["import", "crontab.txt"],
)


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_a_command_reads_as_the_whole_command_line_reads_it(argv: list[str]) -> None:
    assert vars(command_parser(argv[0]).parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_every_command_of_the_whole_command_line_is_parsed_alone_by_its_module() -> None:
    whole = build_parser()
    (commands,) = [action for action in whole._actions if action.dest == "command"]
    assert set(COMMAND_MODULES) == set(commands.choices)
    for name in COMMAND_MODULES:
        (alone,) = [a for a in command_parser(name)._actions if a.dest == "command"]
        assert list(alone.choices) == [name]
        assert alone.choices[name].format_help() == commands.choices[name].format_help()
