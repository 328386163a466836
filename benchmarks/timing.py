"""What the benchmarks share for timing: the best of several runs, the figure least disturbed by
whatever else the shared machine is doing."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(repeat: int, action: Callable[[], object]) -> float:
    """The shortest of ``repeat`` timed calls of ``action``, in seconds."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return min(times)
