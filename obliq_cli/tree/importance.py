"""Feature importances of one fitted tree, axis-parallel or oblique.

scikit-learn's ``feature_importances_`` (Breiman et al. 1984, §5.3.4, "mean decrease in
impurity") credits each split's weighted impurity decrease ``N_t i(t) - sum_c N_c i(c)``
to the one feature it tests, sums the credits per feature and normalises them to sum
to 1. An oblique split tests many features at once, so here its decrease is shared among
them in proportion to ``|w_j| * s_j``: the coefficient times the spread ``s_j`` of the
feature (its standard deviation over the training rows). That product is how much of the
projection ``w . x`` varies with feature j (a standardised coefficient), and it does not
change when a column is rescaled (``x_j -> c x_j`` turns ``w_j`` into ``w_j / c`` for the
same split, and ``s_j`` into ``c s_j``), where ``|w_j|`` alone would. An axis-parallel or
multiway split has one non-zero weight, so its share is the whole decrease and the result
is scikit-learn's exactly (up to rounding).
"""

from __future__ import annotations

import numpy as np


def impurity_decrease(tree, node_impurity) -> np.ndarray:
    """Per node its weighted impurity decrease ``N_t i(t) - sum over children N_c i(c)``
    (0 at leaves), ``N`` the training weight in ``tree.value`` and ``i`` =
    ``node_impurity`` of class counts (e.g. ``impurity.gini_of_counts``)."""
    value = np.asarray(tree.value, dtype=np.float64)
    weighted = value.sum(axis=1) * node_impurity(value)
    parent = np.repeat(np.arange(tree.n_nodes), tree.n_branches)
    children = np.bincount(parent, weights=weighted[tree.branch_child], minlength=tree.n_nodes)
    return np.where(tree.is_leaf, 0.0, weighted - children)


def split_shares(weights: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Each row of ``weights`` (one hyperplane per row) as its features' shares,
    ``|w_j| s_j / sum_k |w_k| s_k``; a row whose features all have spread 0 shares by
    ``|w_j|``, and a row of zeros (a leaf) is zeros."""
    size = np.abs(np.asarray(weights, dtype=np.float64))
    shares = size * np.asarray(spread, dtype=np.float64)[None, :]
    total = shares.sum(axis=1)
    flat = total <= 0
    shares[flat], total[flat] = size[flat], size[flat].sum(axis=1)
    return shares / np.where(total > 0, total, 1.0)[:, None]


def feature_importances(tree, node_impurity, spread) -> np.ndarray:
    """The importances of ``tree``'s columns (module docstring): every internal node's
    ``impurity_decrease`` shared by ``split_shares``, summed per column and normalised to
    sum to 1; all zeros for a tree of one leaf (as scikit-learn's)."""
    credit = impurity_decrease(tree, node_impurity) @ split_shares(tree.weights, spread)
    total = credit.sum()
    return credit / total if total > 0 else credit
