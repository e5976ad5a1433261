"""The criterion codes every kernel takes, and one candidate's score from its counts.

The codes are the ``code`` of the criterion objects of ``obliq_cli.tree.impurity`` (one
object per name holds the code, the vectorised score and the node impurity). Scores are
lower-is-better (the weighted child impurity; minus the twoing value).

Two compiled forms of one candidate's score exist, because each must round as the
search it serves was defined:

- :func:`impurity_score` repeats the vectorised numpy formula of ``tree.impurity``
  operation for operation (gini, twoing, misclassification), so the sorted sweep's
  exact rescoring picks the candidate the vectorised score would pick;
- :func:`count_score` is the line search's closed form from the left and node counts
  (twoing from exact integer products), which OC1's and CART-LC's climbs compare.

The two round differently in the last bits, and merging them would change which of two
nearly tied hyperplanes a climb keeps, i.e. the trees.
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .sums import pairwise_sum

GINI, ENTROPY, TWOING, MISCLASSIFICATION = 0, 1, 2, 3
"""Criterion codes of the kernels (``Criterion.code`` of ``tree.impurity``)."""


@compiled
def impurity_score(crit, left, right, spread):
    """The score ``impurity``'s vectorised function gives one candidate (gini, twoing,
    misclassification), operation for operation, so it rounds the same; ``spread`` is
    a work array of k values."""
    k = left.size
    n_left = 0.0
    n_right = 0.0
    for j in range(k):
        n_left += left[j]
        n_right += right[j]
    total = n_left + n_right
    if crit == GINI:
        sq_left = 0.0
        sq_right = 0.0
        for j in range(k):
            sq_left += float(left[j]) * float(left[j])
            sq_right += float(right[j]) * float(right[j])
        return (total - (sq_left / n_left + sq_right / n_right)) / total
    if crit == TWOING:
        for j in range(k):
            spread[j] = abs(left[j] / n_left - right[j] / n_right)
        s = pairwise_sum(spread)
        return -(n_left / total * (n_right / total) / 4.0) * (s * s)
    max_left = 0.0
    max_right = 0.0
    for j in range(k):
        max_left = max(max_left, float(left[j]))
        max_right = max(max_right, float(right[j]))
    return (n_left * (1.0 - max_left / n_left) + n_right * (1.0 - max_right / n_right)) / total


@compiled
def entropy_term(counts, size):
    """``size * H(counts)`` in bits (0 for an empty side)."""
    if size <= 0.0:
        return 0.0
    h = 0.0
    for j in range(counts.size):
        p = counts[j] / size
        if p > 0.0:
            h -= p * np.log2(p)
    return size * h


@compiled
def twoing_exact(left, total, n_left, n):
    """Twoing of K > 2 classes from integer counts: with ``S = sum_j |n L_j - T_j n_L|``
    (exact: products and sums of integers below 2^53), ``sum_j |L_j / n_L - R_j / n_R|
    = S / (n_L n_R)`` and the score is ``-S^2 / (4 n^2 n_L n_R)``; 0 when a side is
    empty. One multiply-add per class and no division; the same value as the textbook
    formula up to its rounding, and as the axis-parallel sweep's twoing
    (``sweep.sweep_twoing``) to the bit."""
    return twoing_of_spread(twoing_spread(left, total, n_left, n), n_left, n)


@compiled
def twoing_spread(left, total, n_left, n):
    """``S = sum_j |n L_j - T_j n_L|`` of :func:`twoing_exact` (exact for integer
    counts below 2^26). One point moving between the sides changes ``S`` by at most
    ``2 (n - T_c) <= 2 n`` (its class c's term by ``n - T_c``, every other class's by
    ``T_j``), which lets the line search skip positions that cannot come near its best."""
    spread = 0.0
    for j in range(left.size):
        spread += abs(n * left[j] - total[j] * n_left)
    return spread


@compiled
def twoing_of_spread(spread, n_left, n):
    """The twoing score ``-S^2 / (4 n^2 n_L n_R)`` of :func:`twoing_exact` from ``S``
    (:func:`twoing_spread`); 0 when a side is empty."""
    n_right = n - n_left
    if n_left <= 0.0 or n_right <= 0.0:
        return -0.0
    return -(spread * spread) / (4.0 * n * n * n_left * n_right)  # as sweep_twoing


@compiled
def count_score(left, total, code):
    """The criterion of one partition from its left class counts and the node's.

    Lower is better: gini ``(n - sum_j L_j^2 / n_L - sum_j R_j^2 / n_R) / n``, twoing
    ``-(n_L n_R / n^2) / 4 (sum_j |L_j / n_L - R_j / n_R|)^2``, entropy ``(n_L H(L) +
    n_R H(R)) / n`` (Breiman et al. 1984, §4.3-4.4).
    """
    K = left.size
    n_left = 0.0
    n = 0.0
    for j in range(K):
        n_left += left[j]
        n += total[j]
    n_right = n - n_left
    if n <= 0.0:
        return 0.0
    safe_l = n_left if n_left > 0.0 else 1.0
    safe_r = n_right if n_right > 0.0 else 1.0
    if code == TWOING:
        if K == 2:  # |p(0|L) - p(0|R)| = |p(1|L) - p(1|R)|
            gap = left[0] / safe_l - (total[0] - left[0]) / safe_r
            return -(n_left * n_right / (n * n)) * gap * gap
        return twoing_exact(left, total, n_left, n)
    if code == GINI:
        sq_l = 0.0
        sq_r = 0.0
        for j in range(K):
            r = total[j] - left[j]
            sq_l += left[j] * left[j]
            sq_r += r * r
        return (n - (sq_l / safe_l + sq_r / safe_r)) / n
    right = total - left
    return (entropy_term(left, n_left) + entropy_term(right, n_right)) / n
