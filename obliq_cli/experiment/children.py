"""Worker processes that die with the run and leave Ctrl-C to it.

A terminal's Ctrl-C reaches every process of the foreground group: the run and its
workers. If each worker raised KeyboardInterrupt too, dask's would print their
tracebacks while the run shuts them down, so workers ignore SIGINT and the run alone
handles it (it stops the pool and says so in one line).

``kill -9`` of the run gives it no chance to stop its workers: loky's would finish their
task and idle for minutes (the resource trackers with them, since the workers hold their
pipes open). So a worker watches its parent's pid from a daemon thread and exits
once it has been re-parented. (Linux's ``prctl(PR_SET_PDEATHSIG)`` would be quicker but
fires when the *thread* that started the worker ends, and the run starts its loky
workers from a short-lived thread while it plans.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

WATCH_INTERVAL = 1.0  # seconds between two looks at the parent's pid


def _die_with(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL)
        if os.getppid() != parent:
            os._exit(1)


def worker_setup(n_workers: int | None = None, inherited_locks: tuple = ()) -> None:
    """Run first in every loky or forked worker the run starts (its ``initializer``):
    ignore SIGINT, die with the parent. (dask's local workers start with SIGINT ignored
    through ``sigint_ignored``, and end with their nanny, which lives in the run's
    process.) With ``n_workers`` (the fork pool), BLAS gets this worker's share of the
    cores, as joblib gives loky's workers, so two workers do not each start two threads;
    and it closes its copies of the run's lock files (``inherited_locks``), so that a
    worker outliving a killed run does not keep the folder locked."""
    for fd in inherited_locks:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if n_workers:
        from threadpoolctl import threadpool_limits

        threadpool_limits(max(1, (os.cpu_count() or 1) // n_workers))
    parent = os.getppid()
    if not getattr(worker_setup, "_watching", False):
        worker_setup._watching = True
        threading.Thread(target=_die_with, args=(parent,), daemon=True,
                         name="obliq-parent-watch").start()


@contextlib.contextmanager
def sigint_ignored():
    """SIGINT ignored while child processes start, so they inherit the disposition (an
    ignored signal stays ignored across exec; Python then installs no handler)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
