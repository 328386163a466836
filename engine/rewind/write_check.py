"""The journal's debug mode: every write to a record must follow a save of it.

A record changed in a generation without ``touch`` first would keep its new value across a
rollback. The checker remembers every record's values when a generation opens and, when it ends,
finds a record that differs from them without having been saved in it. It is for tests (the
stateful machines turn it on): it compares every record at every mark, rollback and jump.
"""

from __future__ import annotations

from typing import Any

from engine.model.journaled import changed_field, values


class UnjournaledWrite(AssertionError):
    """A record changed in a generation that had not saved it: a rollback would miss the change.
    Only raised in the debug mode (``UndoJournal.check``)."""


class WriteChecker:
    """Every record's values at the start of the current generation, and the check against them."""

    __slots__ = ("_shadow",)

    def __init__(self) -> None:
        self._shadow: dict[int, tuple[Any, tuple]] | None = None

    def check(self, tables: list[tuple[str, dict]], generation: int, verify: bool) -> None:
        """Check the generation that ends (unless ``verify`` is False: after a rollback, whose
        restores are journaled writes), then remember every record's values for the next one."""
        shadow = self._shadow if verify else None
        for kind, table in tables if shadow is not None else ():
            for key, record in table.items():
                before = shadow.get(id(record))
                if record.gen == generation or before is None or before[0] is not record:
                    continue
                if values(record) != before[1]:
                    name, old, new = changed_field(record, before[1])  # type: ignore[misc]
                    raise UnjournaledWrite(
                        f"{kind} {key!r}: field {name!r} changed from {old!r} to {new!r} "
                        f"in generation {generation}, which had not saved it (no touch)"
                    )
        self._shadow = {
            id(record): (record, values(record)) for _, table in tables for record in table.values()
        }
