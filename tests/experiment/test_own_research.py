"""A researcher's own experiment end to end: their CSV with a nominal column and blank
cells, scikit-learn classifiers beside obliq's trees, the dataset's gaps imputed for some
algorithms and passed natively to C4.5 and CART-AP (``algorithms[i].missing``), the same
rows under -j 1 and -j 2, and "-" where a forest has no leaves."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import invoke, rows_without_times

from obliq_cli.data.preprocess import Preprocessor, missing_policy

CONFIG = """
name: own
seed: 3
datasets:
  - {{name: mine, path: mine.csv, target: y, categorical: [colour], missing: impute}}
protocol: {{name: kfold, folds: 3, repeats: 2, stratified: true}}
algorithms:
  - {{estimator: sklearn.ensemble.RandomForestClassifier, label: RF, params: {{n_estimators: 5}}}}
  - {{estimator: sklearn.tree.DecisionTreeClassifier, label: DT}}
  - {{name: c45, missing: native}}
  - {{name: cart-ap, missing: native}}
  - {{name: oc1{extra}}}
metrics: [test_accuracy, n_leaves]
output: {out}
"""


def _write_csv(path, n=90, seed=7):
    """Two numeric columns and a nominal one, about 8 % of the feature cells blank."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], size=n)
    y = np.where(a + 0.8 * (colour == "red") - 0.5 * b > 0.2, "yes", "no")
    lines = ["a,b,colour,y"]
    for i in range(n):
        cells = [f"{a[i]:.4f}", f"{b[i]:.4f}", str(colour[i]), str(y[i])]
        for j in range(3):
            if rng.random() < 0.08:
                cells[j] = ""
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("own")
    _write_csv(base / "mine.csv")
    outputs = {}
    for jobs in (1, 2):
        config = base / f"own{jobs}.yaml"
        config.write_text(CONFIG.format(extra="", out=base / f"j{jobs}"))
        result, lines = invoke(["run", config, "-j", jobs, "--no-progress"])
        assert result.exit_code == 0, result.output
        outputs[jobs] = base / f"j{jobs}"
    return base, outputs


@pytest.mark.slow
def test_the_same_rows_with_one_and_two_jobs(runs):
    _, out = runs
    one, two = rows_without_times(out[1] / "runs.csv"), rows_without_times(out[2] / "runs.csv")
    assert len(one) == 5 * 3 * 2
    assert one == two
    assert {row["status"] for row in one.values()} == {"ok"}


@pytest.mark.slow
def test_a_forest_has_no_leaves_and_the_table_says_so(runs):
    _, out = runs
    rows = rows_without_times(out[1] / "runs.csv").values()
    assert {r["n_leaves"] for r in rows if r["algorithm"] in ("RF", "DT")} == {""}
    assert all(float(r["n_leaves"]) >= 1 for r in rows if r["algorithm"] == "c45")
    result, lines = invoke(["table", out[1], "--metric", "n_leaves"])
    assert result.exit_code == 0, result.output
    header = next(line for line in lines if line.startswith("| dataset"))
    cells = [c.strip() for c in next(line for line in lines if line.startswith("| mine"))
             .strip("|").split("|")]
    names = [c.strip() for c in header.strip("|").split("|")]
    table = dict(zip(names, cells))
    assert table["RF"] == "-" and table["DT"] == "-"
    assert table["c45"] != "-"


def test_the_history_says_who_got_the_gaps_and_which_encoding(runs):
    _, out = runs
    data = json.loads((out[1] / "meta.json").read_text())["history"][-1]["data"]["mine"]
    assert data["missing"] == "impute"
    assert data["missing_by_algorithm"] == {"c45": "native", "cart-ap": "native"}
    # C4.5 splits nominal columns itself; the others get one 0/1 column per level
    assert data["nominal"] == {"RF": "onehot", "DT": "onehot", "c45": "native",
                               "cart-ap": "onehot", "oc1": "onehot"}


def test_an_override_decides_what_a_task_sees():
    """impute fills from the grow rows; native keeps NaN; error/drop datasets have no gaps."""
    info = {"feature_names": ["a", "b"], "categorical": [], "missing": "impute"}
    assert missing_policy(info) == "impute"
    assert missing_policy(info, "native") == "native"
    assert missing_policy({**info, "missing": "drop"}, "native") == "drop"
    assert missing_policy({**info, "missing": "native"}, "impute") == "impute"
    X = np.array([[1.0, np.nan], [3.0, 4.0], [np.nan, 8.0]])
    grow = X[:2]

    class Est:  # what for_task asks of an estimator: its parameters
        def get_params(self, deep=False):
            return {}

    native = Preprocessor.for_task(Est(), info, 2, "native")
    assert np.isnan(native.transform(X)).sum() == 2
    imputed = Preprocessor.for_task(Est(), info, 2)
    imputed.fit(grow)
    # medians of the grow rows only: a = median(1, 3) = 2, b = median(4) = 4
    assert imputed.transform(X).tolist() == [[1.0, 4.0], [3.0, 4.0], [2.0, 8.0]]


@pytest.mark.parametrize("extra, field, words", [
    (", missing: drop", "algorithms[4].missing", "must be impute or native"),
    (", missing: native", "datasets[0] (mine)", "'oc1' (algorithms[4]) does not accept"),
])
def test_a_bad_override_is_one_line_before_anything_is_written(tmp_path, extra, field,
                                                               words):
    _write_csv(tmp_path / "mine.csv", n=30)
    config = tmp_path / "bad.yaml"
    config.write_text(CONFIG.format(extra=extra, out=tmp_path / "out"))
    result, lines = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 2
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and field in errors[0] and words in errors[0], lines
    assert not (tmp_path / "out").exists()
