"""The layers, checked: every import of the product's code points down (docs/architecture.md).

From the bottom up: the kernel (``engine/`` but its language), the scenario language
(``engine/scenario``), then above the engine the importers and the analyses, the exports and
the source opener, the service, the dashboard, and the command line at the top. A layer may
import its own modules and the layers the table gives it, nothing else of the project; third
parties are named where a layer must not load them. Imports inside functions and under
``TYPE_CHECKING`` count: they are still the code's dependencies.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "tui", "cronlapse")


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]
    """The dotted prefixes that make up the layer (the longest matching prefix wins)."""
    may_import: tuple[str, ...] = ()
    """Dotted prefixes of the project it may import, besides its own modules."""
    may_import_exactly: tuple[str, ...] = ()
    """Modules it may import by that name only (an interface, not what is behind it)."""
    never: tuple[str, ...] = ()
    """Third-party packages it must not import."""


KERNEL = ("engine",)
LANGUAGE = ("engine.scenario",)
UI = ("textual", "rich", "plotext", "textual_plotext")
SQL_AND_HTTP = ("sqlalchemy", "psycopg", "starlette", "uvicorn")
SERVICE_LIBRARIES = (*SQL_AND_HTTP, "httpx", "aiosmtplib")

LAYERS = (
    Layer("kernel", KERNEL, never=(*UI, *SERVICE_LIBRARIES, "yaml")),
    Layer("language", LANGUAGE, KERNEL, never=UI + SERVICE_LIBRARIES),
    Layer("importers", ("cronlapse.importers",), KERNEL, never=UI + SERVICE_LIBRARIES),
    Layer("analyses", ("cronlapse.analyses",), KERNEL, never=("textual", *SERVICE_LIBRARIES)),
    Layer("exports", ("cronlapse.exports",), (*KERNEL, "cronlapse.analyses"), never=("textual",)),
    Layer("sources", ("cronlapse.sources", "cronlapse.bundled"), (*KERNEL, "cronlapse.importers")),
    Layer(
        "service",
        ("cronlapse.service",),
        (*KERNEL, "cronlapse.importers", "cronlapse.analyses", "cronlapse.exports"),
        never=("textual",),
    ),
    Layer(
        "dashboard",
        ("tui",),
        (
            *KERNEL,
            "cronlapse.importers",
            "cronlapse.analyses",
            "cronlapse.exports",
            "cronlapse.sources",
            "cronlapse.bundled",
        ),
        may_import_exactly=("cronlapse.service.store",),
        never=SQL_AND_HTTP,
    ),
    Layer("command line", ("cronlapse.cli", "cronlapse.__main__"), ("engine", "tui", "cronlapse")),
    Layer("application", ("cronlapse",)),
)
"""From the bottom up. ``engine`` in ``may_import`` is the kernel and its language: a prefix
takes in every module under it, so the kernel, which may import only itself, has none."""


def layer_of(module: str) -> Layer:
    """The layer whose prefix matches ``module`` longest."""
    matches = [
        (len(prefix), layer)
        for layer in LAYERS
        for prefix in layer.modules
        if module == prefix or module.startswith(prefix + ".")
    ]
    assert matches, f"{module} is on no layer: add it to LAYERS"
    return max(matches, key=lambda match: match[0])[1]


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(source: str) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every absolute import: ``from a import b`` is ``a.b`` when that is
    a module of the project, else ``a``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                yield node.lineno, full if _is_module(full) else node.module


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_modules() -> list[Path]:
    return sorted(p for top in PROJECT for p in (ROOT / top).rglob("*.py"))


def wrong_imports(module: str, source: str) -> list[str]:
    """What ``module`` (whose text is ``source``) imports that its layer may not."""
    layer = layer_of(module)
    found = []
    for line, imported in imports_of(source):
        top = imported.split(".")[0]
        if top in PROJECT:
            target = layer_of(imported)
            allowed = (
                target is layer
                or imported in layer.may_import_exactly
                or (
                    _within(imported, layer.may_import)
                    and target is not layer_of(module)
                    and _below(layer, target)
                )
            )
            if not allowed:
                found.append(f"line {line}: {imported} (the {target.name} layer)")
        elif top in layer.never:
            found.append(f"line {line}: {imported} (a library the {layer.name} layer never loads)")
    return found


def _below(layer: Layer, target: Layer) -> bool:
    return LAYERS.index(target) < LAYERS.index(layer)


def _case(path: Path) -> object:
    return pytest.param(path, id=str(path.relative_to(ROOT)))


@pytest.mark.parametrize("path", [_case(path) for path in product_modules()])
def test_every_import_points_down(path: Path) -> None:
    assert wrong_imports(module_name(path), path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("module", "source", "found"),
    [
        ("engine.parts.cursors", "from engine.scenario.model import Scenario", "language"),
        ("engine.core", "import rich", "never loads"),
        ("engine.scenario.runner", "from cronlapse.analyses.stats import run_stats", "analyses"),
        ("cronlapse.analyses.stats", "from cronlapse.importers import crontab", "importers"),
        ("tui.model.live", "from cronlapse.service.store.sql import SqlStore", "service"),
        ("tui.model.live", "from sqlalchemy import select", "never loads"),
        ("cronlapse.service.api", "from tui.app import DashboardApp", "dashboard"),
        ("tui.app", "from cronlapse.cli.tui import run", "command line"),
    ],
)
def test_the_check_sees_an_import_that_points_up(module: str, source: str, found: str) -> None:
    (problem,) = wrong_imports(module, source)
    assert found in problem


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("engine.scenario.runner", "from engine.core import Engine"),
        ("tui.model.live", "from cronlapse.service.store import JournalReader"),
        ("cronlapse.cli.main", "from tui.app import DashboardApp"),
        ("cronlapse.exports.report", "from cronlapse.analyses.stats import RunStats"),
    ],
)
def test_the_check_lets_an_import_that_points_down_pass(module: str, source: str) -> None:
    assert wrong_imports(module, source) == []


def test_the_architecture_page_lists_the_layers_in_their_order() -> None:
    """docs/architecture.md's table of layers is this module's, from the bottom up."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("| layer | where | may import (besides itself) |", 1)[1]
    rows = itertools.takewhile(lambda line: line.startswith("| "), table.splitlines()[2:])
    assert [row.split("|")[1].strip() for row in rows] == [layer.name for layer in LAYERS]
