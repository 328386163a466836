"""The engine's shape, checked: small modules, and parts that keep out of each other's state.

The engine is composed of parts that each own their state (docs/architecture.md). A part may
call another's public methods; reading or writing another object's ``_private`` attribute would
tie the two together again, so the only private attributes a module of ``engine/`` touches are
its own objects' (``self._x``, ``cls._x``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))
MAX_LINES = 400


def _name(path: Path) -> str:
    return str(path.relative_to(ENGINE.parent))


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_engine_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_name(path)} has {lines} lines: split it"


def foreign_private_uses(source: str) -> list[str]:
    """``x._name`` where ``x`` is not ``self``, ``cls`` or an imported module (a library's own
    business, such as ``argparse._SubParsersAction``); dunders are allowed."""
    tree = ast.parse(source)
    modules = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in {"self", "cls", *modules}:
            continue
        found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_engine_module_reaches_into_another_objects_private_state(path: Path) -> None:
    assert foreign_private_uses(path.read_text(encoding="utf-8")) == []


def test_the_private_state_check_sees_a_reach_into_another_part() -> None:
    source = "def f(self, engine):\n    self._ok = 1\n    return engine.store._records\n"
    assert foreign_private_uses(source) == ["line 3: engine.store._records"]
