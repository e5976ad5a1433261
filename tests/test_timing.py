"""obliq_cli.timing: which CPU clock times a fit, and what it leaves out (other tasks'
threads, numba's compiler). CPU seconds only: every bound is a share of CPU seconds that
the test itself spends, never a wall-clock limit."""

from __future__ import annotations

import threading
import time

import numba
import numpy as np

from obliq_cli.timing import Stopwatch, cpu_clock


def _burn(seconds: float) -> float:
    """Spend ``seconds`` of this thread's CPU in Python; returns what it spent."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        sum(range(1000))
    return time.thread_time() - start


def _on_a_thread(work):
    out = []
    thread = threading.Thread(target=lambda: out.append(work()))
    thread.start()
    thread.join()
    return out[0]


def test_the_main_thread_takes_the_process_clock_any_other_its_own():
    assert cpu_clock() is time.process_time
    assert _on_a_thread(cpu_clock) is time.thread_time


def test_the_process_clock_counts_the_threads_a_fit_starts():
    """A task alone in its process (main thread) is charged for the helper threads it
    hands work to, as BLAS's pool."""
    watch = Stopwatch()
    spent = _on_a_thread(lambda: _burn(0.2))
    _, cpu = watch.read()
    assert cpu >= 0.9 * spent


def test_a_thread_is_not_charged_for_its_neighbours_work():
    """Under the threading backend a task's thread clock leaves out what another task
    spends meanwhile in the same process."""
    started, done = threading.Event(), threading.Event()

    def waiting_task():
        watch = Stopwatch()
        started.set()
        done.wait()
        return watch.read()[1]

    out = []
    thread = threading.Thread(target=lambda: out.append(waiting_task()))
    thread.start()
    started.wait()
    neighbour = _burn(0.2)
    done.set()
    thread.join()
    assert neighbour >= 0.2 and out[0] < 0.25 * neighbour


def test_numbas_compilation_is_taken_off_the_cpu_time():
    """A function compiled on its first call inside the stopwatch: the process spent the
    compilation, the stopwatch reports a small share of it."""
    @numba.njit(cache=False)
    def fresh(values):  # defined here, so nothing has compiled it before
        total = 0.0
        for v in values:
            total += v * v
        return total

    values = np.arange(10.0)
    start = time.process_time()
    watch = Stopwatch()
    assert fresh(values) == 285.0
    _, cpu = watch.read()
    spent = time.process_time() - start
    assert spent > 0.05  # numba compiled (tenths of a second at least)
    assert cpu < 0.2 * spent
    watch = Stopwatch()  # compiled now: nothing to take off
    fresh(values)
    assert watch.read()[1] < 0.2 * spent
