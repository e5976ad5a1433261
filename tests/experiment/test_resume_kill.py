"""A resume killed at every moment loses no stored row and never leaves a broken file;
a run stopped by a signal at a random moment resumes to an uninterrupted run's rows.

A forked child resumes a damaged, grown experiment and kills itself (SIGKILL) at the k-th
point between two file operations (``results._step``: the damaged lines set aside, the
temporary runs.csv written, renamed, each fold file and meta.json written and renamed, a
row appended), for every k but the appends in the middle (all alike); a torn append (half
a row) is tried too. After each kill
the stored rows are still there byte for byte, meta.json is whole, every row has its
file of test predictions, and one more resume ends with the rows and prediction files of
an uninterrupted run.
"""

import contextlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pandas as pd
import pytest

from obliq_cli.config import load_config
from obliq_cli.experiment import results
from obliq_cli.experiment.predictions import FOLDER
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.schema import TIME_COLUMNS

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="needs fork")

CONFIG = """
name: killed
seed: 2
datasets: [test-iris{more_datasets}]
algorithms:
  - {{name: test-tree, label: A}}
{more_algorithms}
protocol: {{name: kfold, folds: 2, repeats: {repeats}, prune_fraction: 0.2}}
output: {out}
"""


def _rows(path):
    frame = pd.read_csv(path / "runs.csv", keep_default_na=False)
    return frame.drop(columns=TIME_COLUMNS + ["config_hash"]).sort_values(
        "task").reset_index(drop=True)


def _files(folder) -> dict:
    """{name: bytes} of a folder's files but the temporary ones a kill leaves."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith(".tmp")}


def _resume_and_die(config, kill_at: int, names: list | None = None) -> int:
    """Fork a child that resumes and SIGKILLs itself at step ``kill_at`` (never when
    negative); returns the child's step count, or -SIGKILL when it was killed. ``names``
    gets the steps' names (a run to the end)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        steps = 0

        def step(name):
            nonlocal steps
            if steps == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            steps += 1
            seen.append(name)

        seen = []
        try:
            results._step = step
            run_experiment(config, resume=True, progress=False, n_jobs=1)
            os.write(write, "\n".join(seen).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as handle:
        text = handle.read()
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    names.extend(text.split("\n"))
    return len(names)


@pytest.mark.slow
def test_a_resume_killed_at_every_step_loses_nothing(write_config, tmp_path):
    out = tmp_path / "killed"
    small = write_config(CONFIG.format(more_datasets="", more_algorithms="", repeats=1,
                                       out=out), "small.yaml")
    grown_path = write_config(CONFIG.format(
        more_datasets=", {name: test-wine, label: wine2, params: {classes: 2}}",
        more_algorithms="", repeats=2,
        out=out), "grown.yaml")
    grown = load_config(grown_path)
    whole = tmp_path / "whole"
    run_experiment(load_config(grown_path, {"output": str(whole)}), progress=False)
    expected = _rows(whole)

    run_experiment(load_config(small), progress=False)
    pristine = (out / "runs.csv").read_bytes()
    stored = pristine.splitlines(keepends=True)[1:]
    # damage: a line of garbage, then a half-written row
    damaged = pristine + b"\x00garbage,\xff\n" + stored[0][:30]
    backup = {p.name: p.read_bytes() for p in (out / "meta.json", results.fold_file(
        out, "test-iris"))}
    kept = {p.name: p.read_bytes() for p in (out / FOLDER).iterdir()}

    def restore():
        shutil.rmtree(out / FOLDER)
        (out / FOLDER).mkdir()
        for name, data in kept.items():
            (out / FOLDER / name).write_bytes(data)
        (out / "runs.csv").write_bytes(damaged)
        for name in ("meta.json",):
            (out / name).write_bytes(backup[name])
        results.fold_file(out, "test-iris").write_bytes(backup["test-iris.npz"])
        results.fold_file(out, "wine2").unlink(missing_ok=True)
        (out / results.DAMAGED).unlink(missing_ok=True)

    restore()
    names = []
    total = _resume_and_die(grown, -1, names)
    new_tasks = 2 * 2 * 2 - len(stored)
    assert names.count("row appended") == new_tasks
    assert {"damaged lines set aside", "rename runs.csv", "rename meta.json",
            "rename wine2.npz"} <= set(names)
    rows = [i for i, name in enumerate(names) if name == "row appended"]
    # every step that writes a file; of the appends (all alike) the first and the last
    points = [i for i in range(total) if i not in rows[1:-1]]
    for kill_at in points:
        # a kill in the middle of an append leaves half a row: tried after each row
        for torn in (False, True) if names[kill_at] == "row appended" else (False,):
            restore()
            assert _resume_and_die(grown, kill_at) == -signal.SIGKILL
            data = (out / "runs.csv").read_bytes()
            if torn and data.endswith(b"\n") and data.count(b"\n") > len(stored) + 1:
                data = data[:-20]  # the kill came in the middle of the last append
                (out / "runs.csv").write_bytes(data)
            lines = data.splitlines(keepends=True)
            # every stored row is still there, byte for byte, in its place
            assert lines[1:1 + len(stored)] == stored, kill_at
            # every whole row has its predictions (written before it); a file may lack
            # its row (killed between the two), which the resume writes again
            for row in results.read_runs_file(out / "runs.csv").rows:
                assert (out / FOLDER / f"{row['task']}.npz").is_file(), kill_at
            meta = json.loads((out / "meta.json").read_text())
            assert isinstance(meta, dict) and meta["history"][0] == json.loads(
                backup["meta.json"])["history"][0]
            summary = run_experiment(grown, resume=True, progress=False, n_jobs=1)
            assert summary.ran + summary.skipped == summary.total == 8
            pd.testing.assert_frame_equal(_rows(out), expected)
            assert (out / "runs.csv").read_bytes().splitlines(keepends=True)[
                1:1 + len(stored)] == stored
            assert _files(out / FOLDER) == _files(whole / FOLDER), kill_at


# ---------------------------------------------------------------------------------------
# Signals at random moments: `obliq run -j 2` stopped by Ctrl-C (SIGINT to its process
# group, as a terminal sends it), SIGTERM or SIGKILL (to the run alone), then resumed,
# ends with the rows of an uninterrupted run. Tasks of ~2-60 ms (CART, OC1 with two
# restarts on 300 rows), 24 of them. Fork: moments drawn (seeded) over an uninterrupted
# run's length until 20 of them have stopped a run (a moment after the run's end stops
# nothing); loky: three stops among the rows of one run resumed each time.

RANDOM_SEED = 20261126
TINY = """name: tiny
seed: 3
datasets: [{name: twonorm_gen, params: {n: 300}}]
algorithms: [cart-ap, {name: oc1, params: {n_restarts: 2}}]
protocol: {name: kfold, folds: 4, repeats: 3}
"""
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGKILL: -signal.SIGKILL}
OUTCOME = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def _csv_rows(out) -> dict:
    """{task: row without its times} of runs.csv's whole lines."""
    from obliq_cli.experiment.results import read_runs_file

    path = out / "runs.csv"
    if not path.is_file():
        return {}
    runs = read_runs_file(path)
    assert not runs.damaged, runs.damaged
    rows = {}
    for row in runs.rows:
        assert row["task"] not in rows, f"task {row['task']} written twice"
        rows[row["task"]] = {k: v for k, v in row.items() if k not in TIME_COLUMNS}
    return rows


def _group_left(pgid) -> list[int]:
    import subprocess

    text = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True,
                          text=True).stdout
    return [int(p) for p, g, s in (line.split() for line in text.splitlines())
            if int(g) == pgid and not s.startswith("Z")]


def _forked_obliq(args: list[str], err_path, delay=None, signum=None):
    """``obliq ARGS`` in a forked child of its own process group (the CLI in-process, as
    the obliq process runs it); with ``signum``, sent after ``delay`` seconds. Returns
    (exit code or -signal, stderr text, whether the signal reached a running run)."""
    import time

    from obliq_cli import interrupts

    run_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, run_signals)  # until the child is set up
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            os.setpgid(0, 0)
            # as ``import obliq_cli`` does in the obliq process (a Ctrl-C while it starts)
            interrupts.own_process = lambda: True
            signal.signal(signal.SIGINT, signal.default_int_handler)
            interrupts.guard_exit("while starting")
            signal.pthread_sigmask(signal.SIG_UNBLOCK, run_signals)
            err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(err, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            from obliq_cli.cli import main

            main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except BaseException:  # a traceback the command let out: the test reads it
            import traceback

            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(code)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, run_signals)
    reached, done = False, 0
    if signum is not None:
        time.sleep(delay)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            reached = True
            if signum == signal.SIGINT:
                os.killpg(pid, signum)
            else:
                os.kill(pid, signum)
    if not done:
        _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    for _ in range(300):  # the workers leave with their run (fork: at once)
        if not _group_left(pid):
            break
        time.sleep(0.1)
    assert not _group_left(pid), f"workers outlived the run ({signum})"
    return code, err_path.read_text(errors="replace"), reached


def _obliq_process(args: list[str], rows_before: int | None = None, signum=None,
                   delay: float = 0.0, out=None):
    """``obliq ARGS`` as its own process (loky needs a fresh interpreter); with
    ``signum``, sent ``delay`` s after runs.csv holds more than ``rows_before`` rows."""
    import subprocess
    import time

    obliq = Path(sys.executable).with_name("obliq")
    proc = subprocess.Popen(
        [str(obliq), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    reached = False
    if signum is not None:
        runs = out / "runs.csv"
        while proc.poll() is None:
            if runs.is_file() and runs.read_bytes().count(b"\n") > rows_before + 1:
                break
            time.sleep(0.01)
        time.sleep(delay)
        if proc.poll() is None:
            reached = True
            if signum == signal.SIGINT:
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    for _ in range(300):  # loky's workers watch their parent's pid once a second
        if not _group_left(proc.pid):
            break
        time.sleep(0.1)
    assert not _group_left(proc.pid), f"workers outlived the run ({signum})"
    return proc.returncode, err, reached


def _check_stopped(code, err, reached, signum, out, reference):
    """What a run stopped by ``signum`` must leave: its exit code (never 0 once the
    signal reached it), no traceback nor more than one line of its own, only rows of the
    uninterrupted run, its history entry closed (but after SIGKILL)."""
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err
    rows = _csv_rows(out)
    if reached and code == 0:
        # sent while the process was leaving: after its last instruction, while the
        # kernel tears it down (a forked pytest is large), a signal has nothing to stop;
        # then the run must be whole and its entry closed as finished
        assert rows == reference, (signum, code, err)
        entry = json.loads((out / "meta.json").read_text())["history"][-1]
        assert entry["outcome"] == "finished", entry
        reached = False
    if reached:
        # 128 + signal; or killed by the signal itself (the same to a shell) when it came
        # once Python had put back its default action
        assert code in (EXIT[signum], -signum), (signum, code, err)
        if signum != signal.SIGKILL:
            errors = [line for line in err.splitlines() if line.startswith("error: ")]
            assert len(errors) == 1, err
            assert errors[0].startswith(("error: interrupted", "error: terminated")), err
    else:
        assert code == 0, err
    for task, row in rows.items():  # every whole row is the uninterrupted run's
        assert row == reference[task], task
    meta = out / "meta.json"
    if meta.is_file() and signum != signal.SIGKILL:
        history = json.loads(meta.read_text())["history"]
        assert all(entry["finished"] for entry in history), history
        last = history[-1]["outcome"]
        assert last in ("finished", OUTCOME[signum]), last
    return len(rows), reached


def _warm_up() -> None:
    """Load here what each forked run and its workers would otherwise load again: the
    compiled kernels the two algorithms use and the version record's git commit."""
    import numpy as np

    from obliq_cli import registry
    from obliq_cli.experiment import provenance

    provenance.versions()
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    registry.make_estimator("cart-ap").fit(X, y)
    registry.make_estimator("oc1", n_restarts=2, random_state=0).fit(X, y)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork backend, ps")
def test_runs_killed_at_random_moments_resume_to_the_same_rows(tmp_path):
    import random
    import time

    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    err = tmp_path / "stderr.txt"
    rng = random.Random(RANDOM_SEED)
    _warm_up()  # what every forked run would load again: the compiled kernels, git

    def run_args(out, backend, *more):
        return ["run", str(config), "-o", str(out), "-j", "2", "--backend", backend,
                "--no-progress", *more]

    whole = tmp_path / "whole"
    start = time.perf_counter()
    code, text, _ = _forked_obliq(run_args(whole, "fork"), err)
    length = time.perf_counter() - start
    assert code == 0, text
    reference = _csv_rows(whole)
    assert len(reference) == 24

    signals = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
    kills = []
    for i in range(60):  # fork: any moment of the run, start-up and shutdown included
        out = tmp_path / f"fork{i}"
        signum = signals[i % 3]
        delay = rng.uniform(0, length)
        code, text, reached = _forked_obliq(run_args(out, "fork"), err, delay, signum)
        kept, reached = _check_stopped(code, text, reached, signum, out, reference)
        kills.append((signum.name, round(delay, 3), kept, reached))
        code, text, _ = _forked_obliq(run_args(out, "fork", "--resume"), err)
        assert code == 0 and "Traceback" not in text, text
        assert _csv_rows(out) == reference, kills[-1]
        if sum(hit for *_, hit in kills) == 20:  # 20 moments that stopped a run
            break
    # the moments reached runs at every stage: before any row, among them, at the end
    reached = [kept for *_, kept, hit in kills if hit]
    assert len(reached) == 20 and min(reached) == 0 and max(reached) > 0, kills

    # loky (a process each: its workers are fresh interpreters): stopped three times
    # among its rows, resuming each time; the last resume is forked (rows do not depend
    # on the backend, and it saves starting two more interpreters)
    out = tmp_path / "loky"
    for signum in signals:
        before = len(_csv_rows(out))
        code, text, reached = _obliq_process(
            run_args(out, "loky", *(["--resume"] if before else [])), before, signum,
            rng.uniform(0, 0.05), out)
        _check_stopped(code, text, reached, signum, out, reference)
    code, text, _ = _forked_obliq(run_args(out, "fork", "--resume"), err)
    assert code == 0 and "Traceback" not in text, text
    assert _csv_rows(out) == reference
