"""The memory store's dispatch claims and worker rows (see
:mod:`cronlapse.service.store.dispatch`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cronlapse.service.store.coordination import Channel, Election
from cronlapse.service.store.dispatch import Assigned, Assignment, AttemptId, WorkerProcess
from cronlapse.service.store.errors import Fenced
from cronlapse.service.store.memory.hub import Shared

ENDED = 0.0
"""The heartbeat a stopped process leaves: older than any."""


@dataclass(slots=True)
class _Claim:
    assignment: Assignment
    claimed_by: str | None = None
    outcome: bool | None = None


@dataclass(slots=True)
class _Process:
    slots: int
    heartbeat: float
    stopping: bool = False


class MemoryDispatch:
    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self.claims: dict[AttemptId, _Claim] = {}
        self.processes: dict[str, _Process] = {}
        self.fence: Election | None = None

    def fence_with(self, election: Election) -> None:
        self.fence = election

    def assign(self, running: Mapping[AttemptId, Assignment]) -> Assigned:
        with self.shared.lock:
            if self.fence is not None and self.shared.scheduler is not self.fence:
                raise Fenced("another scheduler holds the dispatch table: this one changes nothing")
            present = {key: claim.outcome for key, claim in self.claims.items()}
            for key in present:
                if key not in running:
                    del self.claims[key]
            new = [key for key in running if key not in present]
            for key in new:
                self.claims[key] = _Claim(running[key])
            now = self.shared.wall()
            processes = [
                WorkerProcess(name, process.slots, now - process.heartbeat, process.stopping)
                for name, process in self.processes.items()
            ]
        if new:
            self.shared.notify(Channel.DISPATCH)
        outcomes = {
            key: outcome
            for key, outcome in present.items()
            if outcome is not None and key in running
        }
        return Assigned(outcomes, processes)


class MemoryWorkers:
    def __init__(self, dispatch: MemoryDispatch) -> None:
        self.dispatch = dispatch
        self.shared = dispatch.shared

    def register(self, name: str, slots: int) -> None:
        with self.shared.lock:
            self.dispatch.processes[name] = _Process(slots, self.shared.wall())
        self.shared.notify(Channel.REPORTS)

    def exchange(
        self,
        name: str,
        slots: Sequence[str],
        finished: Mapping[AttemptId, bool],
        stopping: bool,
    ) -> list[Assignment]:
        with self.shared.lock:
            self._beat(name, finished, stopping, self.shared.wall())
            if not stopping:
                wanted = set(slots)
                for claim in self.dispatch.claims.values():
                    free = claim.claimed_by is None and claim.outcome is None
                    if free and claim.assignment.slot in wanted:
                        claim.claimed_by = name
            mine = [
                claim.assignment
                for claim in self.dispatch.claims.values()
                if claim.claimed_by == name and claim.outcome is None
            ]
        if finished or stopping:
            self.shared.notify(Channel.REPORTS)
        return mine

    def hand_back(self, name: str, finished: Mapping[AttemptId, bool]) -> None:
        with self.shared.lock:
            self._beat(name, finished, True, ENDED)
        self.shared.notify(Channel.REPORTS)

    def _beat(
        self, name: str, finished: Mapping[AttemptId, bool], stopping: bool, beat: float
    ) -> None:
        process = self.dispatch.processes.get(name)
        if process is not None:
            process.heartbeat = beat
            process.stopping = stopping
        for key, ok in finished.items():
            claim = self.dispatch.claims.get(key)
            if claim is not None and claim.claimed_by == name:
                claim.outcome = ok
