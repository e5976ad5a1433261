"""Significance tests on stored per-fold scores (no refitting)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def paired_t_test(a, b) -> tuple[float, float]:
    """Two-sided paired t-test of ``a - b`` over matched folds: (t, p).

    t = mean(d) sqrt(n) / sd(d) with n - 1 degrees of freedom (the k-fold paired t-test
    of the UMT paper, §4; equal to ``scipy.stats.ttest_rel``). Differences that are all
    equal give t = 0, p = 1 when they are zero and p = 0 otherwise, never a warning.
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    if n < 2:
        return 0.0, 1.0
    sd = d.std(ddof=1)
    mean = d.mean()
    if sd == 0 or not np.isfinite(sd):
        return (0.0, 1.0) if mean == 0 else (float(np.sign(mean) * np.inf), 0.0)
    t = mean * np.sqrt(n) / sd
    return float(t), float(2 * stats.t.sf(abs(t), n - 1))
