"""The best axis-parallel split over all features at once.

Each feature is sorted once and swept with running class counts, every candidate of
every feature scored (Breiman et al. 1984, §2.4: thresholds halfway between consecutive
distinct values). The criteria of ``obliq_cli.tree.impurity`` run through the compiled
sweep of ``obliq_cli.tree.sorted_sweep``; any other criterion callable through the
vectorised count arrays below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .impurity import Criterion
from .sorted_sweep import best_sorted_split, midpoint_threshold


@dataclass(frozen=True)
class AxisSplit:
    feature: int
    threshold: float
    score: float


def find_best_axis_split(
    X: np.ndarray, y: np.ndarray, n_classes: int, criterion, features=None, order=None,
    weights=None,
) -> AxisSplit | None:
    """The axis-parallel split ``X[:, f] <= t`` with the lowest ``criterion`` score.

    Parameters
    ----------
    X : array, shape [n, d]; y : int array of class codes, shape [n]
    criterion : callable(left_counts [m, K], right_counts [m, K]) -> scores [m], lower
        is better (see ``obliq_cli.tree.impurity``).
    features : optional array of feature indices to search (default all).
    order : optional int array [n, d]: column j lists the rows in ascending order of
        ``X[:, j]`` (any order within equal values), e.g. from an order presorted once
        per fit; saves the sort.
    weights : None, or each row's weight: the class counts are weighted sums (a row of
        weight 3 counts as three copies of it).

    Returns None when no feature has two distinct values. Ties in score go to the
    lowest feature index, then the lowest threshold, so the search is deterministic.
    """
    if features is not None:
        features = np.asarray(features, dtype=np.int64)
        X = X[:, features]
        if order is not None:
            order = order[:, features]
    found = find_best_projection_split(X.T, y, n_classes, criterion,
                                       None if order is None else order.T, weights)
    if found is None:
        return None
    f, threshold, score = found
    feature = int(features[f]) if features is not None else f
    return AxisSplit(feature, threshold, score)


def find_best_projection_split(values: np.ndarray, y: np.ndarray, n_classes: int, criterion,
                               order: np.ndarray | None = None, weights=None):
    """The same search over projections given as rows, ``values`` [d, n] (e.g. HHCART's
    reflected columns, built in this layout so that each sorts along memory).

    ``order`` is the argsort of each row when the caller already has it; ``weights``
    None or each row's weight (``find_best_axis_split``). Returns (row, threshold,
    score) or None, with the tie rule of ``find_best_axis_split``.
    """
    d, n = values.shape
    if n < 2 or d == 0:
        return None
    # Classes absent from the node add nothing to any criterion: drop them, which makes
    # deep nodes of many-class problems (letter: 26) cheap.
    present = np.bincount(y, minlength=n_classes) > 0
    k = int(present.sum())
    y_local = (np.cumsum(present) - 1)[y]
    if weights is None and isinstance(criterion, Criterion):
        return best_sorted_split(values, y_local, k, criterion, order)
    # Weighted counts take the vectorised search: the compiled sweep counts integers.
    found = _vectorised_axis_split(values.T, y_local, k, criterion,
                                   None if order is None else order.T, weights)
    return None if found is None else (found.feature, found.threshold, found.score)


def _vectorised_axis_split(X, y_local, k, criterion, order=None, weights=None):
    """The same search for any criterion callable, through [m, k] count arrays (weighted
    sums with ``weights``)."""
    n, d = X.shape
    # Order within a run of equal values does not matter: counts are taken per run.
    if order is None:
        order = np.argsort(X, axis=0)
    x_sorted = np.take_along_axis(X, order, axis=0)
    new_value = x_sorted[1:] > x_sorted[:-1]  # a threshold fits between rows i and i+1
    # Runs of equal values form blocks; class counts are needed only at block ends, so
    # count (block, class) pairs with one bincount and accumulate over blocks, which is
    # far cheaper than a running count over every row when values repeat (letter).
    block = np.zeros((n, d), dtype=np.int64)
    np.cumsum(new_value, axis=0, out=block[1:])
    n_blocks = block[-1] + 1  # per feature
    offset = np.concatenate([[0], np.cumsum(n_blocks)[:-1]])
    if not (n_blocks > 1).any():
        return None
    cell = ((block + offset) * k + y_local[order]).ravel()
    per_block = np.bincount(cell, minlength=int(n_blocks.sum()) * k,
                            weights=None if weights is None else weights[order].ravel()
                            ).reshape(-1, k)
    running = np.cumsum(per_block, axis=0)
    # Counts accumulated over the earlier features, and each feature's node total.
    before = np.vstack([np.zeros((1, k), dtype=running.dtype), running[offset[1:] - 1]])
    feature_total = running[offset + n_blocks - 1] - before
    # Candidates: the end of every block but a feature's last, in feature-major order so
    # ties go to the lowest feature, then the lowest threshold.
    is_last = np.zeros(int(n_blocks.sum()), dtype=bool)
    is_last[offset + n_blocks - 1] = True
    cand = np.flatnonzero(~is_last)
    feat_idx = np.searchsorted(offset, cand, side="right") - 1
    left = running[cand] - before[feat_idx]
    right = feature_total[feat_idx] - left
    scores = criterion(left, right)
    best = int(np.argmin(scores))
    f = int(feat_idx[best])
    # The block's last row in the sorted column (found in the block numbers, as the
    # counts of a weighted search are no row counts).
    p = int(np.searchsorted(block[:, f], cand[best] - offset[f], side="right")) - 1
    threshold = midpoint_threshold(x_sorted[p, f], x_sorted[p + 1, f])
    return AxisSplit(f, threshold, float(scores[best]))
