"""The per-task measurements stored in runs.csv (see schema.RUN_COLUMNS).

Per-class rates are one-vs-rest: TPR = TP / (TP + FN) and TNR = TN / (TN + FP) per
class, as HHCART's Table 3 reports them; macro F is the mean of per-class F1 over the
classes that occur in the test fold or the predictions (HHCART Table 4).
"""

from __future__ import annotations

import json
import time

import numpy as np


def confusion(y_true_codes: np.ndarray, y_pred_codes: np.ndarray, k: int) -> np.ndarray:
    """k x k counts, rows = true class, columns = predicted class (one bincount)."""
    return np.bincount(y_true_codes * k + y_pred_codes, minlength=k * k).reshape(k, k)


def _rates(matrix: np.ndarray):
    tp = np.diag(matrix).astype(np.float64)
    true_n = matrix.sum(axis=1)
    pred_n = matrix.sum(axis=0)
    total = matrix.sum()
    fn, fp = true_n - tp, pred_n - tp
    tn = total - tp - fn - fp
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = np.where(true_n > 0, tp / np.maximum(true_n, 1), np.nan)
        tnr = np.where(tn + fp > 0, tn / np.maximum(tn + fp, 1), np.nan)
        f1_den = 2 * tp + fp + fn
        f1 = np.where(f1_den > 0, 2 * tp / np.maximum(f1_den, 1), np.nan)
    return tpr, tnr, f1


def _json(values) -> str:
    return json.dumps([None if (isinstance(v, float) and np.isnan(v)) else v for v in values])


def _size(value) -> int | None:
    """A tree size as an int; None (a blank cell) for a model that is not a tree (an SVM
    reports NaN sizes)."""
    return None if np.isnan(value) else int(value)


def task_metrics(estimator, X_fit, y_fit, X_test, y_test) -> dict:
    """Accuracy, sizes, per-class rates, macro F and the confusion matrix of one task.

    Returns the runs.csv fields of schema.RUN_COLUMNS from ``n_test`` to ``confusion``
    except ``fit_time``. Accuracies are percent (train accuracy on ``X_fit``, the rows
    used to grow); ``predict_time`` times ``estimator.predict(X_test)`` alone. The
    matrix order is the sorted union of ``estimator.classes_`` and the test labels;
    per-class F1 is 0 when the class has true or predicted rows but no hit, and a class
    with neither is left out of the macro mean (as scikit-learn's f1_score does with
    its default labels). Undefined rates (no true rows for TPR, no negatives for TNR)
    are null in the JSON lists.
    """
    start = time.perf_counter()
    y_pred = estimator.predict(X_test)
    predict_time = time.perf_counter() - start
    y_test, y_pred = np.asarray(y_test), np.asarray(y_pred)
    # The classes are those the estimator knows plus those in the test fold. Predictions
    # are added too: for a well-behaved estimator they add nothing, and if one ever
    # predicts an unknown label, searchsorted would otherwise count it under a
    # neighbouring class without a word (sklearn's confusion_matrix also takes the union).
    classes = np.union1d(np.union1d(np.asarray(estimator.classes_), y_test), y_pred)
    true_codes = np.searchsorted(classes, y_test)
    pred_codes = np.searchsorted(classes, y_pred)
    matrix = confusion(true_codes, pred_codes, classes.size)
    tpr, tnr, f1 = _rates(matrix)
    occurring = (matrix.sum(axis=1) + matrix.sum(axis=0)) > 0
    correct = int(np.trace(matrix))
    train_acc = float(np.mean(estimator.predict(X_fit) == np.asarray(y_fit))) * 100.0
    return {
        "n_test": int(y_test.size),
        "n_test_correct": correct,
        "test_accuracy": 100.0 * correct / max(y_test.size, 1),
        "train_accuracy": train_acc,
        "n_leaves": _size(estimator.n_leaves_),
        "n_internal": _size(estimator.n_nodes_ - estimator.n_leaves_),
        "depth": _size(estimator.depth_),
        "predict_time": predict_time,
        "macro_f1": float(np.nanmean(np.where(occurring, f1, np.nan))),
        "classes": json.dumps([str(c) for c in classes]),
        "tpr": _json(tpr.tolist()),
        "tnr": _json(tnr.tolist()),
        "confusion": json.dumps(matrix.tolist()),
    }
