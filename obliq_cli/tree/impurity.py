"""Split criteria: one :class:`Criterion` object per name (as scikit-learn's
``CRITERIA_CLF``), holding everything a search needs of it: the kernels' integer code
(``obliq_cli.kernels.criteria``), the score vectorised over many candidate splits and
the impurity of a node. Every search (the sorted sweep, the line search of OC1 and
CART-LC, GDT's bisectors) and the cost-complexity pruner takes the object, or its name
through :func:`split_criterion`.

The score takes the class counts left and right of each candidate split, ``left`` and
``right`` of shape [m, n_classes], and returns a score of shape [m] that is *lower for a
better split*, so every search minimises; calling the object calls it.

- gini, entropy: the weighted child impurity ``(n_L i(L) + n_R i(R)) / n`` (Breiman et
  al. 1984, §4.3; entropy in bits as scikit-learn's ``log_loss``/``entropy`` criterion).
- twoing: minus the twoing value ``p_L p_R / 4 (sum_j |p(j|L) - p(j|R)|)^2`` (Breiman et
  al. 1984, §4.4; the default rule of Murthy's OC1 and of the HHCART paper).
- misclassification (max minority counts errors): ``(n_L - max_j L_j + n_R - max_j R_j) / n``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..kernels import criteria as codes


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


def _gini_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    # n_L gini(L) = n_L - sum_j L_j^2 / n_L, which needs no per-class division.
    left, right, n_left, n_right, total = _sides(left, right)
    purity = _safe_div(np.einsum("ij,ij->i", left, left), n_left) + _safe_div(
        np.einsum("ij,ij->i", right, right), n_right
    )
    return _safe_div(total - purity, total)


def _entropy_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return _weighted(entropy_of_counts, left, right)


def _misclassification_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return _weighted(misclassification_of_counts, left, right)


def _twoing_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Minus Breiman's twoing value, so that lower is better like the other criteria."""
    left, right, n_left, n_right, total = _sides(left, right)
    p_left = _safe_div(n_left, total)
    p_right = _safe_div(n_right, total)
    spread = np.abs(_safe_div(left, n_left[:, None]) - _safe_div(right, n_right[:, None]))
    return -(p_left * p_right / 4.0) * spread.sum(axis=1) ** 2


@dataclass(frozen=True, eq=False)
class Criterion:
    """One split criterion by name.

    ``code`` is its code in the compiled kernels; ``score`` its vectorised split score
    (lower is better); ``node_impurity`` the impurity of each row of class counts, None
    for twoing (a criterion of splits only); ``line_search`` whether the line search of
    the hill climbers scores it (``obliq_cli.kernels.line_search``: gini, entropy,
    twoing). Objects compare by identity: there is one per name.
    """

    name: str
    code: int
    score: Callable[[np.ndarray, np.ndarray], np.ndarray]
    node_impurity: Callable[[np.ndarray], np.ndarray] | None
    line_search: bool

    def __call__(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return self.score(left, right)

    def __repr__(self) -> str:
        return f"Criterion({self.name!r})"

    def __reduce__(self):  # unpickled (in a worker), it is the same object again
        return split_criterion, (self.name,)


gini_split = Criterion("gini", codes.GINI, _gini_split, gini_of_counts, True)
entropy_split = Criterion("entropy", codes.ENTROPY, _entropy_split, entropy_of_counts, True)
twoing_split = Criterion("twoing", codes.TWOING, _twoing_split, None, True)
misclassification_split = Criterion("misclassification", codes.MISCLASSIFICATION,
                                    _misclassification_split, misclassification_of_counts,
                                    False)

CRITERIA = {c.name: c for c in (gini_split, entropy_split, twoing_split,
                                misclassification_split)}
"""Every criterion by name."""


def split_criterion(name: str) -> Criterion:
    """The criterion of a name (ValueError when unknown)."""
    try:
        return CRITERIA[name]
    except KeyError:
        raise ValueError(
            f"unknown criterion {name!r}; choose one of {', '.join(sorted(CRITERIA))}"
        ) from None


def line_search_code(criterion) -> int:
    """The kernel code of a criterion the line search scores (ValueError otherwise)."""
    if isinstance(criterion, Criterion) and criterion.line_search:
        return criterion.code
    raise ValueError(f"the line search supports gini, twoing and entropy, not "
                     f"{getattr(criterion, 'name', getattr(criterion, '__name__', criterion))!r}")
