"""The per-task measurements stored in runs.csv (see schema.RUN_COLUMNS).

Per-class rates are one-vs-rest: TPR = TP / (TP + FN) and TNR = TN / (TN + FP) per
class, as HHCART's Table 3 reports them; macro F is the mean of per-class F1 over the
classes that occur in the test fold or the predictions (HHCART Table 4).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ObliqError
from ..registry import METRICS
from .degeneracy import majority_rate, task_flags


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
    reports NaN sizes; a scikit-learn classifier named by ``estimator:`` has none)."""
    return None if value is None or np.isnan(value) else int(value)


@dataclass
class Measured:
    """What a metric may read of one finished task: the fitted estimator, the rows it grew
    on, the test rows with their predictions, the class order and confusion matrix."""

    estimator: object
    X_fit: np.ndarray
    y_fit: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    y_pred: np.ndarray
    classes: np.ndarray
    matrix: np.ndarray
    predict_time: float


@dataclass(frozen=True)
class Metric:
    """A metric, declared once: how a task computes it, where it is stored, how tables,
    statistics and the report compare and print it.

    ``compute(measured)`` gives a task's value (stored in runs.csv: in its own column when
    ``column`` names one of schema.RUN_COLUMNS, else in the row's ``extra`` JSON);
    ``derive(runs)`` instead makes the value from stored columns when results are read;
    ``from_predictions(stored)`` from a task's stored test predictions (predictions.py),
    only when a reader asks for that metric (``aggregate.with_metric_column``).
    ``unit`` is shown in captions and axis labels; ``percent``: a percentage (tolerances in
    percentage points); ``fraction``: a rate in [0, 1] (its agreement floor is 0.02);
    ``paper_metric``: the metric this one is a reading of, whose published values it is
    compared with when a reference file has none of its own (macro_f1_pr -> macro_f1)."""

    name: str
    unit: str
    higher: bool
    decimals: int
    percent: bool = False
    fraction: bool = False
    compute: Callable | None = None
    derive: Callable | None = None
    column: str | None = None
    title: str = ""
    paper_metric: str = ""
    # a "stored-prediction metric": computed when results are read, from a task's file of
    # test predictions (predictions.Stored -> value or None), never a column of runs.csv
    from_predictions: Callable | None = None

    @property
    def label(self) -> str:
        """An axis label, e.g. "test accuracy (%)"."""
        text = self.title or self.name.replace("_", " ")
        return f"{text} ({self.unit})" if self.unit else text


# METRICS (name -> Metric) is registry.METRICS: the config and readers find them there
PER_CLASS = ("tpr", "tnr")


def register_metric(metric: Metric) -> Metric:
    """Declare a metric (one file: build a Metric and register it). Its name must be new."""
    if metric.name in METRICS or metric.name.partition(":")[0] in PER_CLASS:
        raise ObliqError(f"metric {metric.name!r} is registered already")
    ways = [f for f in (metric.compute, metric.derive, metric.from_predictions)
            if f is not None]
    if len(ways) > 1:
        raise ObliqError(f"metric {metric.name!r}: give one of compute, derive and "
                         f"from_predictions")
    if not ways and metric.column is None:
        raise ObliqError(f"metric {metric.name!r}: give compute, derive, from_predictions "
                         f"or a stored column")
    METRICS[metric.name] = metric
    return metric


def check_metric(metric: str) -> Metric:
    """The metric's declaration (a per-class rate "tpr:K" / "tnr:K" too), or an ObliqError
    listing the valid names."""
    if metric in METRICS:
        return METRICS[metric]
    kind, _, k = str(metric).partition(":")
    if kind in PER_CLASS and k.isascii() and k.isdigit() and int(k) >= 1:  # not "²"
        return Metric(metric, "", True, 2, fraction=True, column=kind)
    raise ObliqError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}, or "
                     f"tpr:K / tnr:K for the K-th class")


def _size_of(attribute: str):
    def compute(m: Measured):
        return _size(getattr(m.estimator, attribute, None))
    return compute


def _internal(m: Measured) -> int | None:
    nodes = getattr(m.estimator, "n_nodes_", None)
    leaves = getattr(m.estimator, "n_leaves_", None)
    return None if nodes is None or leaves is None else _size(nodes - leaves)


def _oblique_fraction(m: Measured) -> float | None:
    """The share of internal nodes whose split weighs more than one column (the
    estimator's ``n_oblique_`` over its internal nodes): 0 for a tree whose oblique
    search never beat or never ran before the axis-parallel split (OC1 and HHCART search
    obliquely only at nodes of more than 2 x features rows). None (a blank cell) for a
    one-leaf tree and for a model without ``n_oblique_`` (no tree)."""
    internal = _internal(m)
    oblique = getattr(m.estimator, "n_oblique_", None)
    if not internal or oblique is None:
        return None
    return float(oblique) / internal


def _correct(m: Measured) -> int:
    return int(np.trace(m.matrix))


def _macro_f1(m: Measured) -> float:
    _, _, f1 = _rates(m.matrix)
    occurring = (m.matrix.sum(axis=1) + m.matrix.sum(axis=0)) > 0
    return float(np.nanmean(np.where(occurring, f1, np.nan)))


def macro_f1_of_means(matrix: np.ndarray, skip_unpredicted: bool = False) -> float:
    """F1 of the macro precision and macro recall of one confusion matrix (rows true,
    columns predicted; Sokolova & Lapalme 2009, Table 3), over the classes that occur in
    the test rows or the predictions (those of ``macro_f1``). An undefined rate (0/0)
    counts as 0, except that ``skip_unpredicted`` leaves a class that is never predicted
    out of the macro precision. NaN for an empty matrix."""
    matrix = np.asarray(matrix, dtype=np.float64)
    tp = np.diag(matrix)
    true_n, pred_n = matrix.sum(axis=1), matrix.sum(axis=0)
    occurring = (true_n + pred_n) > 0
    if not occurring.any():
        return float("nan")
    precision = tp / np.maximum(pred_n, 1)
    recall = tp / np.maximum(true_n, 1)
    precise = occurring & (pred_n > 0) if skip_unpredicted else occurring
    macro_p = precision[precise].mean() if precise.any() else 0.0
    macro_r = recall[occurring].mean()
    return 0.0 if macro_p + macro_r == 0 else float(2 * macro_p * macro_r / (macro_p + macro_r))


def _stored_f1_of_means(cell, skip_unpredicted: bool) -> float:
    """``macro_f1_of_means`` of one stored confusion cell (JSON); NaN for a cell that is
    not a non-empty square matrix of counts (a failed task's blank, a hand-made row), so
    reading results never fails on it."""
    try:
        matrix = np.asarray(json.loads(cell), dtype=np.float64)
    except (TypeError, ValueError):
        return float("nan")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.size == 0:
        return float("nan")
    return macro_f1_of_means(matrix, skip_unpredicted)


def _from_confusion(skip_unpredicted: bool):
    """A ``derive`` that applies ``macro_f1_of_means`` to each row's stored confusion
    matrix."""
    def derive(runs) -> np.ndarray:
        cells = runs["confusion"] if "confusion" in runs else [None] * len(runs)
        return np.array([_stored_f1_of_means(c, skip_unpredicted) for c in cells],
                        dtype=np.float64)
    return derive


def _stored(name: str):
    """predictions.py's function ``name`` (imported when a reader asks: it loads
    scikit-learn)."""
    from . import predictions

    return getattr(predictions, name)


def is_stored_prediction_metric(metric: str) -> bool:
    m = METRICS.get(metric)
    return m is not None and m.from_predictions is not None


for _metric in (
    Metric("test_accuracy", "%", True, 2, percent=True, column="test_accuracy",
           compute=lambda m: 100.0 * _correct(m) / max(m.y_test.size, 1)),
    Metric("test_error", "%", False, 2, percent=True,
           derive=lambda runs: 100.0 - runs["test_accuracy"]),
    Metric("train_accuracy", "%", True, 2, percent=True, column="train_accuracy",
           compute=lambda m: float(np.mean(m.estimator.predict(m.X_fit)
                                           == np.asarray(m.y_fit))) * 100.0),
    Metric("macro_f1", "", True, 3, fraction=True, column="macro_f1", compute=_macro_f1,
           title="macro F"),
    Metric("macro_f1_pr", "", True, 3, fraction=True, derive=_from_confusion(False),
           title="F of macro precision and recall", paper_metric="macro_f1"),
    Metric("macro_f1_pr_skip", "", True, 3, fraction=True, derive=_from_confusion(True),
           title="F of macro precision (predicted classes) and recall",
           paper_metric="macro_f1"),
    Metric("n_leaves", "leaves", False, 1, column="n_leaves", compute=_size_of("n_leaves_"),
           title="tree size"),
    Metric("n_internal", "internal nodes", False, 1, column="n_internal",
           compute=_internal,
           title="internal nodes"),
    Metric("n_nodes", "nodes incl. leaves", False, 1,
           derive=lambda runs: runs["n_leaves"] + runs["n_internal"], title="nodes"),
    Metric("depth", "levels", False, 1, column="depth", compute=_size_of("depth_")),
    # "lower is better" as for the sizes: fewer multi-column rules read more simply; it
    # says whether a method's oblique search ever won, not how good the tree is
    Metric("oblique_fraction", "", False, 2, fraction=True, column="oblique_fraction",
           compute=_oblique_fraction, title="oblique splits (share of internal nodes)"),
    # the runner times growing + pruning and stores both itself (schema: Times)
    Metric("fit_time", "s", False, 3, column="fit_time", title="wall fit time"),
    Metric("fit_cpu", "s", False, 3, column="fit_cpu", title="fit CPU time"),
    Metric("predict_time", "s", False, 3, column="predict_time",
           compute=lambda m: m.predict_time, title="predict time"),
    # read from each task's stored test predictions (predictions.py), blank without them
    Metric("balanced_accuracy", "", True, 3, fraction=True,
           from_predictions=lambda p: _stored("balanced_accuracy")(p),
           title="balanced accuracy"),
    Metric("auc", "", True, 3, fraction=True, from_predictions=lambda p: _stored("auc")(p),
           title="ROC AUC (one-vs-rest macro)"),
    Metric("log_loss", "", False, 3, from_predictions=lambda p: _stored("log_loss")(p),
           title="log-loss"),
):
    register_metric(_metric)


def task_metrics(estimator, X_fit, y_fit, X_test, y_test, extra: tuple = (),
                 keep_predictions: bool = False) -> dict:
    """Every registered metric of one task, the confusion matrix and its per-class rates.

    Returns the runs.csv fields of schema.RUN_COLUMNS from ``n_test`` to ``flags`` except
    ``fit_time`` and ``fit_cpu`` (the runner times the fit): each registered metric with a
    ``compute`` and a column of its own, and in ``extra`` (JSON) those named in ``extra``
    (the config's ``metrics`` that have no column: a row depends on its config, not on
    what else some process registered). Accuracies are percent (train accuracy on
    ``X_fit``, the rows used to grow); ``predict_time`` times ``estimator.predict(X_test)``
    alone, in wall seconds. The matrix order is the sorted union of
    ``estimator.classes_`` and the test labels; per-class F1 is 0 when the class has true
    or predicted rows but no hit, and a class with neither is left out of the macro mean
    (as scikit-learn's f1_score does with its default labels). Undefined rates (no true
    rows for TPR, no negatives for TNR) are null in the JSON lists. ``flags``: what
    ``degeneracy.task_flags`` finds degenerate in the fit (at the majority rate of
    ``y_fit``, one leaf on impure rows, constant test predictions), "" when nothing.
    ``keep_predictions``: the row also carries the test predictions (and probabilities)
    under ``predictions.KEY``, for the writer to store beside it (not a column).
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
    tpr, tnr, _ = _rates(matrix)
    measured = Measured(estimator, X_fit, y_fit, X_test, y_test, y_pred, classes, matrix,
                        predict_time)
    row = {"n_test": int(y_test.size), "n_test_correct": _correct(measured)}
    stored = {}
    for metric in METRICS.values():
        if metric.compute is None or (metric.column is None and metric.name not in extra):
            continue
        value = metric.compute(measured)
        if metric.column is not None:
            row[metric.column] = value
        else:
            stored[metric.name] = None if value is None or (
                isinstance(value, float) and np.isnan(value)) else float(value)
    row.update({
        "classes": json.dumps([str(c) for c in classes]),
        "tpr": _json(tpr.tolist()),
        "tnr": _json(tnr.tolist()),
        "confusion": json.dumps(matrix.tolist()),
        "extra": json.dumps(stored, sort_keys=True) if stored else "",
    })
    row["flags"] = task_flags(row.get("train_accuracy"), majority_rate(y_fit),
                              row.get("n_leaves"), matrix)
    if keep_predictions:
        from . import predictions

        row[predictions.KEY] = predictions.record(estimator, X_test, classes, true_codes,
                                                  pred_codes)
    return row
