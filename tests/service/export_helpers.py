"""What an exported stretch is compared with: the service's own replay of its journal."""

from __future__ import annotations

from cronlapse.service.journal_replay import JournalReplay
from cronlapse.service.store import Store
from engine.model import events as ev
from engine.scenario import parse_scenario
from engine.scenario.runner import ScenarioRunner


def service_events(store: Store, start: int, end: int) -> list[ev.Event]:
    """The engine events the service's replay of the journal makes in ticks ``(start, end]``."""
    replay = JournalReplay(store)
    live = replay.live
    kept: list[ev.Event] = []
    consume = live._consume_events

    def keep() -> None:
        kept.extend(live.engine.log)
        consume()

    live._consume_events = keep  # type: ignore[method-assign]
    for row in store.journal.rows_after(0):
        if row.tick > end:
            break
        replay.apply(row)
    replay.finish(end)
    return [event for event in kept if start < event.tick <= end]


def scenario_events(text: str, start: int) -> tuple[list[ev.Event], ScenarioRunner]:
    """The events of a headless run of the scenario ``text`` after tick ``start``."""
    runner = ScenarioRunner(parse_scenario(text, "export.yaml"))
    runner.run()
    return [event for event in runner.engine.log if event.tick > start], runner
