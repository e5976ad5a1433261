"""Keeping a tree: `obliq fit` writes a JSON model, `obliq predict` uses it on a CSV.

The predictions of the command line must be those of the Python API on the same rows;
a CSV whose columns are not the model's features is one line, exit 2, nothing written.
"""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import obliq_cli
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def wisconsin():
    return obliq_cli.load_dataset("wisconsin")


def write_csv(path, X, names, y=None):
    frame = pd.DataFrame(X, columns=names)
    if y is not None:
        frame.insert(0, "class", y)  # an extra column, before the features: ignored
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("algorithm, params", [("cart-ap", []), ("hhcart-d", []),
                                               ("oc1", ["n_restarts=2"])])
def test_fit_then_predict_equals_the_python_api(tmp_path, wisconsin, algorithm, params):
    X, y, info = wisconsin
    model = tmp_path / "model.json"
    args = ["fit", "--dataset", "wisconsin", "--algorithm", algorithm, "-o", model]
    for p in params:
        args += ["--param", p]
    result = invoke(args)
    assert result.exit_code == 0, result.output
    data = json.loads(model.read_text())
    assert data["format"] == "obliq-model" and data["obliq_version"] == obliq_cli.__version__
    assert data["algorithm"] == algorithm and data["feature_names"] == info["feature_names"]
    assert data["classes"] == ["2", "4"] and data["trained_on"]["dataset"] == "wisconsin"
    # rows in another order and with the columns shuffled: the names place them
    rows = np.random.default_rng(1).permutation(len(y))[:200]
    names = list(reversed(info["feature_names"]))
    csv = write_csv(tmp_path / "rows.csv", X[rows][:, ::-1], names, y[rows])
    out = tmp_path / "pred.csv"
    result = invoke(["predict", model, csv, "-o", out, "--proba"])
    assert result.exit_code == 0, result.output
    predicted = pd.read_csv(out, dtype={"prediction": str})
    # the Python API: the same tree (grown by the same code under the same seed names)
    estimator, _, _, _ = _python_fit(algorithm, params, X, y, info)
    assert predicted["prediction"].tolist() == estimator.predict(X[rows]).tolist()
    proba = predicted[["proba:2", "proba:4"]].to_numpy()
    np.testing.assert_allclose(proba, estimator.predict_proba(X[rows]), rtol=0, atol=1e-12)
    # and the model file loaded in Python predicts the same
    loaded, _ = obliq_cli.load_model(model)
    assert loaded.predict(X[rows]).tolist() == predicted["prediction"].tolist()
    # without -o the predictions go to standard output
    result = invoke(["predict", model, csv])
    assert result.output.splitlines()[0] == "row,prediction,note"
    assert result.output.splitlines()[1:] == [
        f"{i + 1},{p}," for i, p in enumerate(predicted["prediction"])]
    assert predicted["row"].tolist() == list(range(1, len(rows) + 1))


def _python_fit(algorithm, params, X, y, info):
    """What `obliq fit` does, through the Python API: make, seed and grow on all rows as
    an experiment's task does (fit.fit_task) under the names (0, dataset, 'plot', 0,
    algorithm)."""
    from obliq_cli.config import AlgorithmSpec
    from obliq_cli.experiment.fit import fit_task

    values = {k: int(v) for k, v in (p.split("=") for p in params)}
    rows = np.arange(len(y))
    fitted = fit_task(AlgorithmSpec(algorithm, algorithm, values), "wisconsin", X, y, info,
                      rows, rows[:0], (0, "wisconsin", "plot", 0, algorithm))
    return fitted.estimator, X, y, info


def test_a_deterministic_tree_is_the_plain_python_fit(tmp_path, wisconsin):
    # cart-ap draws nothing: the model equals make_estimator(...).fit(X, y)
    X, y, info = wisconsin
    model = tmp_path / "m.json"
    assert invoke(["fit", "--dataset", "wisconsin", "--algorithm", "cart-ap",
                   "--param", "max_depth=3", "-o", model]).exit_code == 0
    csv = write_csv(tmp_path / "all.csv", X, info["feature_names"])
    result = invoke(["predict", model, csv])
    plain = obliq_cli.make_estimator("cart-ap", max_depth=3).fit(X, y)
    assert [line.split(",")[1] for line in result.output.splitlines()[1:]] == \
        plain.predict(X).tolist()
    loaded, meta = obliq_cli.load_model(model)
    assert meta["params"]["max_depth"] == 3
    assert loaded.export_text() == plain.export_text(info["feature_names"])
    assert loaded.export_text().splitlines()[1].startswith("|   CellSize <= 2.5")


def test_pruned_model_keeps_the_pruned_tree(tmp_path, wisconsin):
    model = tmp_path / "m.json"
    result = invoke(["fit", "--dataset", "wisconsin", "--algorithm", "cart-ap",
                     "--pruner", "cc", "-o", model])
    assert result.exit_code == 0, result.output
    loaded, meta = obliq_cli.load_model(model)
    full = obliq_cli.make_estimator("cart-ap").fit(*wisconsin[:2])
    assert meta["pruner"] == {"name": "cc", "params": {}}
    assert loaded.n_leaves_ < full.n_leaves_


def test_columns_that_do_not_match_are_one_clear_error(tmp_path, wisconsin):
    X, y, info = wisconsin
    model = tmp_path / "m.json"
    invoke(["fit", "--dataset", "wisconsin", "--algorithm", "cart-ap", "-o", model])
    csv = write_csv(tmp_path / "x.csv", X[:5], [f"x{i + 1}" for i in range(9)])
    out = tmp_path / "pred.csv"
    result = invoke(["predict", model, csv, "-o", out])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: {csv}: the columns do not match the model's features: missing "
        "ClumpThickness, CellSize, CellShape, MarginalAdhesion, EpithelialSize and 4 more")
    assert not out.exists()
    bad = pd.DataFrame(X[:3], columns=info["feature_names"]).astype(object)
    bad.loc[1, "Mitoses"] = "many"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    result = invoke(["predict", model, tmp_path / "bad.csv"])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: {tmp_path / 'bad.csv'}: line 3, column "
                                      "Mitoses: not a finite number ('many')")


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(ObliqError, match="not an obliq model file"):
        obliq_cli.load_model(tmp_path / "x.json")
    result = invoke(["predict", tmp_path / "missing.json", tmp_path / "x.csv"])
    assert result.exit_code == 2 and "no such model file" in result.output


def test_an_estimator_that_is_not_one_tree_is_not_saved(tmp_path):
    result = invoke(["fit", "--dataset", "wine", "--algorithm", "umt-ovo", "-o",
                     tmp_path / "m.json"])
    assert result.exit_code == 2 and "single trees only" in result.output
    assert not (tmp_path / "m.json").exists()


def test_a_dataframe_names_the_features_of_the_rules_and_the_model(tmp_path, wisconsin):
    X, y, info = wisconsin
    frame = pd.DataFrame(X, columns=info["feature_names"])
    est = obliq_cli.make_estimator("cart-ap", max_depth=1).fit(frame, y)
    assert list(est.feature_names_in_) == info["feature_names"]
    assert est.export_text().splitlines()[1].startswith("|   CellSize <= 2.5")
    obliq_cli.save_model(tmp_path / "m.json", est, algorithm="cart-ap",
                         feature_names=list(est.feature_names_in_))
    loaded, meta = obliq_cli.load_model(tmp_path / "m.json")
    assert meta["feature_names"] == info["feature_names"]
    assert loaded.predict(frame).tolist() == est.predict(frame).tolist()
