"""How many threads one fit may spread its independent work over (``n_threads``).

The moves of OC1's restarts within a step of a node's climb, HHCART's reflections and
UMT's one-vs-rest or one-vs-one member trees are independent units of work. An
estimator with an ``n_threads`` parameter runs them on that many threads (its compiled
kernels release the GIL), and grows the same tree for every thread count: no unit's
random draws depend on which thread runs it or when (each estimator's docstring says
how).

``n_threads=None`` (the default) means *what the process leaves free* (``obliq run``
gives each task's estimator ``n_threads=1`` unless its config sets it:
``experiment.fit.make_task_estimator`` says why):

- a fit outside a run (the Python API, a notebook) takes every core this process may
  use (``os.sched_getaffinity``);
- a run's pool worker takes its share of the cores, ``cores // workers`` (set by the
  worker's start-up through :func:`set_process_share`; one in a loky worker), for a
  fit that still asks (a plugin's own estimator);
- a fit on a thread that is not its process's main thread (the threading backend, a
  dask worker's executor) takes one: such a fit is timed by that thread's CPU clock
  (``obliq_cli.timing``), which would miss the work of the fit's other threads, and it
  already shares its process with other fits.

A fit's CPU time (``obliq_cli.timing``) counts every thread of the process, so more
threads shorten the wall time of a fit, not its CPU time.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_process_share: int | None = None  # cores per worker, set in a run's workers


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def set_process_share(n_workers: int | None) -> None:
    """Called in each worker of a run with ``n_workers`` workers on this machine: the
    default ``n_threads`` of a fit there becomes ``usable_cores() // n_workers`` (>= 1).
    ``None`` forgets the share (a fit then takes every usable core)."""
    global _process_share
    _process_share = None if not n_workers else max(1, usable_cores() // int(n_workers))


def resolve_threads(n_threads: int | None) -> int:
    """The number of threads a fit with parameter ``n_threads`` runs on now (see the
    module docstring for ``None``); an explicit value is kept as given."""
    if n_threads is not None:
        return int(n_threads)
    thread = threading.current_thread()
    if thread is not threading.main_thread() and not getattr(
            thread, "obliq_stands_for_main", False):
        return 1
    if _process_share is not None:
        return _process_share
    return usable_cores()


class FitThreads:
    """The threads of one fit: ``map(fn, items)`` runs ``fn`` on each item, on the
    calling thread when there is one thread, else on a pool of ``n - 1`` helper threads
    plus the calling thread, and returns the results in the order of ``items``.

    Use as a context manager around the fit, so the pool's threads end with it.
    """

    def __init__(self, n_threads: int):
        self.n = max(1, int(n_threads))
        self._pool = None

    def __enter__(self):
        if self.n > 1:
            self._pool = ThreadPoolExecutor(max_workers=self.n - 1,
                                            thread_name_prefix="obliq-fit")
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        return False

    def map(self, fn, items):
        """``[fn(item) for item in items]``, the items spread over the threads: the
        calling thread runs a share too, so ``n`` threads work at once."""
        items = list(items)
        if self._pool is None or len(items) < 2:
            return [fn(item) for item in items]
        # item i goes to thread i % n; the calling thread runs those of slot 0
        n = min(self.n, len(items))

        def run_slot(slot):
            return [(i, fn(items[i])) for i in range(slot, len(items), n)]

        futures = [self._pool.submit(run_slot, slot) for slot in range(1, n)]
        results = [None] * len(items)
        try:
            for i, value in run_slot(0):
                results[i] = value
        finally:  # the helpers' results (and their errors) even if ours failed
            for future in futures:
                for i, value in future.result():
                    results[i] = value
        return results
