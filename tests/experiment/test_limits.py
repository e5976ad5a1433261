"""The config's ``timeout:`` (experiment/limits.py): a task past it is recorded as failed
with "timeout after N s"; within it, the row is the one an unlimited run writes."""

import threading
import time
from dataclasses import replace

import pytest

from obliq_cli.config import load_config
from obliq_cli.errors import ObliqError
from obliq_cli.experiment import fit, limits, predictions
from obliq_cli.experiment.plan import plan
from obliq_cli.experiment.schema import TIME_COLUMNS
from obliq_cli.timing import cpu_clock


def test_no_limit_runs_on_the_calling_thread():
    assert limits.within(None, threading.get_ident) == threading.get_ident()


def test_a_value_and_an_error_come_back_from_the_fit_thread():
    assert limits.within(10, lambda: 42) == 42
    error = KeyError("mine")

    def fails():
        raise error

    with pytest.raises(KeyError) as raised:
        limits.within(10, fails)
    assert raised.value is error
    # an estimator's own exit is handed back as it is (the task records it)
    with pytest.raises(SystemExit):
        limits.within(10, lambda: exit(3))


def test_a_sleeping_fit_is_given_up_after_its_seconds():
    start = time.monotonic()
    with pytest.raises(limits.TaskTimeout, match=r"^timeout after 0\.2 s$") as raised:
        limits.within(0.2, lambda: time.sleep(1e6))
    assert 0.2 <= time.monotonic() - start < 5
    assert isinstance(raised.value, ObliqError)  # a ValueError, as every obliq error


def test_a_looping_fit_is_stopped_at_its_next_python_step():
    steps = [0]
    finished = threading.Event()

    def loop():
        try:
            while True:
                steps[0] += 1
        finally:
            finished.set()

    with pytest.raises(limits.TaskTimeout):
        limits.within(0.1, loop)
    assert finished.wait(5)  # the abandoned thread ended: it no longer takes the CPU
    counted = steps[0]
    time.sleep(0.05)
    assert steps[0] == counted


def test_the_fit_thread_keeps_the_main_threads_cpu_clock():
    assert limits.within(5, cpu_clock) is time.process_time
    other = []
    thread = threading.Thread(target=lambda: other.append(limits.within(5, cpu_clock)))
    thread.start()
    thread.join()
    assert other == [time.thread_time]  # a pool thread's task keeps its thread's clock


@pytest.fixture
def a_task(small_config):
    config = load_config(small_config, {})
    return plan(config).tasks[0]


def test_a_task_past_its_timeout_is_recorded_as_failed(a_task, monkeypatch):
    def hangs(*args, **kwargs):
        time.sleep(1e6)

    monkeypatch.setattr(fit, "fit_task", hangs)
    monkeypatch.setattr(fit, "warm_up", lambda task, y: None)  # it has no limit
    row = fit.run_task(replace(a_task, timeout=0.5))
    assert (row["status"], row["error"]) == ("error", "timeout after 0.5 s")
    assert row["task"] == a_task.identity


def test_a_timeout_the_task_keeps_changes_nothing_in_its_row(a_task):
    free = fit.run_task(a_task)
    limited = fit.run_task(replace(a_task, timeout=300))
    assert free["status"] == "ok"
    for row in (free, limited):
        for column in (*TIME_COLUMNS, predictions.KEY):  # times differ; stored apart
            row.pop(column, None)
    assert {k: str(v) for k, v in free.items()} == {k: str(v) for k, v in limited.items()}
