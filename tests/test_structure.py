"""The product's shape, checked: objects that keep out of each other's state.

The engine is composed of parts that each own their state, and everything above it reads that
state through the query API (docs/architecture.md). An object may call another's public methods;
reading or writing another object's ``_private`` attribute would tie the two together again, so
the only private attributes a module of the product touches are its own objects' (``self._x``,
``cls._x``). Module size is a habit, not a rule: tests/test_layers.py checks what matters, the
direction of every import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p for top in ("engine", "cronlapse", "tui") for p in (ROOT / top).rglob("*.py"))
LIBRARY_PRIVATES = {
    "tui/widgets/screen_lines.py": ["line 74: widget._scroll_update"],
}
"""Reaches into a library's private API, each explained where it is made (Textual's own way to
update scrollbars without laying out the screen)."""


def _case(path: Path) -> object:
    return pytest.param(path, id=str(path.relative_to(ROOT)))


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


@pytest.mark.parametrize("path", [_case(path) for path in MODULES])
def test_no_module_reaches_into_another_objects_private_state(path: Path) -> None:
    expected = LIBRARY_PRIVATES.get(str(path.relative_to(ROOT)), [])
    assert foreign_private_uses(path.read_text(encoding="utf-8")) == expected


def test_the_private_state_check_sees_a_reach_into_another_part() -> None:
    source = "def f(self, engine):\n    self._ok = 1\n    return engine.store._records\n"
    assert foreign_private_uses(source) == ["line 3: engine.store._records"]
