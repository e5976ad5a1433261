"""obliq_cli.fit_threads: the default thread count of a fit and the map over threads."""

from __future__ import annotations

import threading

import pytest

from obliq_cli import fit_threads


@pytest.fixture(autouse=True)
def _no_share():
    fit_threads.set_process_share(None)
    yield
    fit_threads.set_process_share(None)


def test_explicit_count_is_kept():
    assert fit_threads.resolve_threads(3) == 3
    fit_threads.set_process_share(64)
    assert fit_threads.resolve_threads(1) == 1


def test_default_outside_a_run_takes_every_usable_core(monkeypatch):
    monkeypatch.setattr(fit_threads.os, "sched_getaffinity", lambda pid: {0, 1, 2, 5})
    assert fit_threads.resolve_threads(None) == 4


def test_default_in_a_worker_is_its_share_of_the_cores(monkeypatch):
    monkeypatch.setattr(fit_threads.os, "sched_getaffinity", lambda pid: set(range(8)))
    fit_threads.set_process_share(3)
    assert fit_threads.resolve_threads(None) == 2  # 8 // 3
    fit_threads.set_process_share(16)
    assert fit_threads.resolve_threads(None) == 1  # never below one


def test_default_off_the_main_thread_is_one(monkeypatch):
    monkeypatch.setattr(fit_threads.os, "sched_getaffinity", lambda pid: set(range(8)))
    seen = []
    thread = threading.Thread(target=lambda: seen.append(fit_threads.resolve_threads(None)))
    thread.start()
    thread.join()
    stands_in = threading.Thread(target=lambda: seen.append(fit_threads.resolve_threads(None)))
    stands_in.obliq_stands_for_main = True  # a main thread's task under a time limit
    stands_in.start()
    stands_in.join()
    assert seen == [1, 8]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_map_returns_results_in_order_and_uses_the_threads(n):
    names = []

    def work(i):
        names.append(threading.current_thread().name)
        return i * i

    with fit_threads.FitThreads(n) as threads:
        assert threads.map(work, range(10)) == [i * i for i in range(10)]
        assert threads.map(work, []) == []
    used = {name.startswith("obliq-fit") for name in names}
    assert used == ({False} if n == 1 else {False, True})


def test_map_raises_the_error_of_an_item():
    def work(i):
        if i == 3:
            raise ValueError("item 3")
        return i

    with fit_threads.FitThreads(2) as threads, pytest.raises(ValueError, match="item 3"):
        threads.map(work, range(6))
