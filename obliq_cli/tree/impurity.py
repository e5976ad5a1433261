"""Split criteria, vectorised over many candidate splits at once.

Every function takes the class counts left and right of each candidate split,
``left`` and ``right`` of shape [m, n_classes], and returns a score of shape [m] that is
*lower for a better split*, so every search minimises.

- gini, entropy: the weighted child impurity ``(n_L i(L) + n_R i(R)) / n`` (Breiman et
  al. 1984, §4.3; entropy in bits as scikit-learn's ``log_loss``/``entropy`` criterion).
- twoing: minus the twoing value ``p_L p_R / 4 (sum_j |p(j|L) - p(j|R)|)^2`` (Breiman et
  al. 1984, §4.4; the default rule of Murthy's OC1 and of the HHCART paper).
- misclassification (max minority counts errors): ``(n_L - max_j L_j + n_R - max_j R_j) / n``.
"""

from __future__ import annotations

import numpy as np


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return num / np.where(den > 0, den, 1.0)


def gini_of_counts(counts: np.ndarray) -> np.ndarray:
    """Gini impurity ``1 - sum_j p_j^2`` of each row of class counts."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    p = _safe_div(counts, n[..., None])
    return np.where(n > 0, 1.0 - np.einsum("...j,...j->...", p, p), 0.0)


def entropy_of_counts(counts: np.ndarray) -> np.ndarray:
    """Shannon entropy in bits of each row of class counts."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    p = _safe_div(counts, n[..., None])
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -np.einsum("...j,...j->...", p, logs)


def misclassification_of_counts(counts: np.ndarray) -> np.ndarray:
    """Resubstitution error rate ``1 - max_j p_j`` of each row of class counts."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    return np.where(n > 0, 1.0 - _safe_div(counts.max(axis=-1), n), 0.0)


NODE_IMPURITY = {
    "gini": gini_of_counts,
    "entropy": entropy_of_counts,
    "misclassification": misclassification_of_counts,
}


def _weighted(node_impurity, left, right):
    n_left = left.sum(axis=1)
    n_right = right.sum(axis=1)
    total = n_left + n_right
    return _safe_div(n_left * node_impurity(left) + n_right * node_impurity(right), total)


def _sides(left, right):
    """Float counts of both sides, their sizes and the node size."""
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    n_left = left.sum(axis=1)
    n_right = right.sum(axis=1)
    return left, right, n_left, n_right, n_left + n_right


def gini_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    # n_L gini(L) = n_L - sum_j L_j^2 / n_L, which needs no per-class division.
    left, right, n_left, n_right, total = _sides(left, right)
    purity = _safe_div(np.einsum("ij,ij->i", left, left), n_left) + _safe_div(
        np.einsum("ij,ij->i", right, right), n_right
    )
    return _safe_div(total - purity, total)


def entropy_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return _weighted(entropy_of_counts, left, right)


def misclassification_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return _weighted(misclassification_of_counts, left, right)


def twoing_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Minus Breiman's twoing value, so that lower is better like the other criteria."""
    left, right, n_left, n_right, total = _sides(left, right)
    p_left = _safe_div(n_left, total)
    p_right = _safe_div(n_right, total)
    spread = np.abs(_safe_div(left, n_left[:, None]) - _safe_div(right, n_right[:, None]))
    return -(p_left * p_right / 4.0) * spread.sum(axis=1) ** 2


SPLIT_CRITERIA = {
    "gini": gini_split,
    "entropy": entropy_split,
    "twoing": twoing_split,
    "misclassification": misclassification_split,
}


def split_criterion(name: str):
    """The vectorised split score for a criterion name (ValueError when unknown)."""
    try:
        return SPLIT_CRITERIA[name]
    except KeyError:
        raise ValueError(
            f"unknown criterion {name!r}; choose one of {', '.join(sorted(SPLIT_CRITERIA))}"
        ) from None
