"""Outside the kernel, an engine's state is read through its one query API (``engine.query``).

Every product module above the kernel (the scenario language, the seed facades, the application
and the dashboard) is parsed, and an attribute access of one of the engine's parts or tables, or
of any other public member of an Engine that is not one of those that stay, on an expression
naming an engine (``engine.jobs``, ``self.engine.cursors``, ``history.engine.occurrences``,
``self._engine.outbox``, ``engine_ref().workers``) fails the test: such a read ties the module
to how the kernel keeps its state, which the query API is there to hide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.core import Engine

ROOT = Path(__file__).resolve().parents[1]
ABOVE_THE_KERNEL = ("engine/scenario", "engine/facades", "cronlapse", "tui")

PARTS_AND_TABLES = frozenset(
    {
        "attempts",
        "backfills",
        "by_state",
        "cursors",
        "deadlines",
        "dependencies",
        "dispatcher",
        "jobs",
        "journal",
        "lifecycle",
        "notifications",
        "occurrences",
        "outbox",
        "overlap",
        "pools",
        "rng",
        "run_dependencies",
        "start_deadlines",
        "store",
        "timers",
        "workers",
        "workforce",
    }
)
"""The engine's parts and the tables it keeps for reading: named here as well as found on an
Engine below, so that the line holds once they are private too."""

STAYS = frozenset(
    {
        # the clock, the configuration (whether it archives too), the event log and the seeded
        # generator's draws
        "now",
        "policy",
        "seed",
        "archives",
        "log",
        "random_words",
        # the one read API
        "query",
        # commands
        "apply",
        "schedule",
        "schedule_checked",
        "register_worker",
        "complete",
        "modify",
        "cancel_occurrence",
        "delete",
        "pause",
        "resume",
        "script_failure",
        # time
        "advance",
        "settle",
        "begin_tick",
        "dispatch",
        "next_event_tick",
        # forgetting finished history (an engine that archives)
        "forget_archived",
    }
)
"""The Engine's public members that code above the kernel may use."""


def _public_members() -> set[str]:
    return {name for name in dir(Engine()) if not name.startswith("_")}


FORBIDDEN = PARTS_AND_TABLES | (_public_members() - STAYS)


def _names_an_engine(node: ast.expr) -> bool:
    """``engine``, ``x.engine``, ``self._engine``, ``engine_ref()``, ``self._ready_engine()``:
    a name, attribute or call whose identifier says it is an engine."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    else:
        return False
    name = name.lstrip("_")
    return name == "engine" or name.endswith("_engine") or name.startswith("engine_")


def reads_past_the_query_api(source: str) -> list[str]:
    """``line N: expression`` for each forbidden member read on an expression naming an
    engine."""
    found = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in FORBIDDEN
        and _names_an_engine(node.value)
    ]
    found.sort(key=lambda node: (node.lineno, node.col_offset))
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in found]


def _modules() -> list[Path]:
    return sorted(path for top in ABOVE_THE_KERNEL for path in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_state_is_read_through_the_query_api(path: Path) -> None:
    assert reads_past_the_query_api(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("source", "read"),
    [
        ("engine.jobs", "engine.jobs"),
        ("len(engine.occurrences)", "engine.occurrences"),
        ("self.engine.by_state[state]", "self.engine.by_state"),
        ("history.engine.cursors.live(job_id)", "history.engine.cursors"),
        ("self._engine.journal.keyframes", "self._engine.journal"),
        ("engine_ref().outbox[key]", "engine_ref().outbox"),
        ("self._ready_engine().workers", "self._ready_engine().workers"),
        ("x = 1\nif context.engine.rng.random():\n    pass", "context.engine.rng"),
    ],
)
def test_the_check_catches_a_read_past_the_query_api(source: str, read: str) -> None:
    line = source.count("\n", 0, source.index(read)) + 1
    assert reads_past_the_query_api(source) == [f"line {line}: {read}"]


@pytest.mark.parametrize(
    "source",
    [
        "engine.query.jobs()",
        "engine.query.record(job_id, tick)",
        "history.engine.now",
        "engine.apply(command)",
        "stats.jobs",
        "fleet.workers",
        "sql_engine.connect()",
    ],
)
def test_the_check_lets_the_query_api_and_other_objects_pass(source: str) -> None:
    assert reads_past_the_query_api(source) == []


def test_the_members_that_stay_are_an_engines() -> None:
    assert STAYS - _public_members() == set()
