"""Where blocking work runs, off the event loop (DESIGN.md, HTTP): rulings in a small thread pool
of their own, image work in a few threads, photo detection in worker processes."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar

import anyio

T = TypeVar("T")


def _exit_with_parent() -> None:
    """Worker-process initializer: end this worker when the server process is gone. A server
    killed outright (SIGKILL, a crash) cannot shut its pool down, and a worker blocked waiting
    for jobs would otherwise outlive it."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


#: Photo worker processes run this much nicer than the server: a ruling is interactive (a few
#: milliseconds of CPU) while a photo takes ~100 ms and already waits in a queue, so when the
#: cores are busy the scheduler serves the ruling first (bench/load.py, BENCHMARKS.md).
PHOTO_WORKER_NICENESS = 5


def _photo_worker_init() -> None:
    """Worker-process initializer: lower this worker's CPU priority (PHOTO_WORKER_NICENESS)
    and end it with the server."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice here
        os.nice(PHOTO_WORKER_NICENESS)
    _exit_with_parent()


class WorkerLost(RuntimeError):
    """A photo worker process died during a job (the pool has been replaced)."""


class Workers:
    """Runs blocking work in threads. Image work (decode, detect, draw, store) holds large
    arrays, so few run at once; rulings have their own pool so they never queue behind photos.

    With ``processes`` > 0, the photo jobs (``run_process``: detection for ``/api/detect`` and
    ``/api/reviews``, a review's drawing) run in that many worker processes instead: their
    Python parts then do not hold this process's GIL, so rulings answered meanwhile are not
    slowed by them (bench/load.py). ``process_jobs`` counts the jobs sent to them, by
    function name."""

    def __init__(self, image_slots: int, rule_slots: int, processes: int = 0) -> None:
        self._slots = {"image": image_slots, "rule": rule_slots}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self.process_jobs: Counter[str] = Counter()

    def start(self) -> None:
        if self.processes > 0 and self._pool is None:
            # spawn, not fork: the server process already runs threads.
            self._pool = ProcessPoolExecutor(self.processes,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_photo_worker_init)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    async def run_process(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process when there are any, else in the image threads.

        A worker that dies in a job (a crash in a decoder, the kernel's OOM killer) breaks
        the whole pool; it is replaced by a fresh one so that later photos are served, and
        :class:`WorkerLost` says what happened to this one."""
        pool = self._pool
        if pool is None:
            return await self.run("image", fn, *args)
        self.process_jobs[fn.__name__] += 1
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, partial(fn, *args))
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
                self.start()
            raise WorkerLost(fn.__name__) from None

    async def run(self, pool: str, fn: Callable[..., T], *args: Any) -> T:
        limiter = self._limiters.get(pool)
        if limiter is None:  # created inside the running loop, as anyio wants
            limiter = self._limiters[pool] = anyio.CapacityLimiter(self._slots[pool])
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=limiter)
