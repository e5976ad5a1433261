"""Ctrl-C and kill -9 of `obliq run` on the process backends (real processes, so few).

Ctrl-C (SIGINT to the whole process group, as a terminal sends it) must end the run with
one `error: interrupted ...` line and exit code 130, keeping whole rows only; `kill -9`
of the run must take its workers and resource trackers with it.
"""

import csv
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

OBLIQ = Path(sys.executable).with_name("obliq")
CONFIG = """name: long
datasets: [heart]
algorithms: [cart-ap]
protocol: {name: kfold, folds: 10, repeats: 400}
"""


def _start(tmp_path, backend):
    config = tmp_path / "long.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "out"

    def as_from_a_terminal():  # a background shell would hand SIGINT down ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [str(OBLIQ), "run", str(config), "-o", str(out), "-j", "2", "--backend", backend,
         "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=as_from_a_terminal)
    runs = out / "runs.csv"
    for _ in range(1200):  # until the pool has written rows (or the run ended)
        if runs.is_file() and runs.read_text().count("\n") >= 4 or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    return proc, runs


def _group_members(pgid):
    out = subprocess.run(["ps", "-eo", "pid=,pgid="], capture_output=True, text=True).stdout
    return [int(p) for p, g in (line.split() for line in out.splitlines()) if int(g) == pgid]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["fork", "loky", "dask"])
def test_ctrl_c_prints_one_line_and_keeps_whole_rows(tmp_path, backend):
    if backend == "dask":
        pytest.importorskip("dask.distributed")
    proc, runs = _start(tmp_path, backend)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: interrupted: "), err
    assert "--resume continues" in lines[0]
    text = runs.read_text()
    assert text.endswith("\n")
    width = text.splitlines()[0].count(",")
    assert all(line.count(",") >= width for line in text.splitlines()[1:])
    # each row kept has its predictions file, written before it (by the worker, on the
    # fork and loky pools)
    folder = runs.parent / "predictions"
    tasks = [row["task"] for row in csv.DictReader(io.StringIO(text))]
    assert tasks and all((folder / f"{task}.npz").is_file() for task in tasks)
    for _ in range(300):  # the pool is gone with the run
        if not _group_members(proc.pid):
            break
        time.sleep(0.1)
    assert not _group_members(proc.pid)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ps/process groups")
@pytest.mark.parametrize("backend", ["fork", "loky"])
def test_kill_9_leaves_no_worker_behind(tmp_path, backend):

    proc, _ = _start(tmp_path, backend)
    assert len(_group_members(proc.pid)) > 1  # the run, its workers and trackers
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    for _ in range(300):  # workers watch their parent (pools.WATCH_INTERVAL)
        left = _group_members(proc.pid)
        if not left:
            break
        time.sleep(0.1)
    assert not left, subprocess.run(["ps", "-o", "pid,etime,cmd", *map(str, left)],
                                    capture_output=True, text=True).stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork backend")
def test_forked_workers_do_not_hold_the_run_folder_lock(monkeypatch, tmp_path):
    # A flock lives while any process holds the file open: a forked worker still in a
    # task after kill -9 of the run would keep the folder locked (--resume refused).
    from obliq_cli.experiment import fit, pools, results

    lock = str((tmp_path / results.LOCK).resolve())

    def fds_on_the_lock(task):  # runs in the worker
        return [fd for fd in map(int, os.listdir("/proc/self/fd"))
                if os.path.realpath(f"/proc/self/fd/{fd}") == lock]

    monkeypatch.setattr(fit, "run_task", fds_on_the_lock)
    with results.folder_lock(tmp_path):
        assert fds_on_the_lock(None)  # the run holds it
        rows = list(pools._forked_results(list(range(6)), 2))
    assert rows == [[]] * 6


def test_a_run_stopped_early_closes_the_pool_without_a_warning(monkeypatch):
    # Ctrl-C that lands while the parent writes a row stops the results generator from
    # outside joblib's own loop; joblib then warned about the cancelled tasks on two more
    # lines (1 run in 5 of the loky test above). Deterministic here: stop after one row.
    import warnings

    from obliq_cli.experiment import pools

    def slow(chunk, out=None):  # run_tasks's signature
        time.sleep(0.2)
        return list(chunk)

    monkeypatch.setattr(pools, "run_tasks", slow)
    monkeypatch.setattr(pools, "task_chunks", lambda tasks, n: [[t] for t in tasks])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = pools.parallel_results(list(range(20)), 2, "threading")
        assert next(rows) in range(20)
        rows.close()
    assert [str(w.message) for w in caught] == []
