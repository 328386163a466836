"""Where a sweep's tasks run: processes on this machine, or a Dask cluster.

Both stream :class:`~cronlapse.analyses.sweep.evaluate.Outcome` values as tasks finish, in whatever
order they finish; the caller puts rows in the sweep's order, so the numbers and their order do not
depend on the executor (:func:`cronlapse.analyses.sweep.evaluate.evaluate` is pure). Dask is
imported only when ``--cluster`` asks for it.

A worker process that dies (killed, out of memory) breaks a local pool: the task that killed it
is reported as crashed and the rest go on in a new pool.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from cronlapse.analyses.sweep.evaluate import Outcome, Task, evaluate

_CRASHED = "crashed: the process playing it died"
_SPAWN = multiprocessing.get_context("spawn")


def run_inline(tasks: list[Task]) -> Iterator[Outcome]:
    """Every task in this process, one after the other (``--processes 1``)."""
    for task in tasks:
        yield evaluate(task)


def run_local(
    tasks: list[Task], processes: int, play: Callable[[Task], Outcome] = evaluate
) -> Iterator[Outcome]:
    """Every task on a pool of ``processes`` worker processes, streamed as each finishes.

    Processes are started with ``spawn``: a fresh interpreter, unaffected by whatever the
    calling process holds (threads, a terminal UI, open files). When the pool breaks, the tasks
    it held are played again one at a time, each alone in a process, so that only the task
    that kills its process is reported as crashed."""
    pending = deque(tasks)
    while pending:
        held: list[Task] = []
        pool = ProcessPoolExecutor(processes, mp_context=_SPAWN)
        try:
            yield from _play(pool, play, pending, processes, held)
        finally:
            pool.shutdown(wait=not held, cancel_futures=True)
        for task in held:
            yield _alone(play, task)


def _play(
    pool: ProcessPoolExecutor,
    play: Callable[[Task], Outcome],
    pending: deque[Task],
    processes: int,
    held: list[Task],
) -> Iterator[Outcome]:
    """Play ``pending`` on ``pool`` until done or broken; a broken pool's tasks go to ``held``."""
    running: dict[Future[Outcome], Task] = {}
    while pending or running:
        while pending and len(running) < 2 * processes:
            task = pending.popleft()
            running[pool.submit(play, task)] = task
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            task = running.pop(future)
            if isinstance(future.exception(), BrokenProcessPool):
                held.append(task)
            else:
                yield _outcome(future, task)
        if held:
            held.extend(running.values())
            return


def _alone(play: Callable[[Task], Outcome], task: Task) -> Outcome:
    with ProcessPoolExecutor(1, mp_context=_SPAWN) as pool:
        future = pool.submit(play, task)
        wait([future])
        if isinstance(future.exception(), BrokenProcessPool):
            return Outcome(task.variant, task.replica, error=_CRASHED)
        return _outcome(future, task)


def _outcome(future: Future[Outcome], task: Task) -> Outcome:
    error = future.exception()
    if error is not None:
        return _failed(task, error)
    return future.result()


def _failed(task: Task, error: BaseException) -> Outcome:
    return Outcome(task.variant, task.replica, error=f"{type(error).__name__}: {error}")


def run_dask(tasks: list[Task], address: str) -> Iterator[Outcome]:
    """Every task on the Dask scheduler at ``address`` (``tcp://HOST:PORT``); its workers must
    have cronlapse installed."""
    from distributed import Client, as_completed

    with Client(address, timeout="10s") as client:
        futures = client.map(evaluate, tasks, pure=False)
        owners = dict(zip((future.key for future in futures), tasks, strict=True))
        try:
            for future in as_completed(futures):
                task = owners[future.key]
                if future.status == "error":
                    yield _failed(task, future.exception())
                else:
                    yield future.result()
        finally:
            client.cancel(futures)
