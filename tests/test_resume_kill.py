"""A resume killed at every moment loses no stored row and never leaves a broken file.

A forked child resumes a damaged, grown experiment and kills itself (SIGKILL) at the k-th
point between two file operations (``results._step``: the damaged lines set aside, the
temporary runs.csv written, renamed, each fold file and meta.json written and renamed, a
row appended), for every k but the appends in the middle (all alike); a torn append (half
a row) is tried too. After each kill
the stored rows are still there byte for byte, meta.json is whole, and one more resume
ends with the rows of an uninterrupted run.
"""

import json
import os
import signal
import sys

import pandas as pd
import pytest

from obliq_cli.config import load_config
from obliq_cli.experiment import results
from obliq_cli.experiment.runner import run_experiment

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
    return frame.drop(columns=["fit_time", "predict_time", "config_hash"]).sort_values(
        "task").reset_index(drop=True)


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

    def restore():
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
            meta = json.loads((out / "meta.json").read_text())
            assert isinstance(meta, dict) and meta["history"][0] == json.loads(
                backup["meta.json"])["history"][0]
            summary = run_experiment(grown, resume=True, progress=False, n_jobs=1)
            assert summary.ran + summary.skipped == summary.total == 8
            pd.testing.assert_frame_equal(_rows(out), expected)
            assert (out / "runs.csv").read_bytes().splitlines(keepends=True)[
                1:1 + len(stored)] == stored
