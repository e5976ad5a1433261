"""The clocks a fit is timed with: its wall seconds and the CPU seconds of its own work.

Wall time measures the machine as much as the fit: the same task took several times as
long beside other jobs on a shared 2-core machine. CPU time counts only the cycles spent
on the fit, so it moves far less with load (what remains is the shared caches: a fold of
OC1 on pima took 0.091 CPU seconds at a load of 3 and 0.112 at 7), and a ratio of two
algorithms' CPU times from the same run, whose tasks ran side by side, cancels most of it.

Which CPU clock depends on who else runs in the process:

- a fit on the process's main thread has the process to itself (no pool, and the fork
  and loky workers, which run one task at a time on their main thread): it is timed by
  the process's CPU time (``time.process_time``), which also counts the threads the fit
  hands work to (BLAS's pool, used by the SVMs' products and eigenproblems; obliq's
  numba kernels run on the calling thread). The pool's idle threads add next to nothing;
- a fit on any other thread shares its process (the threading backend runs one task per
  thread, side by side; a dask worker runs its task on an executor thread beside its
  event loop): it is timed by that thread's CPU time (``time.thread_time``), which
  leaves the other tasks out but also misses work the fit hands to BLAS's threads. dask's
  workers start with one BLAS thread (their nanny sets ``OMP_NUM_THREADS=1``), so there
  nothing is missed; under the threading backend an SVM's BLAS work on other threads is.

Either way a kernel's compilation or its first load from numba's cache is not the fit's
work. The runner warms each algorithm's kernels once per process before timing any of its
tasks (``experiment.fit.warm_up``), which keeps them out of the wall time too; and a
kernel that a fit still compiles or loads (a signature the warm-up did not meet) is taken
off its CPU time: numba announces every hold of its compiler lock (the event
``numba:compiler_lock``, the one numba times its own compilations by), and ``Stopwatch``
subtracts the CPU time the thread spent holding it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable


def cpu_clock() -> Callable[[], float]:
    """The CPU clock for a fit run on the calling thread (see the module docstring). A
    thread that runs a main thread's task under a time limit (``experiment.limits``)
    counts as that main thread."""
    thread = threading.current_thread()
    if thread is threading.main_thread() or getattr(thread, "obliq_stands_for_main", False):
        return time.process_time
    return time.thread_time


_listener = None  # the compiler-lock listener, registered once numba is loaded
_registering = threading.Lock()


def _jit_listener():
    """The listener that adds up, per thread, the CPU seconds (by that thread's
    ``cpu_clock``) spent holding numba's compiler lock; None while numba is not loaded
    (nothing can compile then, and obliq loads numba only with the kernels)."""
    global _listener
    if _listener is not None or "numba" not in sys.modules:
        return _listener
    from numba.core import event

    class CompilerLockTime(event.Listener):
        def __init__(self):
            self.thread = threading.local()  # depth, start, spent: one thread's

        def spent(self) -> float:
            return getattr(self.thread, "spent", 0.0)

        def on_start(self, ev):
            depth = getattr(self.thread, "depth", 0)
            if depth == 0:  # the lock is re-entrant: time the outermost hold
                self.thread.start = cpu_clock()()
            self.thread.depth = depth + 1

        def on_end(self, ev):
            self.thread.depth -= 1
            if self.thread.depth == 0:
                self.thread.spent = self.spent() + cpu_clock()() - self.thread.start

    with _registering:
        if _listener is None:
            listener = CompilerLockTime()
            event.register("numba:compiler_lock", listener)
            _listener = listener
    return _listener


class Stopwatch:
    """Started when made; ``read()`` gives (wall seconds, CPU seconds) since then: the CPU
    seconds by ``cpu_clock`` of the thread that made it, less those the thread spent in
    numba's compiler (module docstring). Read it on the thread that made it."""

    def __init__(self):
        self._cpu = cpu_clock()
        self._jit = _jit_listener()
        self._jit_start = self._jit.spent() if self._jit is not None else 0.0
        self._wall_start = time.perf_counter()
        self._cpu_start = self._cpu()

    def read(self) -> tuple[float, float]:
        cpu = self._cpu() - self._cpu_start
        if self._jit is not None:
            cpu -= self._jit.spent() - self._jit_start
        return time.perf_counter() - self._wall_start, cpu
