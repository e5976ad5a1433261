"""The shared sorted sweep: every threshold of one or many projections scored with
running class counts, in one compiled pass (Breiman et al. 1984, §2.4: the thresholds
lie halfway between consecutive distinct values).

numpy's batched ``argsort`` orders each projection (it is hard to beat); the compiled
sweep of ``obliq_cli.kernels.sweep`` then scores the split at the end of every run of
equal values from running integer counts in closed form.

These closed forms round differently from the vectorised formulas of
``obliq_cli.tree.impurity``, which define the trees. So the kernel's scores only
*shortlist*: every candidate within a small tolerance of the kernel's best (far wider
than the rounding of either formula) gets its class counts recounted and is scored again
by the criterion's own vectorised function, and the lowest of those wins, the earliest
(lowest feature, then lowest threshold) on ties. The result is exactly what scoring
every candidate with ``impurity`` would give, compiled or not (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

import numpy as np

from ..kernels.criteria import ENTROPY
from ..kernels.sums import PAIRWISE_MAX
from ..kernels.sweep import left_counts_at, pick_exact, shortlist, sweep_scores, xlogx_table

# The shortlist keeps candidates within this of the best kernel score (relative to
# max(1, |best|)). Both formulas are accurate to about k * 1e-16 here, so a true best
# can never fall outside, and distinct count vectors of n <= 1e6 rows rarely score
# closer than 1e-12, so the shortlist stays short.
SHORTLIST_TOLERANCE = 1e-10
# Candidates recounted and rescored at once (bounds the [m, k] count arrays when a
# criterion has many exact ties, e.g. misclassification).
_RESCORE_BATCH = 65_536


_NO_TABLE = np.zeros(1)


def midpoint_threshold(lo: float, hi: float) -> float:
    """Halfway between consecutive distinct values; ``lo`` when the midpoint rounds up
    to ``hi`` (adjacent floats)."""
    threshold = lo / 2.0 + hi / 2.0
    return float(lo if threshold >= hi else threshold)


def best_sorted_split(values: np.ndarray, y: np.ndarray, k: int, criterion,
                      order: np.ndarray | None = None):
    """The lowest-scoring threshold over the rows of ``values`` [d, n].

    ``y`` holds class codes 0..k-1 (every code present keeps ``impurity``'s rounding
    the same as a search over the node's present classes), ``criterion`` a
    ``tree.impurity.Criterion`` (the kernel scores each in closed form); ``order`` the
    argsort of each row when already known.
    Returns (projection, threshold, score) with the criterion's own score, or None when
    no projection has two distinct values. Ties go to the lowest projection, then the
    lowest threshold.
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    d, n = values.shape
    if order is None:
        order = np.argsort(values, axis=1)
    order = np.ascontiguousarray(order, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    scores = np.empty((d, n - 1))
    crit = criterion.code
    xlogx = xlogx_table(n) if crit == ENTROPY else _NO_TABLE
    best = sweep_scores(values, order, y, k, crit, xlogx, scores)
    if not np.isfinite(best):
        return None
    near = shortlist(scores, np.full(d, best + SHORTLIST_TOLERANCE * max(1.0, abs(best))))
    if crit != ENTROPY and k <= PAIRWISE_MAX:
        win, win_score = pick_exact(order, y, k, crit, near, n)
    else:
        win, win_score = _pick_vectorised(order, y, k, criterion, near, n)
    f, p = divmod(int(win), n - 1)
    lo, hi = values[f, order[f, p]], values[f, order[f, p + 1]]
    return f, midpoint_threshold(lo, hi), float(win_score)


def _pick_vectorised(order, y, k, criterion, near, n):
    """``pick_exact`` through the criterion's own vectorised function (entropy, or
    more than 128 classes)."""
    total = np.bincount(y, minlength=k)
    win, win_score = -1, np.inf
    for start in range(0, near.size, _RESCORE_BATCH):
        batch = near[start:start + _RESCORE_BATCH]
        left = left_counts_at(order, y, k, batch // (n - 1), batch % (n - 1))
        exact = criterion(left, total - left)
        i = int(np.argmin(exact))
        if exact[i] < win_score:  # strict: earlier batches win ties
            win, win_score = int(batch[i]), float(exact[i])
    return win, win_score


