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


def test_classes_without_rows_and_without_hits():
    # classes_ a b c d; true a a b b c, predicted a b b b a.
    # confusion (rows true, cols predicted, order a b c d):
    #   a [1 1 0 0], b [0 2 0 0], c [1 0 0 0], d [0 0 0 0]
    # a: TP 1 FN 1 FP 1 TN 2 -> TPR 1/2, TNR 2/3, F1 2/(2+1+1) = .5
    # b: TP 2 FN 0 FP 1 TN 2 -> TPR 1,   TNR 2/3, F1 4/(4+1)   = .8
    # c: TP 0 FN 1 FP 0 TN 4 -> TPR 0,   TNR 1,   F1 0 (precision + recall = 0)
    # d: no true and no predicted row -> TPR undefined (null), TNR 5/5, left out of F
    # macro F1 = (.5 + .8 + 0) / 3
    est = Fixed(["a", "b", "c", "d"], ["a", "b", "b", "b", "a"])
    y = np.array(["a", "a", "b", "b", "c"])
    m = task_metrics(est, np.zeros((5, 1)), y, np.zeros((5, 1)), y)
    assert json.loads(m["classes"]) == ["a", "b", "c", "d"]
    assert json.loads(m["confusion"]) == [[1, 1, 0, 0], [0, 2, 0, 0], [1, 0, 0, 0],
                                          [0, 0, 0, 0]]
    assert json.loads(m["tpr"]) == [0.5, 1.0, 0.0, None]
    assert json.loads(m["tnr"]) == pytest.approx([2 / 3, 2 / 3, 1.0, 1.0])
    assert m["macro_f1"] == pytest.approx(1.3 / 3)
    assert m["macro_f1"] == pytest.approx(f1_score(y, est._pred, average="macro",
                                                   zero_division=0))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_class_rates_agree_with_scikit_learn_when_classes_are_missing(seed):
    from sklearn.metrics import multilabel_confusion_matrix

    rng = np.random.default_rng(seed)
    # The estimator knows six classes; "5" is never true nor predicted, "4" is predicted
    # but absent from the test fold, so the three kinds of class all occur.
    y = rng.choice(["0", "1", "2", "3"], size=200)
    pred = np.where(rng.uniform(size=200) < 0.5, y, rng.choice(["0", "1", "2", "4"], 200))
    est = Fixed(["0", "1", "2", "3", "4", "5"], pred)
    m = task_metrics(est, np.zeros((200, 1)), y, np.zeros((200, 1)), y)
    labels = ["0", "1", "2", "3", "4", "5"]
    assert json.loads(m["classes"]) == labels
    np.testing.assert_array_equal(json.loads(m["confusion"]),
                                  confusion_matrix(y, pred, labels=labels))
    assert m["macro_f1"] == pytest.approx(f1_score(y, pred, average="macro",
                                                   zero_division=0))
    assert m["n_test_correct"] == int(accuracy_score(y, pred, normalize=False))
    # scikit-learn's per-class one-vs-rest matrices: [[TN, FP], [FN, TP]]
    per_class = multilabel_confusion_matrix(y, pred, labels=labels)
    tn, fp, fn, tp = (per_class[:, i // 2, i % 2].astype(float) for i in range(4))
    with np.errstate(invalid="ignore"):
        want_tpr, want_tnr = tp / (tp + fn), tn / (tn + fp)
    got_tpr = np.array([np.nan if v is None else v for v in json.loads(m["tpr"])])
    np.testing.assert_allclose(got_tpr, want_tpr)  # NaN (null) exactly where undefined
    np.testing.assert_allclose(json.loads(m["tnr"]), want_tnr)
    assert json.loads(m["tpr"])[4:] == [None, None]


def test_a_prediction_outside_classes_gets_its_own_column():
    # "ab" sorts between "a" and "b": without it in the class list it would be counted
    # as a prediction of "b".
    est = Fixed(["a", "b"], ["a", "ab", "b"])
    y = np.array(["a", "b", "b"])
    m = task_metrics(est, np.zeros((3, 1)), y, np.zeros((3, 1)), y)
    assert json.loads(m["classes"]) == ["a", "ab", "b"]
    assert json.loads(m["confusion"]) == [[1, 0, 0], [0, 0, 0], [0, 1, 1]]
    assert m["n_test_correct"] == 2


class ByFirstColumn:
    """Predicts classes_[int(x0)] and sleeps 10 ms per row, so its time shows which
    rows were predicted."""

    classes_ = np.array(["no", "yes"])
    n_leaves_, n_nodes_, depth_ = 2, 3, 1

    def predict(self, X):
        import time

        time.sleep(0.01 * len(X))
        return self.classes_[np.asarray(X)[:, 0].astype(int)]


def test_train_accuracy_uses_the_fit_rows_and_the_timer_only_the_test_rows():
    X_fit = np.array([[0], [1], [1], [0]] * 10, dtype=float)  # 40 rows
    y_fit = np.array(["no", "yes", "no", "no"] * 10)          # 3 of 4 right
    X_test = np.array([[1], [0]], dtype=float)
    y_test = np.array(["yes", "yes"])                         # 1 of 2 right
    m = task_metrics(ByFirstColumn(), X_fit, y_fit, X_test, y_test)
    assert m["train_accuracy"] == pytest.approx(75.0)
    assert (m["n_test"], m["n_test_correct"], m["test_accuracy"]) == (2, 1, 50.0)
    # predicting the 2 test rows sleeps 20 ms, the 40 fit rows would add 400 ms
    assert 0.02 <= m["predict_time"] < 0.3
    assert (m["n_leaves"], m["n_internal"], m["depth"]) == (2, 1, 1)


def test_oblique_fraction_counts_splits_on_several_columns():
    """n_oblique_ over internal nodes; blank (None) for one leaf and for a model without
    the count (no tree)."""
    est = Fixed(["a", "b"], ["a", "b", "a", "b"])
    y = np.array(["a", "b", "a", "b"])
    X = np.zeros((4, 2))
    assert task_metrics(est, X, y, X, y)["oblique_fraction"] is None  # no n_oblique_
    est.n_oblique_ = 1
    assert task_metrics(est, X, y, X, y)["oblique_fraction"] == 0.5  # 1 of 5 - 3 internal
    est.n_leaves_, est.n_nodes_, est.depth_, est.n_oblique_ = 1, 1, 0, 0
    assert task_metrics(est, X, y, X, y)["oblique_fraction"] is None  # one leaf: no split

    from obliq_cli import make_estimator

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    axis = make_estimator("cart-ap", max_depth=3).fit(X, y)
    oblique = make_estimator("cart-lc", random_state=0, max_depth=1).fit(X, y)
    assert task_metrics(axis, X, y, X, y)["oblique_fraction"] == 0.0
    assert oblique.n_leaves_ == 2
    assert task_metrics(oblique, X, y, X, y)["oblique_fraction"] == 1.0  # its one split
