"""The ``cronlapse`` program parses the service's commands alone (see cronlapse/cli/entry.py):
they must read exactly as the whole command line reads them."""

from __future__ import annotations

import pytest

from cronlapse.cli.entry import service_parser
from cronlapse.cli.main import build_parser

ARGVS = (
    ["serve"],
    ["serve", "--db", "sqlite:///x.db", "--port", "9000", "--speed", "60", "--metrics-public"],
    ["serve", "--role", "api", "--read-db", "postgresql://r/db", "--log-file", "l.jsonl"],
    ["status", "--json"],
    ["worker", "--db", "postgresql://h/db", "--slots", "3", "--name", "n"],
)


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_a_service_command_reads_as_the_whole_command_line_reads_it(argv: list[str]) -> None:
    assert vars(service_parser(argv[0]).parse_args(argv)) == vars(build_parser().parse_args(argv))
