"""The runner: same results for any number of jobs, resume after a kill, failures kept."""

import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.algorithms.cart import CARTClassifier
from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import ConfigError
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.schema import KEY_COLUMNS, LABEL_COLUMNS, RUN_COLUMNS, TIME_COLUMNS
from obliq_cli.registry import ALGORITHMS, register_algorithm
from obliq_cli.report.tables import render_tables


def runs_of(out):
    runs = pd.read_csv(out / "runs.csv", keep_default_na=False)
    return runs.drop(columns=TIME_COLUMNS).sort_values(LABEL_COLUMNS).reset_index(drop=True)


def test_jobs_and_backends_give_identical_runs(small_config, tmp_path):
    outs = {}
    for label, overrides in {"j1": {"n_jobs": 1}, "j2": {"n_jobs": 2},
                             "threads": {"n_jobs": 2, "backend": "threading"}}.items():
        out = tmp_path / label
        config = load_config(small_config, {"output": str(out), **overrides})
        summary = run_experiment(config, progress=False)
        assert summary.ran == 2 * 2 * 3 * 2 and not summary.failed
        outs[label] = runs_of(out)
        # every backend's clock (the process's, or the thread's under threading) measures
        # this fit alone: positive, and no more than every core busy for its wall time
        # (the process clock also counts a worker's BLAS helper threads, so a fit's CPU
        # seconds may exceed its wall seconds: seen at -j 2; a clock that accumulated
        # across tasks would break the bound as the run goes on)
        times = pd.read_csv(out / "runs.csv")[TIME_COLUMNS]
        assert (times["fit_cpu"] > 0).all(), label
        cores = os.cpu_count() or 1
        assert (times["fit_cpu"] <= cores * times["fit_time"] + 1e-3).all(), label
    pd.testing.assert_frame_equal(outs["j1"], outs["j2"])
    pd.testing.assert_frame_equal(outs["j1"], outs["threads"])
    # the pools' workers write the prediction files (pools.store_predictions), -j 1's
    # process writes its own: the same files, byte for byte, and no temporary one left
    files = {label: {p.name: p.read_bytes() for p in (tmp_path / label / "predictions")
                     .iterdir()} for label in outs}
    assert len(files["j1"]) == 2 * 2 * 3 * 2
    assert files["j1"] == files["j2"] == files["threads"]


def test_task_chunks_keep_every_task_once_in_order():
    from obliq_cli.experiment.pools import CHUNKS_PER_WORKER, MAX_CHUNK, task_chunks

    tasks = list(range(200))
    chunks = task_chunks(tasks, 2)
    assert [t for chunk in chunks for t in chunk] == tasks
    assert len(chunks) >= 2 * CHUNKS_PER_WORKER
    assert {len(chunk) for chunk in chunks[:-1]} == {200 // (2 * CHUNKS_PER_WORKER)}
    assert task_chunks(tasks[:5], 2) == [[0], [1], [2], [3], [4]]
    assert task_chunks([], 2) == []
    # a long run's rows come back a few at a time, not in 3500 / 32 = 109-task chunks
    long = task_chunks(list(range(3500)), 2)
    assert {len(chunk) for chunk in long[:-1]} == {MAX_CHUNK}
    assert [t for chunk in long for t in chunk] == list(range(3500))


def test_chunked_dispatch_gives_the_rows_of_a_serial_run(small_config, tmp_path,
                                                         monkeypatch):
    from obliq_cli.experiment import pools

    monkeypatch.setattr(pools, "CHUNKS_PER_WORKER", 2)  # 24 tasks in chunks of 6
    outs = {}
    for label, jobs in (("j1", 1), ("j2", 2)):
        out = tmp_path / label
        run_experiment(load_config(small_config, {"output": str(out), "n_jobs": jobs}),
                       progress=False)
        outs[label] = runs_of(out)
    pd.testing.assert_frame_equal(outs["j1"], outs["j2"])


def test_every_algorithm_sees_the_same_folds(small_config, tmp_path, write_config):
    both = load_config(small_config, {"output": str(tmp_path / "both")})
    run_experiment(both, progress=False)
    text = small_config.read_text()
    start = text.index("  - name: cart-ap\n    label: FULL")
    only_full = write_config(text[:text.index("  - name: cart-ap\n    label: CC")] + text[start:],
                             "only.yaml")
    run_experiment(load_config(only_full, {"output": str(tmp_path / "only")}), progress=False)
    a = runs_of(tmp_path / "both")
    a = a[a["algorithm"] == "FULL"].drop(columns="config_hash").reset_index(drop=True)
    b = runs_of(tmp_path / "only").drop(columns="config_hash").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)  # dropping an algorithm changes nothing else
    runs = runs_of(tmp_path / "both")
    sizes = runs.pivot_table(index=["dataset", "repetition", "fold"], columns="algorithm",
                             values="n_test")
    assert (sizes["CC"] == sizes["FULL"]).all()
    roles = np.load(tmp_path / "both" / "folds" / "heart.npz")["roles"]
    assert roles.shape == (2, 3, 270)


def test_resume_after_interruption_gives_the_same_table(small_config, tmp_path):
    full = load_config(small_config, {"output": str(tmp_path / "full")})
    run_experiment(full, progress=False)
    cut = load_config(small_config, {"output": str(tmp_path / "cut")})
    run_experiment(cut, progress=False)
    # A kill mid-run: keep the header and 7 rows, and half of the 8th row.
    lines = (tmp_path / "cut" / "runs.csv").read_text().splitlines(keepends=True)
    (tmp_path / "cut" / "runs.csv").write_text("".join(lines[:8]) + lines[8][:25])
    summary = run_experiment(cut, resume=True, progress=False)
    assert summary.skipped == 7 and summary.ran == 24 - 7
    pd.testing.assert_frame_equal(runs_of(tmp_path / "full"), runs_of(tmp_path / "cut"))
    for metric in ("test_accuracy", "n_leaves"):
        assert render_tables([tmp_path / "full"], metric) == render_tables(
            [tmp_path / "cut"], metric)


def test_resume_refuses_a_changed_config(small_config, tmp_path, write_config):
    out = str(tmp_path / "r")
    run_experiment(load_config(small_config, {"output": out}), progress=False)
    changed = write_config(small_config.read_text().replace("seed: 1", "seed: 2"), "c.yaml")
    result = CliRunner().invoke(main, ["run", str(changed), "-o", out, "--resume",
                                       "--no-progress"])
    assert result.exit_code == 2 and "config changed" in result.output


@register_algorithm("test-fails-on-wisconsin", "test only: raises when a column is 1..10")
class FailsOnWisconsin(CARTClassifier):
    def fit(self, X, y):
        if X.shape[1] == 9:  # wisconsin has 9 features, heart 13
            raise RuntimeError("boom\nsecond line")
        return super().fit(X, y)


def test_failed_tasks_are_recorded_and_the_run_goes_on(write_config, tmp_path):
    path = write_config(f"""
        name: failing
        datasets: [heart, wisconsin]
        algorithms: [test-fails-on-wisconsin]
        protocol: {{name: kfold, folds: 2}}
        output: {tmp_path / 'failing'}
        """)
    result = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert result.exit_code == 1
    assert "2 failed" in result.output and "RuntimeError: boom" in result.output
    runs = pd.read_csv(tmp_path / "failing" / "runs.csv", keep_default_na=False)
    assert (runs.loc[runs["dataset"] == "heart", "status"] == "ok").all()
    assert list(runs.loc[runs["dataset"] == "wisconsin", "error"]) == ["RuntimeError: boom"] * 2
    assert "test-fails-on-wisconsin" in ALGORITHMS


def test_cli_flags_override_the_file(small_config, tmp_path):
    out = tmp_path / "elsewhere"
    result = CliRunner().invoke(main, ["run", str(small_config), "-o", str(out), "-j", "2",
                                       "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (out / "runs.csv").exists()
    assert not (tmp_path / "results" / "small").exists()
    import json
    meta = json.loads((out / "meta.json").read_text())
    (entry,) = meta["history"]
    assert entry["n_jobs"] == 2 and meta["config"]["n_jobs"] == 2
    assert entry["versions"]["numpy"] == np.__version__
    assert "| heart" in result.output and "CC" in result.output


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_results(write_config, tmp_path):
    """A real SIGKILL in the middle of a run, then --resume."""
    import os
    import signal
    import subprocess
    import sys
    import time

    text = f"""
        name: killed
        datasets: [vehicle]
        algorithms: [{{name: cart-ap, label: A, pruner: {{name: cc}}}}]
        protocol: {{name: kfold, folds: 5, repeats: 8, prune_fraction: 0.1}}
        output: {tmp_path / 'killed'}
        """
    path = write_config(text)
    command = [sys.executable, "-m", "obliq_cli.cli", "run", str(path), "--no-progress"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = tmp_path / "killed" / "runs.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if runs.exists() and runs.read_text().count("\n") > 5:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait()
    written = runs.read_text().count("\n") - 1
    resumed = CliRunner().invoke(main, ["run", str(path), "--resume", "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    reference = write_config(text.replace(str(tmp_path / "killed"), str(tmp_path / "whole")),
                             "whole.yaml")
    run_experiment(load_config(reference), progress=False)
    pd.testing.assert_frame_equal(runs_of(tmp_path / "killed"), runs_of(tmp_path / "whole"))
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert 5 <= written < 40


def test_dask_backend_without_dask_is_a_clear_error(small_config, tmp_path):
    import importlib.util

    import pytest

    if importlib.util.find_spec("distributed") is not None:
        pytest.skip("dask is installed: the missing-package error cannot be shown")
    out = tmp_path / "d"
    result = CliRunner().invoke(main, ["run", str(small_config), "-o", str(out), "--backend",
                                       "dask", "--no-progress"])
    assert result.exit_code == 2 and 'pip install "obliq[dask]"' in result.output
    assert not out.exists()


@pytest.mark.slow
def test_dask_backend_gives_the_same_runs(small_config, tmp_path):
    import importlib.util

    import pytest

    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install 'obliq[dask]')")
    outs = {}
    for label, overrides in {"serial": {"n_jobs": 1},
                             "dask": {"n_jobs": 2, "backend": "dask"}}.items():
        out = tmp_path / label
        run_experiment(load_config(small_config, {"output": str(out), **overrides}),
                       progress=False)
        outs[label] = runs_of(out)
    pd.testing.assert_frame_equal(outs["serial"], outs["dask"])


def test_label_noise_is_shared_by_algorithms_and_spares_the_test_rows(write_config, tmp_path):
    base = f"""
        name: noisy
        datasets: [wisconsin]
        algorithms:
          - {{name: cart-ap, label: A}}
          - {{name: cart-ap, label: B}}
        protocol: {{name: kfold, folds: 3, repeats: 1, label_noise: 0.3}}
        output: {tmp_path / 'noisy'}
        """
    run_experiment(load_config(write_config(base)), progress=False)
    clean = write_config(base.replace(", label_noise: 0.3", "").replace(
        str(tmp_path / "noisy"), str(tmp_path / "clean")), "clean.yaml")
    run_experiment(load_config(clean), progress=False)
    noisy, plain = runs_of(tmp_path / "noisy"), runs_of(tmp_path / "clean")
    # A and B are the same algorithm: with the same flips they give identical rows.
    a = noisy[noisy.algorithm == "A"].drop(columns=["algorithm", "task"]).reset_index(drop=True)
    b = noisy[noisy.algorithm == "B"].drop(columns=["algorithm", "task"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert (noisy["n_test"].to_numpy() == plain["n_test"].to_numpy()).all()
    # 30 % flipped labels make the unpruned tree worse on the clean test rows.
    assert noisy["test_accuracy"].mean() < plain["test_accuracy"].mean() - 5


# --- The runner alone, on the test-only registrations of conftest ---------------------

def _latest(out):
    """runs.csv as readers see it: the last row of each key, without the times."""
    runs = pd.read_csv(out / "runs.csv", keep_default_na=False)
    runs = runs.drop_duplicates(KEY_COLUMNS, keep="last")
    # Re-read so columns that held error rows get the dtypes of a clean file.
    runs = pd.read_csv(io.StringIO(runs.to_csv(index=False)), keep_default_na=False)
    return runs.drop(columns=TIME_COLUMNS).sort_values(LABEL_COLUMNS).reset_index(drop=True)


def test_pool_workers_give_the_same_rows_as_one_process(test_config, tmp_path):
    # Also shows a loky worker finds names registered outside obliq_cli (conftest).
    path = test_config()
    outs = []
    for jobs, backend in ((1, "loky"), (2, "loky"), (2, "fork")):
        out = tmp_path / f"j{jobs}{backend}"
        config = load_config(path, {"output": str(out)})
        summary = run_experiment(config, n_jobs=jobs, backend=backend, progress=False)
        assert (summary.total, summary.ran, summary.skipped, summary.failed) == (32, 32, 0, [])
        outs.append(runs_of(out))
    assert (outs[0]["status"] == "ok").all()
    pd.testing.assert_frame_equal(outs[0], outs[1])
    pd.testing.assert_frame_equal(outs[0], outs[2])


def test_results_layout(test_config, tmp_path):
    import json

    config = load_config(test_config(), {})
    run_experiment(config, progress=False)
    out = Path(config.output)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["name"] == "tiny" and meta["config_hash"] == config.hash()
    assert meta["config"] == config.to_dict()
    (entry,) = meta["history"]
    assert {"python", "numpy", "scipy", "scikit-learn", "obliq"} <= set(entry["versions"])
    assert entry["started"] < entry["finished"] and entry["outcome"] == "finished"
    assert entry["tasks"] == {"total": 32, "skipped": 0, "ran": 32, "failed": 0}
    text = (out / "runs.csv").read_text()
    assert text.count("task,config_hash,dataset") == 1  # one header
    runs = runs_of(out)
    assert list(pd.read_csv(out / "runs.csv", nrows=0).columns) == RUN_COLUMNS
    folds = np.load(out / "folds" / "test-iris.npz")
    assert folds["fold"].shape == (2, 150) and set(np.unique(folds["fold"])) == {0, 1, 2, 3}
    assert folds["prune"].shape == (2, 4, 150)
    assert (out / "folds" / "wine2.npz").exists()  # files are named by dataset label
    pruned, full = runs[runs["algorithm"] == "PRUNED"], runs[runs["algorithm"] == "FULL"]
    # Same rows for both; the unpruned tree grows on grow + prune rows (none wasted).
    np.testing.assert_array_equal(pruned["n_test"], full["n_test"])
    np.testing.assert_array_equal(full["n_train"], pruned["n_train"] + pruned["n_prune"])
    assert (pruned["pruner"] == "test-prune").all() and (full["pruner"] == "").all()
    assert (pruned["n_leaves"] <= 8).all()  # test-prune's max_depth: 3


def test_pruner_receives_the_prune_rows_or_none(test_config, tmp_path):
    from conftest import PRUNER_CALLS

    path = test_config()
    PRUNER_CALLS.clear()
    run_experiment(load_config(path, {}), n_jobs=1, progress=False)
    assert len(PRUNER_CALLS) == 16 and all(c["prune"] for c in PRUNER_CALLS)
    assert {c["rng"] for c in PRUNER_CALLS} == {"Generator"}
    no_prune = path.read_text().replace(", prune_fraction: 0.2", "")
    path.write_text(no_prune.replace(str(tmp_path / "results" / "tiny"), str(tmp_path / "np")))
    PRUNER_CALLS.clear()
    run_experiment(load_config(path, {}), n_jobs=1, progress=False)
    assert len(PRUNER_CALLS) == 16 and all(c["prune"] is None for c in PRUNER_CALLS)


def test_a_pruner_without_a_prune_set_grows_on_the_prune_rows(test_config, tmp_path):
    from conftest import PRUNER_CALLS

    path = test_config()
    path.write_text(path.read_text().replace("name: test-prune", "name: test-prune-growing"))
    PRUNER_CALLS.clear()
    run_experiment(load_config(path, {}), n_jobs=1, progress=False)
    assert len(PRUNER_CALLS) == 16 and all(c["prune"] is None for c in PRUNER_CALLS)
    runs = runs_of(tmp_path / "results" / "tiny")
    pruned, full = runs[runs["algorithm"] == "PRUNED"], runs[runs["algorithm"] == "FULL"]
    np.testing.assert_array_equal(pruned["n_train"], full["n_train"])
    assert (pruned["n_prune"] == 0).all()
    assert sorted(c["n_grow"] for c in PRUNER_CALLS) == sorted(pruned["n_train"])


def test_algorithms_do_not_change_each_others_rows(test_config, write_config, tmp_path):
    both = load_config(test_config(), {})
    run_experiment(both, progress=False)
    text = test_config().read_text()
    start = text.index("  - name: test-tree\n    label: FULL")
    only = write_config(text[:text.index("  - name: test-tree\n    label: PRUNED")]
                        + text[start:], "only.yaml")
    run_experiment(load_config(only, {"output": str(tmp_path / "only")}), progress=False)
    a = runs_of(Path(both.output))
    a = a[a["algorithm"] == "FULL"].drop(columns="config_hash").reset_index(drop=True)
    b = runs_of(tmp_path / "only").drop(columns="config_hash").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_resume_reruns_failed_tasks_to_the_uninterrupted_result(test_config, tmp_path):
    marker = tmp_path / "marker"
    path = test_config(name="flaky", extra=f", fail_marker: '{marker}'")
    whole = load_config(path, {"output": str(tmp_path / "whole")})
    run_experiment(whole, progress=False)
    marker.touch()
    flaky = load_config(path, {})
    first = run_experiment(flaky, n_jobs=2, progress=False)
    assert first.failed and first.ran == 32
    assert all("RuntimeError: marker present" in line for line in first.failed)
    marker.unlink()  # "fix the bug", then resume
    second = run_experiment(flaky, resume=True, progress=False)
    assert second.skipped == 32 - len(first.failed) and second.ran == len(first.failed)
    assert not second.failed
    pd.testing.assert_frame_equal(_latest(Path(flaky.output)), _latest(tmp_path / "whole"))
    for metric in ("test_accuracy", "n_leaves"):
        assert render_tables([Path(flaky.output)], metric) == render_tables(
            [tmp_path / "whole"], metric)
    # Nothing left to do: a further resume runs no task.
    assert run_experiment(flaky, resume=True, progress=False).ran == 0


def test_resume_after_a_cut_file(test_config, tmp_path):
    config = load_config(test_config(), {})
    run_experiment(config, progress=False)
    reference = runs_of(Path(config.output))
    runs = Path(config.output) / "runs.csv"
    lines = runs.read_text().splitlines(keepends=True)
    runs.write_text("".join(lines[:6]) + lines[6][:30])  # header, 5 rows, a torn row
    summary = run_experiment(config, resume=True, n_jobs=2, progress=False)
    assert (summary.skipped, summary.ran) == (5, 27)
    pd.testing.assert_frame_equal(runs_of(Path(config.output)), reference)


def test_existing_results_need_resume_or_force(test_config, tmp_path):
    import pytest

    from obliq_cli.errors import ObliqError

    config = load_config(test_config(), {})
    run_experiment(config, progress=False)
    with pytest.raises(ObliqError, match="--resume.*--force"):
        run_experiment(config, progress=False)
    # --force deletes what obliq wrote and nothing else
    (Path(config.output) / "folds" / "mine.npz").write_bytes(b"x")
    (Path(config.output) / "notes.txt").write_text("mine")
    summary = run_experiment(config, force=True, progress=False)
    assert summary.ran == 32 and len(runs_of(Path(config.output))) == 32
    assert (Path(config.output) / "folds" / "mine.npz").read_bytes() == b"x"
    assert (Path(config.output) / "notes.txt").read_text() == "mine"
    # new parameters of one algorithm are new tasks; the other algorithm's rows stay
    changed = load_config(test_config(extra=", max_depth: 2", file="changed.yaml"), {})
    summary = run_experiment(changed, resume=True, progress=False)
    assert (summary.total, summary.ran, summary.skipped) == (32, 16, 16)
    seed = load_config(test_config(file="seed.yaml"), {})
    from dataclasses import replace

    # the same config with another seed alters every stored fold: refused, naming the field
    with pytest.raises(ObliqError, match="seed: the config changed the folds"):
        run_experiment(replace(seed, seed=seed.seed + 1), resume=True, progress=False)


def test_bad_input_writes_nothing(write_config, tmp_path):
    import re

    import pytest

    from obliq_cli.errors import ObliqError

    cases = {
        "test-nan": ("kfold, folds: 3", "missing or infinite value (row 7)"),
        "test-lopsided": ("kfold, folds: 2", "training part has a single class"),
        "test-iris": ("fixed_split", "has no fixed train/test split"),
    }
    for dataset, (protocol, message) in cases.items():
        out = tmp_path / dataset
        path = write_config(f"""
            name: bad
            datasets: [{dataset}]
            algorithms: [test-tree]
            protocol: {{name: {protocol}}}
            output: {out}
            """, f"{dataset}.yaml")
        with pytest.raises(ObliqError, match=re.escape(message)) as info:
            run_experiment(load_config(path, {}), progress=False)
        assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)
        assert not out.exists()


def test_fixed_split_protocol_runs(write_config, tmp_path):
    path = write_config(f"""
        name: fixed
        datasets: [test-fixed]
        algorithms: [{{name: test-tree, pruner: {{name: test-prune}}}}]
        protocol: {{name: fixed_split, repeats: 2, prune_fraction: 0.25}}
        output: {tmp_path / 'fixed'}
        """)
    run_experiment(load_config(path, {}), progress=False)
    runs = runs_of(tmp_path / "fixed")
    assert list(runs["n_test"]) == [50, 50] and list(runs["n_prune"]) == [25, 25]
    assert (np.load(tmp_path / "fixed" / "folds" / "test-fixed.npz")["fold"] >= -1).all()


def test_dataset_params_apply_to_their_dataset_only(write_config, tmp_path):
    path = write_config(f"""
        name: perdata
        datasets: [heart, wisconsin]
        algorithms:
          - name: cart-ap
            params: {{max_depth: 4}}
            dataset_params: {{heart: {{max_depth: 1}}}}
        protocol: {{name: kfold, folds: 2}}
        output: {tmp_path / 'p'}
        """)
    run_experiment(load_config(path), progress=False)
    runs = pd.read_csv(tmp_path / "p" / "runs.csv")
    assert (runs.loc[runs.dataset == "heart", "depth"] == 1).all()
    assert (runs.loc[runs.dataset == "wisconsin", "depth"] == 4).all()
    bad = write_config(path.read_text().replace("{heart: {max_depth: 1}}",
                                                "{hart: {max_depth: 1}}"), "bad.yaml")
    result = CliRunner().invoke(main, ["run", str(bad), "--no-progress"])
    assert result.exit_code == 2
    assert "algorithms[0].dataset_params.hart: no dataset labelled 'hart'" in result.output


def test_only_limits_an_algorithm_to_some_datasets(write_config, tmp_path):
    path = write_config(f"""
        name: only
        datasets: [heart, wine]
        algorithms:
          - cart-ap
          - {{name: gepsvm, params: {{delta: 1.0}}, only: [heart]}}
        protocol: {{name: kfold, folds: 2}}
        output: {tmp_path / 'o'}
        """)
    summary = run_experiment(load_config(path), progress=False)
    assert summary.total == 2 * 2 + 2 and not summary.failed
    runs = pd.read_csv(tmp_path / "o" / "runs.csv")
    assert set(runs.loc[runs.algorithm == "gepsvm", "dataset"]) == {"heart"}


def test_a_dataset_may_set_its_own_split_sizes(write_config, tmp_path):
    text = f"""
        name: sizes
        datasets:
          - {{name: iris_virginica, protocol: {{train_size: 120, test_size: 30}}}}
          - {{name: wine1, protocol: {{train_size: 103, test_size: 75}}}}
        algorithms: [cart-ap]
        protocol: {{name: random_split, runs: 2, train_size: 0.5}}
        output: {tmp_path / "out"}
        """
    config = load_config(write_config(text))
    assert [d.protocol.train_size for d in config.datasets] == [120, 103]
    assert config.datasets[1].protocol.repeats == 2  # the rest is the experiment's
    run_experiment(config, progress=False)
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    sizes = runs.groupby("dataset")[["n_train", "n_test"]].first()
    assert sizes.loc["iris_virginica"].tolist() == [120, 30]
    assert sizes.loc["wine1"].tolist() == [103, 75]
    plain = load_config(write_config(text.replace(", protocol: {train_size: 103, "
                                                  "test_size: 75}", ""), "plain.yaml"))
    assert plain.datasets[1].protocol is None
    for bad, field in (("{repeats: 3}", "datasets[0].protocol.repeats"),
                       ("{folds: 3}", "datasets[0].protocol.folds"),
                       ("{train_size: 1.5}", "datasets[0].protocol.train_size")):
        path = write_config(text.replace("{train_size: 120, test_size: 30}", bad), "bad.yaml")
        with pytest.raises(ConfigError, match=re.escape(field)):
            load_config(path)


def test_the_runner_hands_c45_and_id3_the_qualitative_columns():
    from obliq_cli.config import AlgorithmSpec
    from obliq_cli.experiment.fit import make_task_estimator

    info = {"categorical": [0, 3]}
    names = (1, "golf", 0, 0, "x")
    for name in ("c45", "id3"):
        est = make_task_estimator(AlgorithmSpec(name, name), "golf", info, names)
        assert est.get_params()["categorical_features"] == [0, 3]
        # a config that sets the parameter keeps its value ([] = every column continuous)
        est = make_task_estimator(AlgorithmSpec(name, name, {"categorical_features": []}),
                                  "golf", info, names)
        assert est.get_params()["categorical_features"] == []
    assert "categorical_features" not in make_task_estimator(
        AlgorithmSpec("cart-ap", "cart-ap"), "golf", info, names).get_params()


def test_a_task_fits_on_one_thread_unless_the_config_says_otherwise():
    """n_threads None (every core outside a run) becomes 1 in a task, so fit_cpu does not
    count threads' handoffs that depend on -j; a config's own value is kept."""
    from obliq_cli.config import AlgorithmSpec
    from obliq_cli.experiment.fit import make_task_estimator

    names = (1, "pima", 0, 0, "x")
    for name in ("oc1", "hhcart-a"):
        assert make_task_estimator(AlgorithmSpec(name, name), "pima", {}, names
                                   ).get_params()["n_threads"] == 1
        assert make_task_estimator(AlgorithmSpec(name, name, {"n_threads": 2}), "pima", {},
                                   names).get_params()["n_threads"] == 2
    assert "n_threads" not in make_task_estimator(
        AlgorithmSpec("cart-ap", "cart-ap"), "pima", {}, names).get_params()
