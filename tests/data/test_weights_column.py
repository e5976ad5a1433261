"""A dataset's ``weights:`` column: a column of row weights read by the data layer (not a
feature, not the target), handed by the runner to every fit and pruner of the dataset's
tasks as ``sample_weight``, refused in one line when bad or when an algorithm of the
config cannot take it. The files are small enough to check by hand."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import obliq_cli
from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import DataError, ObliqError
from obliq_cli.experiment import predictions
from obliq_cli.experiment.fit import fit_task, run_task
from obliq_cli.experiment.plan import plan


def table(n=90, seed=0, weights=None):
    """A CSV of two features and a class, and a weights column ``w`` when given (the
    class of rows with x1 + x2 > 0.4 is b, with a few labels flipped so that weights
    change the tree)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(3)
    y = np.where(X[:, 0] + X[:, 1] > 0.4, "b", "a")
    y[rng.choice(n, n // 6, replace=False)] = "b"
    head = "x1,x2,w,class" if weights is not None else "x1,x2,class"
    lines = [head]
    for i in range(n):
        cells = [f"{X[i, 0]}", f"{X[i, 1]}"]
        if weights is not None:
            cells.append(str(weights[i]))
        lines.append(",".join(cells + [y[i]]))
    return "\n".join(lines) + "\n"


def write(path, text):
    path.write_text(text)
    return path


WEIGHTS = np.random.default_rng(1).integers(0, 4, size=90)


def config(tmp_path, csv, algorithms, weights=True, name="c.yaml"):
    key = ", weights: w" if weights else ""
    algos = "\n".join(f"  - {a}" for a in algorithms)
    return write(tmp_path / name, f"""name: w
datasets:
  - {{name: d, path: {csv.name}, target: class{key}}}
algorithms:
{algos}
protocol: {{name: kfold, folds: 3, repeats: 1}}
""")


def test_the_weights_column_is_read_as_weights_not_as_a_feature(tmp_path):
    weighted = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    plain = write(tmp_path / "p.csv", table())
    X, y, info = obliq_cli.load_dataset("file", path=str(weighted), target="class",
                                        weights="w")
    X0, y0, info0 = obliq_cli.load_dataset("file", path=str(plain), target="class")
    assert info["feature_names"] == ["x1", "x2"]
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(info["sample_weight"], WEIGHTS.astype(float))
    assert info["weights"] == "w" and info0["sample_weight"] is None
    assert not info["sample_weight"].flags.writeable


def test_a_tasks_tree_is_fit_task_given_the_weights_by_hand(tmp_path):
    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    cfg = load_config(config(tmp_path, csv, ["cart-ap", "c45"]))
    tasks = plan(cfg).tasks
    assert len(tasks) == 6
    X, y, info = obliq_cli.load_dataset("file", path=str(csv), target="class",
                                        weights="w")
    differs = 0
    for task in tasks:
        row = run_task(task)
        assert row["status"] == "ok", row["error"]
        s = task.split
        names = (task.seed, task.dataset.label, s.repetition, s.fold, task.algorithm.label)
        by_hand = fit_task(task.algorithm, task.dataset.label, X, y, info, s.train, s.prune,
                           names, WEIGHTS.astype(float))
        unweighted = fit_task(task.algorithm, task.dataset.label, X, y, info, s.train,
                              s.prune, names)
        expected = by_hand.estimator.predict(X[s.test])
        stored = row[predictions.KEY]
        np.testing.assert_array_equal(predicted(stored), expected)
        differs += (unweighted.estimator.predict(X[s.test]) != expected).any()
    assert differs  # the weights change some tree: the comparison can fail


def predicted(stored):
    """The labels a task's stored predictions name (predictions.record's codes)."""
    return stored["classes"][stored["y_pred"]]


def test_weight_one_everywhere_gives_the_rows_of_no_weights_column(tmp_path):
    ones = write(tmp_path / "w.csv", table(weights=np.ones(90, dtype=int)))
    plain = write(tmp_path / "p.csv", table())
    rows = []
    for csv, weighted in ((ones, True), (plain, False)):
        cfg = load_config(config(tmp_path, csv, ["oc1", "cart-ap"], weighted,
                                 name=f"{csv.stem}.yaml"))
        out = []
        for task in plan(cfg).tasks:
            row = run_task(task)
            for key in ("task", "config_hash", "fit_time", "fit_cpu", "predict_time"):
                row.pop(key, None)
            stored = row.pop(predictions.KEY)
            out.append((row, {k: np.asarray(v).tobytes() for k, v in stored.items()}))
        rows.append(out)
    assert rows[0] == rows[1]


BAD = {
    "negative": ("-1", "negative weight '-1', line 3 (a row weighs 0 or more)"),
    "text": ("heavy", "non-numeric value 'heavy', line 3"),
    "infinite": ("inf", "missing or infinite value, line 3"),
    "missing": ("?", "missing value, line 3"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_weight_cell_is_one_line_naming_file_column_and_line(tmp_path, kind):
    cell, said = BAD[kind]
    weights = ["1"] * 90
    weights[1] = cell
    csv = write(tmp_path / "w.csv", table(weights=weights))
    with pytest.raises(DataError) as err:
        obliq_cli.load_dataset("file", path=str(csv), target="class", weights="w")
    assert str(err.value) == f"{csv}: weights column 'w': {said}"


def test_all_zero_weights_and_misnamed_columns_are_refused(tmp_path):
    zeros = write(tmp_path / "z.csv", table(weights=[0] * 90))
    with pytest.raises(DataError, match=r"z.csv: weights column 'w': every weight is 0"):
        obliq_cli.load_dataset("file", path=str(zeros), target="class", weights="w")
    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    with pytest.raises(DataError) as err:
        obliq_cli.load_dataset("file", path=str(csv), target="class", weights="wt")
    assert str(err.value) == (f"{csv}: weights: no column 'wt' (did you mean 'w'?); columns "
                              f"are x1, x2, w, class")
    with pytest.raises(DataError, match="weights: column 'class' is the target"):
        obliq_cli.load_dataset("file", path=str(csv), target="class", weights="class")
    with pytest.raises(DataError, match="weights: column 'w' is also declared categorical"):
        obliq_cli.load_dataset("file", path=str(csv), target="class", weights="w",
                               categorical=["w"])


def test_an_algorithm_that_reads_no_weights_is_refused_before_the_run(tmp_path):
    from obliq_cli import registry

    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    # every obliq algorithm reads row weights, those that fail scikit-learn's
    # weight-equivalence check for their inner folds or validation quarter included
    built_in = [e.name for e in registry.list_algorithms()
                if e.obj.__module__.startswith("obliq_cli")]
    assert {"apdt", "umt", "umt-ovo", "svm", "gepsvm", "quest"} <= set(built_in)
    plan(load_config(config(tmp_path, csv, built_in, name="all.yaml")))
    # a scikit-learn estimator whose fit takes no sample_weight
    path = config(tmp_path, csv, ["cart-ap", "{estimator: sklearn.neighbors.KNeighborsClassifier}"],
                  name="e.yaml")
    with pytest.raises(ObliqError) as err:
        plan(load_config(path))
    assert str(err.value) == (
        f"{path}: datasets[0].weights: algorithm 'KNeighborsClassifier' (algorithms[1]) cannot "
        f"take the row weights of column 'w' (its fit takes no sample_weight); leave it out "
        f"of this dataset (only: or skip:) or drop the weights")
    # a pipeline whose last step's fit takes no sample_weight (k nearest neighbours)
    knn = ("{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, "
           "{estimator: sklearn.neighbors.KNeighborsClassifier}]}")
    path = config(tmp_path, csv, ["cart-ap", knn], name="k.yaml")
    with pytest.raises(ObliqError, match=r"algorithms\[1\]\) cannot take the row weights "
                                         r"of column 'w' \(its last step's fit takes no "
                                         r"sample_weight\)"):
        plan(load_config(path))


def test_a_pipeline_gets_the_weights_as_its_last_steps(tmp_path):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    lr = ("{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, "
          "{estimator: sklearn.linear_model.LogisticRegression}]}")
    task = plan(load_config(config(tmp_path, csv, [lr]))).tasks[0]
    row = run_task(task)
    assert row["status"] == "ok", row["error"]
    X, y, info = obliq_cli.load_dataset("file", path=str(csv), target="class", weights="w")
    s = task.split
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(
        X[s.train], y[s.train], logisticregression__sample_weight=WEIGHTS[s.train])
    stored = row[predictions.KEY]
    np.testing.assert_array_equal(predicted(stored), model.predict(X[s.test]))


def test_the_cli_exits_2_with_the_one_line(tmp_path):
    weights = ["1"] * 90
    weights[4] = "-2"
    csv = write(tmp_path / "w.csv", table(weights=weights))
    path = config(tmp_path, csv, ["cart-ap"])
    result = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "weights column 'w': negative weight '-2', line 6" in result.output


def test_the_weight_keyword_is_read_from_the_estimator_alone():
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from obliq_cli import registry
    from obliq_cli.experiment.fit import weight_keyword

    assert weight_keyword(registry.make_estimator("cart-ap")) == "sample_weight"
    assert weight_keyword(LogisticRegression()) == "sample_weight"
    assert weight_keyword(KNeighborsClassifier()) is None
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    assert weight_keyword(pipe) == "logisticregression__sample_weight"
    assert weight_keyword(make_pipeline(StandardScaler(), KNeighborsClassifier())) is None


PRUNERS = {
    # written before weights existed
    "mine_keep": "random_state",
    # takes any keyword: the runner's sample_weight and prune_weight included
    "mine_keep_any": "random_state, **rest",
}


@pytest.mark.parametrize("pruner, refused", [("mine_keep", True), ("mine_keep_any", False)])
def test_a_plugin_pruner_that_takes_no_weights_is_refused_before_the_run(tmp_path, pruner,
                                                                         refused):
    from conftest import invoke

    write(tmp_path / f"{pruner}.py", f"""from obliq_cli.registry import register_pruner


@register_pruner("{pruner}", "keeps the tree")
def keep(estimator, X_grow, y_grow, X_prune, y_prune, *, {PRUNERS[pruner]}):
    return estimator
""")
    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    out = tmp_path / "results"
    path = write(tmp_path / "c.yaml", f"""name: w
imports: [{pruner}.py]
datasets:
  - {{name: d, path: {csv.name}, target: class, weights: w}}
algorithms:
  - cart-ap
  - {{name: cart-ap, label: KEPT, pruner: {pruner}}}
protocol: {{name: kfold, folds: 3, repeats: 1}}
output: {out}
""")
    result, lines = invoke(["run", path, "--no-progress"])
    if not refused:
        assert result.exit_code == 0, lines
        return
    assert result.exit_code == 2 and len(lines) == 1, lines
    assert lines[0] == (
        f"error: {path}: algorithms[1].pruner (KEPT): pruner 'mine_keep' does not take "
        f"sample weights (its function has no sample_weight and prune_weight keywords); "
        f"the dataset 'd' (datasets[0]) has a weights: column 'w'")
    assert not out.exists(), "nothing may be written on bad input"


def test_fit_plot_and_predict_read_a_files_weights_column(tmp_path):
    import json

    import pandas as pd
    from conftest import invoke

    from obliq_cli import registry

    csv = write(tmp_path / "w.csv", table(weights=WEIGHTS))
    model = tmp_path / "m.json"
    result, lines = invoke(["fit", "--data", csv, "--target", "class", "--weights", "w",
                            "--algorithm", "cart-ap", "-o", model])
    assert result.exit_code == 0, lines
    saved = json.loads(model.read_text())
    # the weights column is the rows' weights, not a feature, and the model says which
    assert saved["feature_names"] == ["x1", "x2"]
    assert saved["trained_on"]["weights"] == "w"
    X, y, info = obliq_cli.load_dataset("file", path=str(csv), target="class", weights="w")
    weighted = registry.make_estimator("cart-ap").fit(X, y, sample_weight=info["sample_weight"])
    assert not np.array_equal(weighted.predict(X), registry.make_estimator("cart-ap").fit(
        X, y).predict(X)), "weights that change nothing test nothing"
    # predict reads the model's columns by name: the weights column is left out, as it
    # is from a file without it
    result, lines = invoke(["predict", model, csv])
    assert result.exit_code == 0, lines
    got = pd.read_csv(pd.io.common.StringIO(result.output))
    np.testing.assert_array_equal(got["prediction"].to_numpy(), weighted.predict(X))
    bare = tmp_path / "bare.csv"
    pd.read_csv(csv).drop(columns=["w"]).to_csv(bare, index=False)
    assert invoke(["predict", model, bare])[0].output == result.output
    # the pictures fit on the same rows with the same weights
    result, lines = invoke(["plot", "tree", "--data", csv, "--target", "class", "--weights",
                            "w", "--algorithm", "cart-ap", "-o", tmp_path / "t"])
    assert result.exit_code == 0, lines
    assert (tmp_path / "t.png").is_file()
    # --weights names a column of the user's file only
    result, lines = invoke(["fit", "--dataset", "iris", "--weights", "w", "--algorithm",
                            "cart-ap", "-o", model])
    assert result.exit_code == 2 and lines == [
        "error: --weights needs --data PATH (a catalog dataset declares its own columns and "
        "missing-value rule)"]
