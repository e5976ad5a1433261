"""Significance tests on stored per-fold scores (no refitting, unlike mlxtend's helpers).

The mark convention is the Weka Experimenter's result matrix (``weka.experiment``
``PairedTTester``): ``v`` significantly better than the base scheme, ``*`` significantly
worse, and a (w/t/l) count per column.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from .aggregate import check_metric


class TTest(NamedTuple):
    statistic: float
    pvalue: float


def paired_t_test(a, b) -> TTest:
    """Two-sided paired t-test of ``a - b``: t = mean(d) sqrt(n) / sd(d), n - 1 df.

    The "k-fold paired t test" of the UMT paper (§4, alpha = 0.05) and Weka's
    ``PairedStats``; equals ``scipy.stats.ttest_rel(a, b)`` whenever the differences vary.
    Differences with zero variance follow Weka's ``PairedStats.calculateDerived`` instead of
    dividing by zero (and warning): all zero (identical scores) gives t = 0, p = 1 (not
    significant); a constant non-zero shift gives t = ±inf, p = 0. Fewer than 2 pairs give
    t = nan, p = 1: there is nothing to test.
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired_t_test needs paired scores (got {a.size} and {b.size})")
    d = a - b
    n = d.size
    if n < 2:
        return TTest(float("nan"), 1.0)
    mean = d.mean()
    sd = d.std(ddof=1)
    # exact equality on purpose: Weka tests sd > 0 and sum of squares == 0 the same way
    if not sd > 0:
        if np.all(d == 0):
            return TTest(0.0, 1.0)
        return TTest(float(np.sign(mean) * np.inf), 0.0)
    t = mean * np.sqrt(n) / sd
    return TTest(float(t), float(2.0 * stats.t.sf(abs(t), n - 1)))


def compare_to(runs: pd.DataFrame, metric: str, ref: str, alpha: float = 0.05) -> pd.DataFrame:
    """Per (dataset, algorithm != ref) of ONE experiment: paired t-test against ``ref``.

    Only the (repetition, fold) keys that both algorithms finished enter a test (an inner
    join), so the pairs share the same training and test rows. Columns: dataset, algorithm,
    n_pairs, statistic, pvalue, mark; mark is "v" when the algorithm is significantly better
    than ``ref`` at level ``alpha`` in the metric's direction (higher accuracy, fewer leaves),
    "*" when significantly worse, "" otherwise (p <= alpha decides, as in Weka).
    """
    higher = check_metric(metric).higher
    ok = runs[runs["status"] == "ok"]
    scores = (ok.groupby(["dataset", "repetition", "fold", "algorithm"], sort=False)[metric]
              .mean().unstack("algorithm"))
    columns = ["dataset", "algorithm", "n_pairs", "statistic", "pvalue", "mark"]
    if ref not in scores.columns:
        return pd.DataFrame(columns=columns)
    frames = []
    for algorithm in scores.columns.drop(ref):
        pairs = scores[[algorithm, ref]].dropna()
        tests = pairs.groupby(level="dataset", sort=False).apply(
            lambda g, a=algorithm: pd.Series(
                [len(g), *paired_t_test(g[a], g[ref])], index=columns[2:5]))
        if len(tests):
            frames.append(tests.reset_index().assign(algorithm=algorithm))
    if not frames:
        return pd.DataFrame(columns=columns)
    out = pd.concat(frames, ignore_index=True)
    out["n_pairs"] = out["n_pairs"].astype(int)
    significant = out["pvalue"] <= alpha
    better = (out["statistic"] > 0) == higher
    out["mark"] = np.where(significant & better, "v", np.where(significant, "*", ""))
    return out[columns]


def win_tie_loss(marks: pd.Series) -> str:
    """Weka's "(w/t/l)" count of one column's marks: v = win, * = loss, anything else tie."""
    wins = int((marks == "v").sum())
    losses = int((marks == "*").sum())
    return f"({wins}/{len(marks) - wins - losses}/{losses})"
