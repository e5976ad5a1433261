"""A scikit-learn classifier named by ``estimator:`` beside obliq's own algorithms: the same
rows under every backend, "-" for the sizes it has none of, one error line for each bad
entry, and a resume refused when the code its stored rows came from changed."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import invoke, rows_without_times

from obliq_cli import registry
from obliq_cli.config import load_config
from obliq_cli.experiment.fit import make_task_estimator
from obliq_cli.experiment.replay import replay_task
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.seeds import rng_for

CONFIG = """
name: ext
seed: 3
{imports}datasets: [heart, iris]
algorithms:
  - name: cart-ap
    pruner: cc
  - estimator: sklearn.ensemble.RandomForestClassifier
    label: RF
    params: {{n_estimators: 10}}
  - estimator: sklearn.tree.DecisionTreeClassifier
protocol: {{name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}}
metrics: [test_accuracy, n_leaves]
output: {out}
"""


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    """The config run with -j 1, -j 2 (fork) and -j 2 (loky): the three runs.csv paths."""
    base = tmp_path_factory.mktemp("external")
    out = {}
    for name, n_jobs, backend in (("j1", 1, "fork"), ("fork", 2, "fork"), ("loky", 2, "loky")):
        path = base / f"{name}.yaml"
        path.write_text(CONFIG.format(imports="", out=base / name))
        summary = run_experiment(load_config(path), n_jobs=n_jobs, backend=backend,
                                 progress=False)
        assert summary.failed == [] and summary.ran == 36
        out[name] = base / name
    return out


@pytest.mark.slow
def test_the_rows_are_the_same_for_every_backend(three_runs):
    one = rows_without_times(three_runs["j1"] / "runs.csv")
    assert len(one) == 36
    assert {r["algorithm"] for r in one.values()} == {"cart-ap", "RF", "DecisionTreeClassifier"}
    assert {r["algorithm_name"] for r in one.values() if r["algorithm"] == "RF"} == {
        "sklearn.ensemble.RandomForestClassifier"}
    for other in ("fork", "loky"):
        assert rows_without_times(three_runs[other] / "runs.csv") == one, other


@pytest.mark.slow
def test_sizes_are_empty_for_the_forest_and_the_table_shows_a_dash(three_runs):
    rows = rows_without_times(three_runs["j1"] / "runs.csv").values()
    forest = [r for r in rows if r["algorithm"] == "RF"]
    assert forest and all(r["status"] == "ok" for r in forest)
    assert all(r["n_leaves"] == r["n_internal"] == r["depth"] == "" for r in forest)
    assert all(int(r["n_leaves"]) >= 1 for r in rows if r["algorithm"] == "cart-ap")
    result, lines = invoke(["table", three_runs["j1"], "--metric", "n_leaves"])
    assert result.exit_code == 0, result.output
    header = [c.strip() for c in next(x for x in lines if x.startswith("| dataset")).split("|")]
    for name in ("heart", "iris"):
        cells = [c.strip() for c in next(x for x in lines if x.startswith(f"| {name}"))
                 .split("|")]
        row = dict(zip(header, cells))
        assert row["RF"] == "-" and row["DecisionTreeClassifier"] == "-"
        assert "±" in row["cart-ap"]  # a number, not a dash
    for command in (["stats", three_runs["j1"]], ["agree", three_runs["j1"]],
                    ["table", three_runs["j1"], "--sig", "cart-ap"]):
        result, _ = invoke(command)
        assert result.exit_code == 0, (command, result.output)


@pytest.mark.slow
def test_a_stored_forest_task_is_replayed_exactly(three_runs):
    """The int random_state comes from the task's named stream, so a replay (another
    process's way of making the task) predicts the stored accuracy exactly."""
    rows = rows_without_times(three_runs["j1"] / "runs.csv").values()
    row = next(r for r in rows if r["algorithm"] == "RF" and r["dataset"] == "heart"
               and r["repetition"] == "1" and r["fold"] == "2")
    task = replay_task(three_runs["j1"], "heart", "RF", 1, 2)
    accuracy = 100.0 * np.mean(task.estimator.predict(task.X[task.test]) == task.y[task.test])
    assert accuracy == float(row["test_accuracy"])
    names = (3, "heart", 1, 2, "RF")
    expected = int(rng_for(*names).integers(2**31 - 1))
    assert task.estimator.random_state == expected
    spec = load_config(three_runs["j1"].parent / "j1.yaml").algorithms[1]
    assert make_task_estimator(spec, "heart", {}, names).random_state == expected


BAD = {
    "not importable": ("  - estimator: sklearn.ensemble.NoSuchForest\n",
                       "algorithms[1].estimator: module sklearn.ensemble has no "
                       "'NoSuchForest'"),
    "no module": ("  - estimator: nosuchpackage.Forest\n",
                  "algorithms[1].estimator: cannot import nosuchpackage"),
    "not a classifier": ("  - estimator: sklearn.linear_model.LinearRegression\n",
                         "algorithms[1].estimator: sklearn.linear_model.LinearRegression "
                         "is not a scikit-learn classifier"),
    "unknown param": ("  - estimator: sklearn.ensemble.RandomForestClassifier\n"
                      "    params: {n_estimatorz: 5}\n",
                      "algorithms[1].params.n_estimatorz: RandomForestClassifier has no "
                      "parameter 'n_estimatorz' (did you mean 'n_estimators'?)"),
    "bad value": ("  - estimator: sklearn.ensemble.RandomForestClassifier\n"
                  "    params: {n_estimators: -3}\n",
                  # scikit-learn checks the values in fit: the trial fit before the run
                  "algorithms[1] (RandomForestClassifier) on heart: a trial fit on 180 "
                  "training rows (its smallest task's) failed: InvalidParameterError: The "
                  "'n_estimators' parameter of RandomForestClassifier must be an int in the "
                  "range [1, inf)"),
    "pruner given": ("  - estimator: sklearn.tree.DecisionTreeClassifier\n"
                     "    pruner: cc\n",
                     "algorithms[1].pruner: DecisionTreeClassifier is not one of obliq's "
                     "trees, so it cannot be pruned"),
    "name and estimator": ("  - name: cart-ap\n"
                           "    estimator: sklearn.tree.DecisionTreeClassifier\n",
                           "algorithms[1]: give one of name (a registered algorithm), "
                           "estimator"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_estimator_entry_is_one_line_and_nothing_is_written(case, write_config,
                                                                     tmp_path):
    entry, message = BAD[case]
    out = tmp_path / "out"
    path = write_config("name: bad\ndatasets: [heart]\nalgorithms:\n  - name: cart-ap\n"
                        + entry + f"protocol: {{name: kfold, folds: 3}}\noutput: {out}\n")
    result, lines = invoke(["run", path, "--no-progress"])
    assert result.exit_code == 2, result.output
    assert lines == [f"error: {path}: {message}"] or (
        len(lines) == 1 and lines[0].startswith(f"error: {path}: {message}")), lines
    assert not out.exists()


def test_an_external_estimator_that_takes_nan_is_discoverable():
    """The missing-value policy asks data.preprocess.accepts_missing (the allow_nan tag)
    of the estimator a spec makes, external or not."""
    from obliq_cli.config import AlgorithmSpec
    from obliq_cli.data.preprocess import accepts_missing

    def spec(path):
        return AlgorithmSpec(path, path, {}, estimator=path)

    assert accepts_missing(spec("sklearn.ensemble.HistGradientBoostingClassifier")
                           .make_estimator()) is True
    assert accepts_missing(spec("sklearn.linear_model.LogisticRegression")
                           .make_estimator()) is False
    assert accepts_missing(registry.make_estimator("cart-ap")) is True  # declares allow_nan
    assert accepts_missing(registry.make_estimator("oc1")) is False


@pytest.mark.slow
def test_resume_is_refused_when_an_imports_file_changed(write_config, tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text('"""a plugin that registers nothing"""\nX = 1\n')
    out = tmp_path / "out"
    path = write_config(CONFIG.format(imports="imports: [mine.py]\n", out=out)
                        .replace("datasets: [heart, iris]", "datasets: [iris]")
                        .replace("repeats: 2", "repeats: 1"))
    result, _ = invoke(["run", path, "--no-progress"])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "meta.json").read_text())
    digest = meta["history"][-1]["provenance"]["imports"][str(mine)]
    assert meta["history"][-1]["provenance"]["estimators"]["sklearn"]
    stored = (out / "runs.csv").read_bytes()
    # unchanged: the resume goes on
    result, _ = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    mine.write_text('"""a plugin that registers nothing"""\nX = 2\n')
    before = (out / "meta.json").read_bytes()
    result, lines = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {path}: imports file {mine} changed (sha256 "
                               f"{digest[:8]}...")
    assert "--accept-changed-code" in lines[0]
    assert (out / "meta.json").read_bytes() == before
    assert (out / "runs.csv").read_bytes() == stored
    result, _ = invoke(["run", path, "--resume", "--accept-changed-code", "--no-progress"])
    assert result.exit_code == 0, result.output
    entry = json.loads((out / "meta.json").read_text())["history"][-1]
    assert entry["accepted_changed_code"] == [
        f"imports file {mine} changed (sha256 {digest[:8]}... -> "
        f"{entry['provenance']['imports'][str(mine)][:8]}...)"]
    assert (out / "runs.csv").read_bytes() == stored  # nothing new to run
    # the accepted code is now the stored rows' code: a plain resume goes on
    result, _ = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
