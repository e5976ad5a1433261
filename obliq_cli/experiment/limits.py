"""A task's time limit: the config's ``timeout:`` (seconds; none by default).

``within(seconds, work)`` runs ``work`` (a task's captured fit and measurement, or a
trial fit) on a thread of its own and waits for it at most ``seconds``; past them it
raises ``TaskTimeout`` ("timeout after N s"), which the task records as its error like
any other failure. The thread is the one way that works under every backend: a signal
(SIGALRM) reaches only a process's main thread, and the threading and dask backends run
their tasks on other threads (as do programs calling obliq from a thread).

A fit cannot be stopped from outside its thread. The abandoned thread (a daemon) is asked
to stop with an exception raised in it at its next Python step (``_Abandoned``, a
BaseException, so that an estimator's ``except Exception`` does not take it as its own
error); a fit asleep in C (``time.sleep``, a socket) or inside one long compiled call
ends only when that call returns. Meanwhile the task's row is written and the run goes
on; the thread dies with its process at the latest (a pool's worker, the run).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable

from ..errors import ObliqError


class TaskTimeout(ObliqError):
    """A task (or a trial fit) ran past the config's ``timeout:``."""


class _Abandoned(BaseException):
    """Raised in a fit's thread once its task has given up on it."""


def timeout_reason(seconds: float) -> str:
    """The error a timed-out task records: ``timeout after N s``."""
    return f"timeout after {seconds:g} s"


def within(seconds: float | None, work: Callable[[], object]):
    """``work()``'s value or exception, or ``TaskTimeout`` once it has run ``seconds``
    (None: no limit, and ``work`` runs on the calling thread as before)."""
    if seconds is None:
        return work()
    outcome: dict = {}

    def run():
        try:
            try:
                outcome["value"] = work()
            except BaseException as exc:  # handed to the waiting thread, which raises it
                outcome["error"] = exc
        except _Abandoned:  # landed after ``work`` ended: nobody waits for it any more
            pass

    thread = threading.Thread(target=run, name="obliq-timed-fit", daemon=True)
    # its CPU clock is the process's when the task would have run on the main thread
    # (timing.cpu_clock): the thread stands in for it, BLAS's threads counted as before
    thread.obliq_stands_for_main = threading.current_thread() is threading.main_thread()
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        _abandon(thread)
        raise TaskTimeout(timeout_reason(seconds))
    if "error" in outcome:
        raise outcome.pop("error")
    return outcome["value"]


def _abandon(thread: threading.Thread) -> None:
    """Raise ``_Abandoned`` in ``thread`` at its next Python step (CPython's
    ``PyThreadState_SetAsyncExc``; elsewhere the thread is only left to itself)."""
    set_async = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc",
                        None)
    if set_async is None or thread.ident is None:
        return
    set_async(ctypes.c_ulong(thread.ident), ctypes.py_object(_Abandoned))
