"""The kernel's wiring, checked: its subpackages import each other in one order, no part holds the
engine, and each timer kind reaches its handler, in the documented order within a tick.

The order of the kernel's subpackages, from the bottom up (tests/test_layers.py checks the layers
above the kernel):

    model, schedules  <  rewind  <  parts, rules  <  query  <  core  <  play  <  facades

Subpackages on one level may import each other. The parts and the rules are one level: a rule acts
through the parts it is given (it sets timers, pushes runs into the ready queue), and the parts
that drive a run (attempts, dispatcher, lifecycle) are connected to the rules they consult, whose
classes they name in their signatures. At run time only a few of those imports are made (the
timers' kinds and the ready queue's entries for the rules, one function of the missed-runs rule
for the lifecycle); the others are names for type checking. What holds at run time is checked
too: the kernel's imports form no circle. Imports under ``TYPE_CHECKING`` and inside functions
count as imports for the order: they are still the code's dependencies.
"""

from __future__ import annotations

import ast
import contextlib
import heapq
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Engine, timer_handlers
from engine.model.policies import Policy
from engine.parts.attempts import Attempts
from engine.parts.notifications import Outbox
from engine.parts.timers import TimerKind
from engine.rewind.heap import Heap
from engine.rules.deadlines import Deadlines
from engine.rules.start_deadlines import StartDeadlines

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"

LEVELS: dict[str, int] = {
    "model": 0,
    "schedules": 0,
    "rewind": 1,
    "parts": 2,
    "rules": 2,
    "query": 3,
    "core": 4,
    "play": 5,
    "facades": 6,
}
"""The kernel's subpackages (and ``engine/core.py``) by level, from the bottom up."""

LOWER = ("model", "schedules", "rewind", "parts", "rules", "query")
"""The subpackages below the composition root: they never import the engine (the query is given
the parts it reads by the engine that composes them)."""

DOCUMENTED_ORDER = [
    TimerKind.ATTEMPT_END,
    TimerKind.TIMEOUT,
    TimerKind.BACKOFF_END,
    TimerKind.NOTIFICATION_TRY,
    TimerKind.DEADLINE,
    TimerKind.START_DEADLINE,
    TimerKind.RUN_TIMEOUT,
]
"""A tick's own events, in their order (docs/architecture.md, "Tick order": attempt completions,
then timeouts, then backoff expiries, then notification delivery tries; then the deadline, the
start deadline and the run timeout, each after the attempts that end in the tick)."""

OTHER_HANDLERS = [
    (Attempts, "timeout_reached"),
    (Attempts, "backoff_ended"),
    (Outbox, "try_delivery"),
    (Deadlines, "check"),
    (StartDeadlines, "check"),
    (Attempts, "run_timeout_reached"),
]
"""Every method a timer may call but an attempt's end (``Attempts.duration_over``), each replaced
by a recorder in the tests of the order."""


def kernel_modules() -> Iterator[tuple[str, Path]]:
    """``(subpackage, path)`` of every module on a level (``core`` for engine/core.py)."""
    yield "core", ENGINE / "core.py"
    for subpackage in LEVELS:
        if subpackage != "core":
            for path in sorted((ENGINE / subpackage).rglob("*.py")):
                yield subpackage, path


def engine_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of every absolute import of the engine in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            if name == "engine" or name.startswith("engine."):
                yield node.lineno, name


def subpackage_of(module: str) -> str | None:
    """The level's name of an engine module (None: the language or the package itself)."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    return name if name in LEVELS else None


def runtime_imports(tree: ast.Module) -> Iterator[str]:
    """The engine modules a module imports when it is loaded: at its top level, outside
    ``if TYPE_CHECKING:`` blocks and functions."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("engine."):
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("engine."))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_import_within_the_kernel_points_down_or_across_its_level() -> None:
    wrong = []
    for subpackage, path in kernel_modules():
        for line, imported in engine_imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = subpackage_of(imported)
            if target is None or LEVELS[target] > LEVELS[subpackage]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {imported}")
    assert wrong == []


def test_the_lower_subpackages_never_import_the_engine_or_its_players() -> None:
    above = ("engine.core", "engine.play", "engine.facades")
    found = [
        f"{path.relative_to(ROOT)}:{line}: {imported}"
        for subpackage, path in kernel_modules()
        if subpackage in LOWER
        for line, imported in engine_imports(ast.parse(path.read_text(encoding="utf-8")))
        if imported == "engine"
        or imported.startswith(above)
        or (subpackage != "query" and imported.startswith("engine.query"))
    ]
    assert found == []


def test_the_kernel_imports_form_no_circle_at_run_time() -> None:
    graph: dict[str, set[str]] = {}
    for _, path in kernel_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[module_name(path)] = set(runtime_imports(tree))
    state: dict[str, str] = {}

    def circle_from(module: str, trail: list[str]) -> list[str] | None:
        if state.get(module) == "open":
            return [*trail[trail.index(module) :], module]
        if module in state or module not in graph:
            return None
        state[module] = "open"
        for imported in sorted(graph[module]):
            found = circle_from(imported, [*trail, module])
            if found is not None:
                return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        circle = circle_from(module, [])
        assert circle is None, " imports ".join(circle)


def test_the_check_sees_an_import_of_the_engine_from_a_part() -> None:
    tree = ast.parse("if TYPE_CHECKING:\n    from engine.core import Engine\n")
    assert [subpackage_of(module) for _, module in engine_imports(tree)] == ["core"]
    assert list(runtime_imports(tree)) == []


def test_no_part_or_rule_holds_the_engine() -> None:
    engine = Engine(Policy(pools=(("db", 1),)))
    parts = _parts_of(engine)
    names = {type(part).__name__ for part in parts}
    assert {"Attempts", "Dispatcher", "Lifecycle", "OverlapControl", "Pools", "Backfills"} <= names
    holding = [
        f"{type(part).__name__}.{attribute}"
        for part in parts
        for attribute, held in _fields(part).items()
        if held is engine
    ]
    assert holding == []


def _parts_of(engine: Engine) -> list[object]:
    """Every part and rule reachable from the engine, through the engine and the parts."""
    found: dict[int, object] = {}
    todo = [value for value in _fields(engine).values() if _is_part(value)]
    while todo:
        part = todo.pop()
        if id(part) not in found:
            found[id(part)] = part
            todo += [value for value in _fields(part).values() if _is_part(value)]
    return list(found.values())


def _fields(value: object) -> dict[str, object]:
    slots = getattr(type(value), "__slots__", ())
    fields = {name: getattr(value, name) for name in slots if hasattr(value, name)}
    return {**fields, **getattr(value, "__dict__", {})}


def _is_part(value: object) -> bool:
    module = type(value).__module__
    return module.startswith(("engine.parts.", "engine.rules."))


def test_the_engine_and_its_parts_share_one_clock_that_a_restore_puts_back() -> None:
    engine = Engine()
    keyframe = engine.keyframe()
    engine.now = 7
    engine.register_worker("w1")
    assert engine.now == 7 and engine._workforce.workers["w1"].registered == 7
    assert engine.advance(20).accepted and engine.now == 20
    engine.restore(keyframe)
    assert engine.now == 0


def test_every_timer_kind_has_a_handler() -> None:
    engine = Engine()
    handlers = timer_handlers(
        engine._attempts, engine._outbox, engine._deadlines, engine._start_deadlines
    )
    assert set(handlers) == set(TimerKind)
    assert all(callable(handler) for handler in handlers.values())


@contextlib.contextmanager
def _recording_engine(calls: list[tuple[TimerKind, tuple]]) -> Iterator[Engine]:
    """An engine whose timer handlers record what they are called with (the kind is the
    payload's first item, as the tests below set it): the others replaced by a recorder, an
    attempt's end recorded before its own method runs (a tick's first end runs the later ones
    through it: what it does with these payloads, which name no run). Its timers run within."""
    ends = Attempts.duration_over

    def recorder(_part: object, *payload: object) -> None:
        calls.append((payload[0], payload[1:]))  # type: ignore[arg-type]

    def end_recorder(part: Attempts, *payload: Any) -> None:
        calls.append((payload[0], payload[1:3]))  # a tick's first end: its tick follows
        ends(part, *payload)

    with contextlib.ExitStack() as patched:
        patched.enter_context(mock.patch.object(Attempts, "duration_over", end_recorder))
        for cls, name in OTHER_HANDLERS:
            patched.enter_context(mock.patch.object(cls, name, recorder))
        yield Engine()  # the table holds the recorders, bound to the parts


def test_a_ticks_timers_run_in_the_documented_order_whatever_order_they_were_set_in() -> None:
    calls: list[tuple[TimerKind, tuple]] = []
    with _recording_engine(calls) as engine:
        for kind in reversed(TimerKind):
            engine._timers.add(5, kind, (kind, "payload", 5))
        engine.advance(6)
    assert [kind for kind, _ in calls] == DOCUMENTED_ORDER
    assert all(rest == ("payload", 5) for _, rest in calls)  # the payload, unpacked


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.sampled_from(list(TimerKind))), max_size=30))
def test_timers_run_by_tick_then_kind_then_the_order_they_were_set_in(
    timers: list[tuple[int, TimerKind]],
) -> None:
    calls: list[tuple[TimerKind, tuple]] = []
    with _recording_engine(calls) as engine:
        for index, (tick, kind) in enumerate(timers):
            engine._timers.add(tick, kind, (kind, tick, index))
        ticks = {tick for tick, kind in timers if kind is TimerKind.ATTEMPT_END}
        ends = sum(kind is TimerKind.ATTEMPT_END for _, kind in timers)
        # A tick's attempt ends after its first follow it, not items of the heap.
        assert len(engine._timers.heap.items) == len(timers) - ends + len(ticks)
        engine.advance(10)
    expected = sorted(
        (tick, DOCUMENTED_ORDER.index(kind), index) for index, (tick, kind) in enumerate(timers)
    )
    assert [(tick, DOCUMENTED_ORDER.index(kind), i) for kind, (tick, i) in calls] == expected
    assert not engine._timers.ends.later


def test_timers_an_older_cronlapse_pickled_group_their_attempt_ends() -> None:
    """A service's snapshot from before holds an item for each attempt end: loaded, each tick's
    later ends follow its first, and they run as they would have."""
    older = [(3, TimerKind.ATTEMPT_END, "a"), (2, TimerKind.TIMEOUT, "b")]
    older += [(3, TimerKind.ATTEMPT_END, "c"), (2, TimerKind.ATTEMPT_END, "d")]
    heap = Heap()
    for sequence, (tick, kind, name) in enumerate(older, 1):
        heapq.heappush(heap.items, (tick, kind, sequence, (kind, name, sequence)))
    calls: list[tuple[TimerKind, tuple]] = []
    with _recording_engine(calls) as engine:
        timers = engine._timers
        timers.__setstate__(pickle.loads(pickle.dumps({"heap": heap, "sequence": len(older)})))
        assert timers.ends.later == {2: None, 3: [(TimerKind.ATTEMPT_END, "c", 3)]}
        assert len(timers.heap.items) == 3  # the timeout and each tick's first end
        engine.advance(10)
    assert [name for _, (name, _) in calls] == ["d", "b", "a", "c"]
