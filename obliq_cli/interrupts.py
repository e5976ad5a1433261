"""Ctrl-C and SIGTERM: obliq stops when asked, says so in one line, never exits 0.

- SIGTERM (``kill``, a batch scheduler's time limit, ``systemctl stop``) is handled as
  Ctrl-C: the handler raises ``errors.Terminated``, a KeyboardInterrupt, so each path that
  stops a run on Ctrl-C (the pool stopped, finished rows kept, the history entry closed
  with its outcome) runs for it too; the command line prints one line and exits 143
  (128 + SIGTERM) where Ctrl-C gives 130.
- ``deferred()``: a block that must not be cut in two (the history entry's last write,
  the pool's shutdown): a signal arriving inside is held and raised when it ends, unless
  an interrupt or an error is already on its way out (that one is reported), or the block
  is a closing generator's cleanup (the run is already stopping).
- ``guard_exit()``: once a command is done, Python's own shutdown still runs code (loky
  joins its executor's threads, atexit hooks) in which a KeyboardInterrupt is printed as
  "Exception ignored in ..." with a traceback, and the process exits 0. From then on
  either signal ends the process at once with one line and 130 or 143. The same from
  the moment ``obliq_cli`` is imported by the obliq process until its command starts
  (the second of imports in which Ctrl-C printed a traceback).

- ``checkpoint()``: Python runs a signal's handler wherever the main thread is, and an
  exception it raises inside a weakref callback or a ``__del__`` (importlib's module-lock
  callbacks during imports) is printed as "Exception ignored in ..." and dropped: the run
  went on and exited 0 (the flaky ``signal-fork-sigterm-while-starting`` case). So each
  signal is also recorded; a run checks the record between its steps and after each row,
  ``handled`` checks it once its command is done, and such a dropped exception is not
  printed (the checkpoint reports it).

Only the main thread can install handlers; elsewhere (a command run from a thread) the
signals are left as they are. A SIGINT ignored when obliq started (a background job)
stays ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from .errors import Interrupt, Terminated

_held: list[int] = []
_deferring = 0
_received: list[int] = []  # signals whose exception was raised (and maybe dropped)


def _exception(signum: int) -> KeyboardInterrupt:
    return Terminated() if signum == signal.SIGTERM else Interrupt()


def _raise(signum: int, frame) -> None:
    _received.append(signum)
    if _deferring:
        _held.append(signum)
        return
    raise _exception(signum)


def checkpoint() -> None:
    """Raise the interrupt of a signal received since the command started whose exception
    did not stop it (raised where Python drops exceptions: see the module doc)."""
    exc = taken()
    if exc is not None:
        raise exc


def taken() -> KeyboardInterrupt | None:
    """The interrupt ``checkpoint`` would raise now, taken off the record (None when no
    signal came): for a step that must end before the run stops (one job's rows whose
    files are written, ``pools._serial_results``), which then raises it itself."""
    if not _received:
        return None
    signum = _received[0]
    _received.clear()
    return _exception(signum)


def acted_on() -> None:
    """The signals received so far have stopped what they had to stop (a run caught its
    interrupt): a later ``checkpoint`` raises none of them again."""
    _received.clear()


def _quiet_unraisable(previous):
    """An unraisable-exception hook that drops our own interrupts (``checkpoint`` raises
    them again) and hands every other report to ``previous``."""
    def hook(unraisable):
        if isinstance(unraisable.exc_value, Interrupt) and _received:
            return
        previous(unraisable)
    return hook


def _ours(signum: int) -> bool:
    """Whether obliq handles ``signum`` here: SIGTERM always, SIGINT unless ignored."""
    current = signal.getsignal(signum)
    return signum == signal.SIGTERM or current not in (signal.SIG_IGN, None)


@contextlib.contextmanager
def handled(then_guard: bool = False):
    """SIGINT and SIGTERM raise (KeyboardInterrupt, Terminated) inside the block; after
    it, the previous handlers are put back, or with ``then_guard`` ``guard_exit``'s are
    installed (no moment between the two where Python's default handler could print a
    traceback)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    _received.clear()
    for signum in (signal.SIGINT, signal.SIGTERM):
        if _ours(signum):
            previous[signum] = signal.signal(signum, _raise)
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet_unraisable(hook)
    try:
        yield
        checkpoint()
    finally:
        sys.unraisablehook = hook
        if then_guard:
            guard_exit()
        else:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


@contextlib.contextmanager
def deferred():
    """Hold SIGINT and SIGTERM until the block ends, then raise the first one held (not
    when the block already ends by an interrupt: that one is reported)."""
    global _deferring
    _deferring += 1
    try:
        yield
    except BaseException:  # the block ends by an error or an interrupt: that one is told
        _held.clear()
        raise
    finally:
        _deferring -= 1
    if not _deferring and _held:
        signum = _held[0]
        _held.clear()
        if isinstance(sys.exc_info()[1], (KeyboardInterrupt, GeneratorExit)):
            # a cleanup (``finally``) of an interrupt already on its way out; or of a
            # generator closed because its consumer stopped (the pools' row generators,
            # whose ``finally`` stops the pool): closed by the garbage collector once the
            # first signal's error is handled, an exception raised here is "ignored" with
            # a traceback on stderr (the flaky signal-fork-sigterm-then-ctrl-c case)
            return
        raise _exception(signum)


def from_signal(exc: BaseException) -> bool:
    """Whether the KeyboardInterrupt ``exc`` is the user's Ctrl-C (or SIGTERM) rather
    than one that code obliq runs raised itself (a ``raise KeyboardInterrupt`` in an
    estimator's ``fit``, which is that task's error and must not stop the run). Ours are
    ``Interrupt``s. Any other is a signal's only where Python's own or a foreign handler
    could have raised it: in the main thread while SIGINT is handled neither by obliq
    (``handled``, ``guard_exit``) nor ignored (a worker, a background job); signals
    reach no other thread."""
    if isinstance(exc, Interrupt):
        return True
    if not isinstance(exc, KeyboardInterrupt):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGINT) not in (_raise, _exit_now, signal.SIG_IGN,
                                                   signal.SIG_DFL)


_when = ["while starting"]


def _exit_now(signum: int, frame) -> None:
    what = "terminated" if signum == signal.SIGTERM else "interrupted"
    with contextlib.suppress(OSError):
        os.write(2, f"error: {what} {_when[0]}\n".encode())
    os._exit(128 + signum)


def own_process() -> bool:
    """Whether this process is the ``obliq`` command itself (its script or ``python -m
    obliq_cli``), not a program that calls it in-process (tests through click's runner)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return spec.name == "obliq_cli.__main__"
    return os.path.basename(getattr(main, "__file__", "") or "") in ("obliq", "obliq.exe")


def guard_exit(when: str = "while exiting") -> None:
    """From now on SIGINT and SIGTERM end the process at once: one line (``error:
    interrupted WHEN``), 130 or 143."""
    if threading.current_thread() is not threading.main_thread():
        return
    _when[0] = when
    for signum in (signal.SIGINT, signal.SIGTERM):
        if _ours(signum):
            signal.signal(signum, _exit_now)
