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
workers from a short-lived thread while it plans.) The fork backend's workers are forked
by the run's main thread, so they do ask for ``PR_SET_PDEATHSIG``: a worker finishing its
task after its run was killed printed two BrokenPipeError tracebacks (its result's pipe
had no reader), where it now dies with the run.

SIGTERM: the run handles it as Ctrl-C (``obliq_cli.interrupts``); a worker forked from
it puts back the default action (die at once, silently), which the pool's ``terminate``
relies on.
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


def _die_with_parent_now() -> None:
    """Linux: SIGKILL this process when its parent dies (``prctl(PR_SET_PDEATHSIG)``)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the watching thread does it
        pass


def worker_setup(n_workers: int | None = None, inherited_locks: tuple = (),
                 forked_from: int = 0) -> None:
    """Run first in every loky or forked worker the run starts (its ``initializer``):
    ignore SIGINT, die with the parent. (dask's local workers start with SIGINT ignored
    through ``sigint_ignored``, and end with their nanny, which lives in the run's
    process.) With ``n_workers`` (the fork pool), BLAS gets this worker's share of the
    cores, as joblib gives loky's workers, so two workers do not each start two threads;
    and it closes its copies of the run's lock files (``inherited_locks``), so that a
    worker outliving a killed run does not keep the folder locked. ``forked_from`` (the
    fork pool: the run's pid; its workers are forked with SIGINT and SIGTERM blocked,
    ``signals_blocked``): SIGTERM back to its default action, then both unblocked, and
    the worker dies with its parent at once."""
    parent = forked_from or os.getppid()
    if forked_from:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _die_with_parent_now()
        if os.getppid() != parent:  # the run died before the request took effect
            os._exit(1)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _RUN_SIGNALS)
    for fd in inherited_locks:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if n_workers:
        from threadpoolctl import threadpool_limits

        threadpool_limits(max(1, (os.cpu_count() or 1) // n_workers))
    if not getattr(worker_setup, "_watching", False):
        worker_setup._watching = True
        threading.Thread(target=_die_with, args=(parent,), daemon=True,
                         name="obliq-parent-watch").start()


_RUN_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def signals_blocked():
    """SIGINT and SIGTERM blocked in this thread while it forks workers: a child inherits
    the mask (and the run's Python handlers, which it must not run) until its
    ``worker_setup`` unblocks them; the run takes a signal that came meanwhile after."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _RUN_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


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
