"""What the dashboard does with a command line, a go-to target or an export path.

Separate from the screen so that the screen holds layout and keys, and this holds the words.
Every entry point answers ``(ok, message)`` and never raises: a typo, a rejected command and a
bug in between all end as a message under the command line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.model.commands import Outcome
from engine.model.digits import is_digits
from engine.scenario.checks import StatusQuery
from engine.schedules.targets import TargetError, parse_target
from tui.model.commandline import CommandError, Parsed, parse
from tui.model.completion import Candidates, candidates
from tui.model.export import default_export_path, export
from tui.model.timefmt import run_label, wall
from tui.screens.compare import open_compare
from tui.screens.prompt import PromptScreen
from tui.screens.sweep import open_sweep

if TYPE_CHECKING:
    from tui.screens.dashboard import DashboardScreen


AppHandler = Callable[[tuple[str, ...]], tuple[bool, str]]


class CommandRunner:
    def __init__(self, screen: DashboardScreen) -> None:
        self.screen = screen
        self.app_commands: dict[str, AppHandler] = {
            "goto": self._goto,
            "speed": self._speed,
            "redo": self._redo,
            "compare": lambda args: open_compare(screen),
            "sweep": lambda args: open_sweep(screen, args),
            "filter": self._filter,
            "open": self._open,
            "reload": lambda args: self._done(screen.app.action_reload),
            "export": lambda args: self.export(" ".join(args) if args else None),
            "help": lambda args: self._done(screen.app.action_help),
            "quit": lambda args: self._done(screen.app.exit),
        }
        """What each of :data:`~tui.model.commandline.APP_COMMANDS` does."""

    # ------------------------------------------------------------ command line

    def run(self, text: str) -> tuple[bool, str]:
        """Run one command line; ``(accepted, what to tell the user)``."""
        screen = self.screen
        try:
            parsed = parse(text, screen.navigator.engine, screen.session.clock)
            if parsed.command is None:
                return self.app_commands[parsed.name](parsed.args)
            if isinstance(parsed.command, StatusQuery):
                return self._status(parsed.command)
            return self._engine_command(parsed)
        except CommandError as error:
            return False, str(error)
        except TargetError as error:
            return False, f"goto: {error}"
        except Exception as error:  # nothing typed may crash the dashboard
            return False, f"internal error: {type(error).__name__}: {error}"

    def _engine_command(self, parsed: Parsed) -> tuple[bool, str]:
        screen = self.screen
        history = screen.navigator.history
        rewound = history.tick < history.recorded_through
        assert parsed.command is not None
        result, change = screen.navigator.apply(parsed.command)
        screen.apply(change)
        if not result.accepted:
            reason = result.message or "rejected"
            return False, f"{parsed.name}: {result.outcome.name.lower()}: {reason}"
        text = f"{parsed.name}: {'created' if result.outcome is Outcome.CREATED else 'ok'}"
        if rewound:
            text += " (a new future starts here; :redo brings the old one back)"
        return True, text

    def _status(self, query: StatusQuery) -> tuple[bool, str]:
        engine = self.screen.navigator.engine
        state = engine.query.run_state(query.job_id, query.scheduled)
        where = run_label(query.job_id, query.scheduled, self.screen.session.clock)
        if state is None:
            return False, f"status: {where}: no such occurrence"
        return True, f"status: {where} is {state.value}"

    # ------------------------------------------------------- app commands

    @staticmethod
    def _done(action: Callable[[], object]) -> tuple[bool, str]:
        action()
        return True, ""

    def _goto(self, args: tuple[str, ...]) -> tuple[bool, str]:
        self.screen.seek(self.target(" ".join(args)))
        return True, ""

    def target(self, text: str) -> int:
        """The tick ``text`` names; :class:`TargetError` when it is not in the run, saying why
        (before tick 0 as :func:`parse_target` says, or after the run's ``until``)."""
        screen = self.screen
        tick = parse_target(text, screen.navigator.tick, screen.session.clock)
        until = screen.navigator.history.until
        if until is not None and tick > until:
            clock = screen.session.clock
            when = f" ({wall(clock, tick)})" if clock is not None else ""
            raise TargetError(
                f"{text.strip()} is tick {tick:,}{when}, after the end of the run at tick "
                f"{until:,} (its clock.until)"
            )
        return tick

    def _redo(self, args: tuple[str, ...]) -> tuple[bool, str]:
        change = self.screen.navigator.redo()
        if change is None:
            return False, "redo: nothing to redo (only a command typed while rewound replaces one)"
        self.screen.apply(change)
        return True, "redo: the previous future is back"

    def _filter(self, args: tuple[str, ...]) -> tuple[bool, str]:
        table = self.screen.filter_table(" ".join(args))
        return True, f"filter {table.TITLE}: {len(table.index):,} rows"

    def _open(self, args: tuple[str, ...]) -> tuple[bool, str]:
        if not args:
            return False, "open: expected a path"
        self.screen.app.open_path(" ".join(args))
        return True, ""

    def _speed(self, args: tuple[str, ...]) -> tuple[bool, str]:
        from tui.screens.playback import SPEEDS

        screen = self.screen
        if len(args) != 1 or not is_digits(args[0]):
            return False, f"speed: expected one of {', '.join(map(str, SPEEDS))}"
        wanted = int(args[0])
        screen.speed_index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - wanted))
        screen.action_speed(0)
        return True, f"speed: {screen.speed} event ticks per second"

    # --------------------------------------------------------------- prompts

    def check_target(self, text: str) -> str | None:
        try:
            self.target(text)
        except TargetError as error:
            return str(error)
        return None

    def prompt_goto(self) -> None:
        screen = self.screen
        hint = "a tick (1234), +N/-N ticks, +2h/-30m/+1d"
        if screen.session.clock is not None:
            hint += ", a time today (14:30) or an ISO time (2026-03-24T09:00)"

        def done(value: str | None) -> None:
            if value:
                screen.seek(self.target(value))

        screen.app.push_screen(
            PromptScreen(
                "Go to", hint, check=self.check_target, blink=screen.blink, prompt_id="goto"
            ),
            done,
        )

    def prompt_export(self) -> None:
        screen = self.screen
        path = default_export_path(screen.session.path, screen.session.name)

        def done(value: str | None) -> None:
            if value:
                ok, text = self.export(value)
                severity = "information" if ok else "error"
                screen.notify(text, severity=severity, timeout=5, markup=False)

        screen.app.push_screen(
            PromptScreen(
                "Export attempts to",
                "a path ending in .csv writes CSV; anything else a Chrome trace (ui.perfetto.dev)",
                str(path),
                complete=complete_path,
                blink=screen.blink,
                prompt_id="export",
            ),
            done,
        )

    def export(self, path_text: str | None) -> tuple[bool, str]:
        screen = self.screen
        session = screen.session
        path = Path(path_text) if path_text else default_export_path(session.path, session.name)
        try:
            count = export(screen.navigator.engine, path, session.name, session.clock)
        except OSError as error:
            return False, f"export: cannot write {path}: {error.strerror or error}"
        return True, f"exported {count:,} attempts up to tick {screen.navigator.tick:,} to {path}"


def complete_path(text: str) -> Candidates:
    """Paths that complete ``text`` from the file system (for the export and open prompts)."""
    found = candidates(f"open {text}", None)  # type: ignore[arg-type]
    return Candidates(found.head.removeprefix("open "), found.words)
