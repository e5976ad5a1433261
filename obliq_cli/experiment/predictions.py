"""Each task's test predictions, kept beside its runs.csv row, and the metrics read from
them (balanced accuracy, AUC, log-loss) and McNemar's test of two algorithms.

``predictions/<task identity>.npz`` holds, in the order of the fold's test rows:
``classes`` (the task's class labels as text, the order of the row's confusion matrix),
``y_true`` and ``y_pred`` (codes into ``classes``, the smallest unsigned type that holds
them) and, when the estimator has ``predict_proba``, ``proba`` (float32, one column per
class of ``classes``: 0 for a test class the estimator never saw); else ``no_proba``, one
line saying why. The worker measures them (``record``); the file is made durable before
the task's row is appended: by the worker on a pool of this machine (``pools.run_tasks``,
before it returns the chunk's rows), by the run's process at one job
(``pools._serial_results``, before a batch's rows), else (a dask worker's row) by the
parent just before the append (``results.runs_appender``), so the row stays the record
of completion: a file without its row (a kill between the two) is never read and a
resume writes it again; a row without its file (a folder written before predictions
were kept) has no stored predictions, and the metrics here are blank for it.

The zip is written with fixed member dates, so a task's file has the same bytes for any
``n_jobs`` or backend.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import safe_io

if TYPE_CHECKING:  # pandas is imported when a reader asks
    import pandas as pd

FOLDER = "predictions"
KEY = "_predictions"
"""The row's field carrying a task's arrays from the worker to the writer (never a column
of runs.csv: the runs writer ignores fields that are not columns)."""
OWN_FILE = re.compile(r"[0-9a-f]{20}\.npz")  # a task's file (what --force deletes)
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the zip format's earliest date: no clock in the bytes


def prediction_file(results_dir, identity: str) -> Path:
    """Where task ``identity``'s predictions are kept (identities are 20 hex digits, so a
    plain file name)."""
    return Path(results_dir) / FOLDER / f"{identity}.npz"


def _codes(values: np.ndarray, k: int) -> np.ndarray:
    return np.asarray(values, dtype=np.min_scalar_type(max(k - 1, 0)))


def record(estimator, X_test, classes: np.ndarray, true_codes: np.ndarray,
           pred_codes: np.ndarray) -> dict:
    """The arrays of one task's file: ``classes`` and the codes the confusion matrix was
    counted from (``metrics.task_metrics``), and ``predict_proba(X_test)`` widened to
    ``classes`` when the estimator has it. A ``predict_proba`` that raises leaves the
    task without probabilities (``no_proba`` says why), never failed."""
    k = classes.size
    out = {"classes": np.asarray([str(c) for c in classes]),
           "y_true": _codes(true_codes, k), "y_pred": _codes(pred_codes, k)}
    if not hasattr(estimator, "predict_proba"):
        out["no_proba"] = np.asarray(f"{type(estimator).__name__} has no predict_proba")
        return out
    try:
        proba = np.asarray(estimator.predict_proba(X_test), dtype=np.float64)
        known = np.searchsorted(classes, np.asarray(estimator.classes_))
        if proba.shape != (true_codes.size, known.size):
            raise ValueError(f"predict_proba gave shape {proba.shape}")
    except Exception as exc:  # an estimator's own failure costs its probabilities only
        out["no_proba"] = np.asarray(f"predict_proba failed: {type(exc).__name__}: {exc}"[:200])
        return out
    wide = np.zeros((true_codes.size, k), dtype=np.float32)
    wide[:, known] = proba
    out["proba"] = wide
    return out


def encode(arrays: dict) -> bytes:
    """``arrays`` as the bytes of a compressed .npz that ``np.load`` reads, with the same
    bytes for the same arrays (``np.savez`` stamps each member with the clock)."""
    buffer = io.BytesIO()
    # each member is made whole in memory, then written by one writestr (whose handle a
    # with block closes): a Ctrl-C here leaves nothing open, unlike np.savez's writer
    # (results.write_folds), so the interrupt is raised where it lands, as in a row write
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, member.getvalue())
    return buffer.getvalue()


@dataclass
class Stored:
    """One task's stored predictions (see the module docstring)."""

    classes: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    proba: np.ndarray | None
    no_proba: str = ""


def read(path: Path, n_test=None, n_correct=None) -> Stored | None:
    """The predictions in ``path``; None when there is no such file, it is unreadable, or
    it does not match its row (``n_test`` test rows, ``n_correct`` of them right)."""
    try:
        with safe_io.read_npz(path, allow_pickle=False) as data:
            stored = Stored(data["classes"], data["y_true"].astype(np.intp),
                            data["y_pred"].astype(np.intp),
                            data["proba"] if "proba" in data.files else None,
                            str(data["no_proba"]) if "no_proba" in data.files else "")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if n_test is not None and not math.isnan(n_test) and stored.y_true.size != int(n_test):
        return None
    if (n_correct is not None and not math.isnan(n_correct)
            and int((stored.y_true == stored.y_pred).sum()) != int(n_correct)):
        return None
    return stored


# ----------------------------------------------------------------- metrics from them
def balanced_accuracy(p: Stored) -> float:
    """scikit-learn's balanced accuracy: the mean recall over the classes of the test
    rows."""
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(p.y_true, p.y_pred))


def _scored_classes(p: Stored) -> np.ndarray:
    """The classes that occur in the test rows (a probability column of a class with no
    test row carries no information for AUC or log-loss)."""
    return np.unique(p.y_true)


def auc(p: Stored) -> float | None:
    """ROC AUC from the probabilities: binary on the second class's column, one-vs-rest
    macro with several classes (scikit-learn's ``roc_auc_score``, ``multi_class="ovr"``);
    None without probabilities or with one class in the test rows."""
    from sklearn.metrics import roc_auc_score

    present = _scored_classes(p)
    if p.proba is None or present.size < 2:
        return None
    if present.size == 2:
        return float(roc_auc_score(p.y_true == present[1], p.proba[:, present[1]]))
    # one-vs-rest per present class, as roc_auc_score(multi_class="ovr", average="macro")
    # does; that function also insists the given columns sum to 1 over the present classes
    return float(np.mean([roc_auc_score(p.y_true == c, p.proba[:, c]) for c in present]))


def log_loss(p: Stored) -> float | None:
    """Mean negative log-probability of each row's true class (scikit-learn's
    ``log_loss``, which clips probabilities at the float's eps, so a wrong pure leaf
    costs -ln(2.2e-16) = 36); None without probabilities."""
    from sklearn.metrics import log_loss as sk_log_loss

    if p.proba is None:
        return None
    proba = p.proba.astype(np.float64)
    # float32 rows sum to 1 within 1e-7, which scikit-learn warns about: made exact
    total = proba.sum(axis=1, keepdims=True)
    proba = proba / np.where(total > 0, total, 1.0)
    labels = np.arange(proba.shape[1])
    return float(sk_log_loss(p.y_true, proba, labels=labels))


def values(runs, metric) -> tuple[np.ndarray, list[str]]:
    """The stored-prediction metric ``metric`` (a Metric with ``from_predictions``) of
    every row of ``runs`` (rows with ``source``, ``task``, ``status``, ``n_test``,
    ``n_test_correct``), NaN where it cannot be had, and notes saying why for how many."""
    out = np.full(len(runs), np.nan)
    missing = no_proba = 0
    reasons: set[str] = set()
    for i, (source, task, status, n_test, correct) in enumerate(zip(
            runs["source"], runs["task"], runs["status"], runs["n_test"],
            runs["n_test_correct"])):
        if status != "ok":
            continue
        stored = read(prediction_file(Path(source).parent, task), n_test, correct) \
            if task else None
        if stored is None:
            missing += 1
            continue
        value = metric.from_predictions(stored)
        if value is None:
            no_proba += 1
            reasons.add(stored.no_proba or "one class in the test rows")
            continue
        out[i] = value
    notes = []
    if missing:
        notes.append(f"{metric.name}: {missing} finished task(s) have no stored predictions "
                     f"(a folder written before obliq kept them, or a file lost): blank")
    if no_proba:
        notes.append(f"{metric.name}: blank for {no_proba} task(s) without usable "
                     f"probabilities ({'; '.join(sorted(reasons)[:3])})")
    return out, notes


# ------------------------------------------------------------------------ McNemar
def discordant(a: Stored, b: Stored) -> tuple[int, int]:
    """(rows ``a`` predicts right and ``b`` wrong, rows ``b`` right and ``a`` wrong) of two
    tasks on the same test rows; ValueError when the rows differ."""
    if a.y_true.size != b.y_true.size or not np.array_equal(
            a.classes[a.y_true], b.classes[b.y_true]):
        raise ValueError("McNemar's test needs two tasks on the same test rows")
    right_a = a.y_pred == a.y_true
    right_b = b.y_pred == b.y_true
    return int((right_a & ~right_b).sum()), int((right_b & ~right_a).sum())


EXACT_BELOW = 25
"""Discordant pairs below which McNemar's test is the exact binomial one (the chi-square
approximation is poor for few pairs; Dietterich 1998 §3.1 asks for b + c >= 10, Fagerland
et al. 2013 recommend the exact or mid-p test for small samples; 25 is the common rule)."""


def mcnemar(b: int, c: int) -> tuple[float, float, str]:
    """McNemar's test of the discordant counts ``b`` and ``c``: (statistic, two-sided p,
    "exact" or "chi2"). Below ``EXACT_BELOW`` pairs the exact binomial test (statistic:
    min(b, c); p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2)); else the
    chi-square with Edwards' continuity correction, (|b - c| - 1)² / (b + c) on 1 df
    (Dietterich 1998, eq. 2). No discordant pair: (0, 1)."""
    from scipy import stats

    n = b + c
    if n == 0:
        return 0.0, 1.0, "exact"
    if n < EXACT_BELOW:
        p = 2.0 * stats.binom.cdf(min(b, c), n, 0.5)
        return float(min(b, c)), float(min(1.0, p)), "exact"
    statistic = (abs(b - c) - 1.0) ** 2 / n
    return float(statistic), float(stats.chi2.sf(statistic, 1)), "chi2"


def discordant_counts(ok, algorithm: str, ref: str) -> pd.DataFrame:
    """Per (dataset, repetition, fold) that ``algorithm`` and ``ref`` both finished with
    stored predictions (``ok``: finished rows of one experiment): ``only_a`` (rows
    ``algorithm`` predicts right and ``ref`` wrong) and ``only_b`` (the reverse)."""
    import pandas as pd

    keys = ["dataset", "repetition", "fold"]
    rows = ok[ok["algorithm"].isin([algorithm, ref])]
    found: dict = {}
    for source, task, label, n_test, correct, *key in zip(
            rows["source"], rows["task"], rows["algorithm"], rows["n_test"],
            rows["n_test_correct"], *(rows[k] for k in keys)):
        stored = read(prediction_file(Path(source).parent, task), n_test, correct) \
            if task else None
        if stored is not None:
            found[(label, *key)] = stored
    out = []
    for (label, *key), a in found.items():
        b = found.get((ref, *key))
        if label == algorithm and b is not None:
            try:
                out.append((*key, *discordant(a, b)))
            except ValueError:  # not the same test rows: no pair
                continue
    frame = pd.DataFrame(out, columns=keys + ["only_a", "only_b"])
    return frame.set_index(keys)
