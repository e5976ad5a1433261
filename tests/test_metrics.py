"""The per-task metrics against hand-worked values and scikit-learn."""

import json

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

from obliq_cli.experiment.metrics import task_metrics


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
