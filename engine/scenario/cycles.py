"""Dependency cycles in a scenario's jobs, reported as the shortest way round."""

from __future__ import annotations

from collections import deque

from engine.scenario.jobs import Definition


def shortest_cycle(
    definitions: list[Definition], order: dict[str, int], start: str, first: str
) -> list[str] | None:
    """The shortest way ``start -> first -> ... -> start``, if ``first`` leads back to ``start``."""
    if first == start:
        return [start, start]
    parents = {first: start}
    queue = deque([first])
    while queue:
        current = queue.popleft()
        index = order.get(current)
        if index is None:
            continue
        for dependency in definitions[index].dependencies:
            if dependency == start:
                chain = [current]
                while chain[-1] != first:
                    chain.append(parents[chain[-1]])
                return [start, *reversed(chain), start]
            if dependency not in parents:
                parents[dependency] = current
                queue.append(dependency)
    return None
