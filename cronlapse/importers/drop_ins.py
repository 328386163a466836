"""A unit's drop-ins (systemd.unit(5)): the ``.conf`` files that override it, read after it.

Apart from :mod:`cronlapse.importers.unit_file` (a file's syntax) and from the timer and service
readers, because finding them is the same for both unit types and is about where the files are
(``NAME.TYPE.d/`` next to the unit, and a template's ``PREFIX@.TYPE.d/`` for an instance), not
about what their settings mean. Drop-ins in other unit directories (``/etc/systemd/system``...)
are not seen.
"""

from __future__ import annotations

from pathlib import Path

from cronlapse.importers.files import read_text
from cronlapse.importers.unit_file import Setting, parse_unit


def find_drop_ins(unit: Path) -> list[Path]:
    """The drop-ins of ``unit`` next to it, in the order systemd applies them (systemd.unit(5)):
    the ``.conf`` files of ``NAME.TYPE.d/`` and, for an instance ``PREFIX@INSTANCE.TYPE``, of
    the template's ``PREFIX@.TYPE.d/``, sorted by file name; of two with one name, the
    instance's."""
    directories = [unit.with_name(unit.name + ".d")]
    template = unit_template(unit)
    if template is not None:
        directories.insert(0, template.with_name(template.name + ".d"))
    found = {
        conf.name: conf
        for directory in directories
        if directory.is_dir()
        for conf in sorted(directory.glob("*.conf"))
        if conf.is_file()
    }
    return [found[name] for name in sorted(found)]


def read_drop_ins(paths: list[Path], kind: str) -> list[Setting]:
    settings: list[Setting] = []
    for path in paths:
        settings += parse_unit(read_text(str(path), kind), str(path))
    return settings


def keep_files(files: dict[str, str], directory: Path, paths: list[Path]) -> None:
    """Add the text of each of ``paths`` to ``files``, by its path from ``directory`` (they
    were read and checked already)."""
    for path in paths:
        files[str(path.relative_to(directory))] = read_text(str(path), "systemd unit")


def note_drop_ins(notes: list[str], unit: Path, drop_ins: list[Path]) -> None:
    """Name the drop-ins read for ``unit`` in ``notes``, if there are any."""
    if drop_ins:
        names = ", ".join(str(path.relative_to(unit.parent)) for path in drop_ins)
        notes.append(f"drop-ins read: {names}")


def unit_template(unit: Path) -> Path | None:
    """``report@.service`` for ``report@daily.service``; None for a unit that is no instance."""
    prefix, at, rest = unit.name.partition("@")
    instance, dot, suffix = rest.rpartition(".")
    if not at or not dot or not instance:
        return None
    return unit.with_name(f"{prefix}@.{suffix}")
