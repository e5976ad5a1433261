"""The durability rule of a run's prediction files: a row reaches runs.csv only after
its task's file is durable (its data fsynced before the rename into place, then the
predictions folder fsynced), whichever path wrote it: a pool's chunk (one folder fsync
for all of the chunk's files, ``pools.run_tasks``) or one job's batch (one for the
batch's files, ``pools._serial_results``). Recorded in order from ``os.fsync`` and the
writes' own steps (``results._step``); the pool is the threading backend, so its
workers' calls are in this process."""

import os
import sys

import pytest

from obliq_cli.config import load_config
from obliq_cli.experiment import pools, results
from obliq_cli.experiment.predictions import OWN_FILE
from obliq_cli.experiment.runner import run_experiment

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="names an fsync'd descriptor through /proc")


def _recorded_run(config, monkeypatch, **overrides) -> tuple[list, str]:
    """The run's events in order: ("fsync", path), ("rename", a task's file name),
    ("row", task identity), and the predictions folder's path."""
    config = load_config(config, overrides)
    out = os.path.realpath(config.output)
    events: list = []
    real_fsync, real_step = os.fsync, results._step

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def step(name):
        if name.startswith("rename ") and OWN_FILE.fullmatch(name.removeprefix("rename ")):
            events.append(("rename", name.removeprefix("rename ")))  # a task's file
        elif name == "row appended":  # the row is flushed: runs.csv's last line
            last = open(os.path.join(out, "runs.csv"), encoding="utf-8").read() \
                .splitlines()[-1]
            events.append(("row", last.split(",", 1)[0]))
        real_step(name)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(results, "_step", step)
    summary = run_experiment(config, progress=False)
    assert summary.ran == 24 and not summary.failed
    return events, os.path.join(out, "predictions")


def _check_every_row_follows_its_durable_file(events, folder) -> None:
    rows = [i for i, (kind, _) in enumerate(events) if kind == "row"]
    assert len(rows) == 24
    for at in rows:
        task = events[at][1]
        before = events[:at]
        # the data: the temporary file, fsynced, then renamed to the task's name
        synced = [i for i, (kind, what) in enumerate(before) if kind == "fsync"
                  and os.path.basename(what).startswith(f".{task}.npz.")]
        renamed = [i for i, event in enumerate(before) if event == ("rename",
                                                                    f"{task}.npz")]
        assert len(synced) == 1 and len(renamed) == 1 and synced[0] < renamed[0], task
        # the name: the folder fsynced after that rename, before the row
        assert ("fsync", folder) in before[renamed[0]:], task


def test_a_chunks_rows_follow_its_files_and_one_folder_fsync(small_config, tmp_path,
                                                             monkeypatch):
    monkeypatch.setattr(pools, "CHUNKS_PER_WORKER", 2)  # 24 tasks in 4 chunks of 6
    events, folder = _recorded_run(small_config, monkeypatch, n_jobs=2,
                                   backend="threading", output=str(tmp_path / "pool"))
    _check_every_row_follows_its_durable_file(events, folder)
    # grouped: one fsync of the folder per chunk, not one per file
    assert events.count(("fsync", folder)) == 4
    # and each chunk's rows come after all six of its files are renamed
    first_row = next(i for i, (kind, _) in enumerate(events) if kind == "row")
    assert sum(kind == "rename" for kind, _ in events[:first_row]) >= 6


def test_one_jobs_rows_follow_their_files_in_batches(small_config, tmp_path, monkeypatch):
    monkeypatch.setattr(pools, "WAIT_AFTER", float("inf"))  # batches of MAX_CHUNK tasks
    events, folder = _recorded_run(small_config, monkeypatch, n_jobs=1,
                                   output=str(tmp_path / "one"))
    _check_every_row_follows_its_durable_file(events, folder)
    assert events.count(("fsync", folder)) == 24 // pools.MAX_CHUNK
    # a batch's rows come after all its files, in the order the tasks ran
    renamed = [what.removesuffix(".npz") for kind, what in events if kind == "rename"]
    assert [task for kind, task in events if kind == "row"] == renamed
    first_row = next(i for i, (kind, _) in enumerate(events) if kind == "row")
    assert sum(kind == "rename" for kind, _ in events[:first_row]) == pools.MAX_CHUNK


def test_a_long_tasks_row_does_not_wait_for_the_next_task(small_config, tmp_path,
                                                          monkeypatch):
    """A batch longer than WAIT_AFTER has its rows appended before the next task starts:
    a task that long has its row right after its own file, never after a later task's."""
    monkeypatch.setattr(pools, "WAIT_AFTER", 0.0)
    events, folder = _recorded_run(small_config, monkeypatch, n_jobs=1,
                                   output=str(tmp_path / "long"))
    _check_every_row_follows_its_durable_file(events, folder)
    kinds = [kind if kind != "fsync" else what == folder for kind, what in events
             if kind in ("rename", "row") or (kind == "fsync" and what == folder)]
    # per task: its rename, the folder's fsync, its row; nothing of the next in between
    assert kinds == ["rename", True, "row"] * 24


def test_a_ctrl_c_in_a_fit_keeps_the_rows_held_back(small_config, tmp_path, monkeypatch):
    """One job holds its rows for a batch; a Ctrl-C raised in the third task's fit
    appends the two finished ones (their files synced first) before the run stops."""
    from obliq_cli.errors import Interrupt, Interrupted
    from obliq_cli.experiment import fit

    monkeypatch.setattr(pools, "WAIT_AFTER", float("inf"))
    run_task, seen = fit.run_task, []

    def interrupted_third(task):
        seen.append(task)
        if len(seen) == 3:
            raise Interrupt()
        return run_task(task)

    monkeypatch.setattr(fit, "run_task", interrupted_third)
    config = load_config(small_config, {"n_jobs": 1, "output": str(tmp_path / "cut")})
    with pytest.raises(Interrupted, match="2 task"):
        run_experiment(config, progress=False)
    rows = results.read_runs_file(tmp_path / "cut" / "runs.csv").rows
    assert [row["task"] for row in rows] == [task.identity for task in seen[:2]]
    for row in rows:
        assert (tmp_path / "cut" / "predictions" / f"{row['task']}.npz").is_file()
