"""The sorted sweep: every threshold of one or many projections scored from running
class counts in one compiled pass (``obliq_cli.tree.sorted_sweep`` drives it).

Each sorted projection is walked once, moving one row at a time from the right side to
the left, and the split at the end of every run of equal values is scored from the
integer counts in closed form:

- gini: ``(n - sum_j L_j^2 / n_L - sum_j R_j^2 / n_R) / n``, with the sums of squares
  kept as running integers (one update per row);
- twoing: ``-(sum_j |n L_j - n_L T_j|)^2 / (4 n^2 n_L n_R)``, the same value as
  ``p_L p_R / 4 (sum_j |L_j / n_L - R_j / n_R|)^2`` with an integer numerator (T the
  node's counts);
- entropy: ``(n_L log2 n_L - sum_j L_j log2 L_j + (same for R)) / n`` from a table of
  ``c log2 c``;
- misclassification: ``(n_L - max_j L_j + n_R - max_j R_j) / n``.

These closed forms only shortlist: ``tree.sorted_sweep`` rescores the candidates near
the best with the criterion's own formula (:func:`pick_exact` or the vectorised score on
:func:`left_counts_at`'s counts).
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .criteria import ENTROPY, GINI, TWOING, impurity_score


def xlogx_table(n: int) -> np.ndarray:
    """``c log2 c`` for c = 0..n (0 for c = 0)."""
    c = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1)
    out[1:] = c[1:] * np.log2(c[1:])
    return out


@compiled
def sweep_gini(ys, vs, total, out):
    n, k = ys.size, total.size
    left = np.zeros(k, dtype=np.int64)
    right = total.copy()
    sq_left = 0
    sq_right = 0
    for j in range(k):
        sq_right += total[j] * total[j]
    best = np.inf
    for i in range(n - 1):
        c = ys[i]
        # (L_c + 1)^2 - L_c^2 and (R_c - 1)^2 - R_c^2
        sq_left += 2 * left[c] + 1
        sq_right -= 2 * right[c] - 1
        left[c] += 1
        right[c] -= 1
        if vs[i + 1] > vs[i]:
            s = (n - (sq_left / (i + 1) + sq_right / (n - 1 - i))) / n
            out[i] = s
            best = min(best, s)
        else:
            out[i] = np.inf
    return best


@compiled
def sweep_twoing(ys, vs, total, out):
    # The numerator sum_j |g_j|, g_j = n L_j - n_L T_j, in O(1) per row: the g_j sum to
    # zero, so it is 2 sum over the classes A with g_j > 0, i.e. 2 (n L_A - n_L T_A)
    # with L_A, T_A the counts of A. A class enters A only when one of its rows moves
    # left; while no row of class j moves, g_j falls by T_j per row, so it leaves A at
    # the first n_L >= n L_j / T_j, which is scheduled in a bucket list by n_L.
    n, k = ys.size, total.size
    left = np.zeros(k, dtype=np.int64)
    in_a = np.zeros(k, dtype=np.bool_)
    exit_at = np.zeros(k, dtype=np.int64)
    head = np.full(n + 1, -1, dtype=np.int64)  # bucket n_L -> first entry
    entry_next = np.empty(n, dtype=np.int64)
    entry_class = np.empty(n, dtype=np.int64)
    left_a = 0
    total_a = 0
    nf = float(n)
    best = np.inf
    for i in range(n - 1):
        n_left = i + 1
        c = ys[i]
        left[c] += 1
        if in_a[c]:
            left_a += 1
        elif n * left[c] > n_left * total[c]:
            in_a[c] = True
            left_a += left[c]
            total_a += total[c]
        if in_a[c]:
            exit_at[c] = (n * left[c] + total[c] - 1) // total[c]
            if exit_at[c] <= n:
                entry_class[i] = c
                entry_next[i] = head[exit_at[c]]
                head[exit_at[c]] = i
        e = head[n_left]
        while e >= 0:
            j = entry_class[e]
            if in_a[j] and exit_at[j] == n_left:
                in_a[j] = False
                left_a -= left[j]
                total_a -= total[j]
            e = entry_next[e]
        if vs[i + 1] > vs[i]:
            sf = 2.0 * float(n * left_a - n_left * total_a)
            s = -(sf * sf) / (4.0 * nf * nf * float(n_left) * float(n - n_left))
            out[i] = s
            best = min(best, s)
        else:
            out[i] = np.inf
    return best


@compiled
def sweep_entropy(ys, vs, total, xlogx, out):
    n, k = ys.size, total.size
    left = np.zeros(k, dtype=np.int64)
    best = np.inf
    for i in range(n - 1):
        left[ys[i]] += 1
        if vs[i + 1] > vs[i]:
            s_left = 0.0
            s_right = 0.0
            for j in range(k):
                s_left += xlogx[left[j]]
                s_right += xlogx[total[j] - left[j]]
            s = (xlogx[i + 1] - s_left + xlogx[n - 1 - i] - s_right) / n
            out[i] = s
            best = min(best, s)
        else:
            out[i] = np.inf
    return best


@compiled
def sweep_minority(ys, vs, total, out):
    n, k = ys.size, total.size
    left = np.zeros(k, dtype=np.int64)
    best = np.inf
    for i in range(n - 1):
        left[ys[i]] += 1
        if vs[i + 1] > vs[i]:
            max_left = 0
            max_right = 0
            for j in range(k):
                max_left = max(max_left, left[j])
                max_right = max(max_right, total[j] - left[j])
            s = float(n - max_left - max_right) / n
            out[i] = s
            best = min(best, s)
        else:
            out[i] = np.inf
    return best


@compiled
def sweep_scores(values, order, y, k, crit, xlogx, scores):
    """Kernel scores of every threshold of every projection.

    values : [d, n] projections (one per row); order : [d, n] argsort of each row;
    y : [n] class codes in 0..k-1; crit : GINI/ENTROPY/TWOING/MISCLASSIFICATION;
    xlogx : ``xlogx_table(n)`` for ENTROPY (unused otherwise); scores : [d, n - 1]
    output, ``scores[f, i]`` for the split after sorted position i of projection f,
    +inf where rows i and i + 1 tie.
    Returns the lowest score (+inf when no projection has two distinct values).
    """
    d, n = values.shape
    total = np.zeros(k, dtype=np.int64)
    for r in range(n):
        total[y[r]] += 1
    # The projection's values and classes in sorted order, gathered once so that the
    # sweep reads contiguous memory.
    ys = np.empty(n, dtype=np.int64)
    vs = np.empty(n)
    best = np.inf
    for f in range(d):
        for i in range(n):
            r = order[f, i]
            ys[i] = y[r]
            vs[i] = values[f, r]
        if crit == GINI:
            s = sweep_gini(ys, vs, total, scores[f])
        elif crit == TWOING:
            s = sweep_twoing(ys, vs, total, scores[f])
        elif crit == ENTROPY:
            s = sweep_entropy(ys, vs, total, xlogx, scores[f])
        else:
            s = sweep_minority(ys, vs, total, scores[f])
        best = min(best, s)
    return best


@compiled
def shortlist(scores, bounds):
    """Flat indices (ascending: feature-major, then position) of the candidates with
    ``scores[f, i] <= bounds[f]``."""
    d, m = scores.shape
    count = 0
    for f in range(d):
        for i in range(m):
            if scores[f, i] <= bounds[f]:
                count += 1
    out = np.empty(count, dtype=np.int64)
    count = 0
    for f in range(d):
        for i in range(m):
            if scores[f, i] <= bounds[f]:
                out[count] = f * m + i
                count += 1
    return out


@compiled
def sweep_entropy_with_min_split(values, order, y, k, min_split, xlogx, scores, tries):
    """C4.5's cut search (``algorithms.c45``): the kernel's weighted child entropy of
    every cut between distinct values that leaves at least ``min_split`` rows on each
    side, +inf elsewhere, into ``scores`` [d, n - 1]; the number of such cuts of each
    projection into ``tries`` [d]. Returns each projection's lowest score [d]."""
    d, n = values.shape
    total = np.zeros(k, dtype=np.int64)
    for r in range(n):
        total[y[r]] += 1
    ys = np.empty(n, dtype=np.int64)
    vs = np.empty(n)
    best = np.full(d, np.inf)
    for f in range(d):
        for i in range(n):
            r = order[f, i]
            ys[i] = y[r]
            vs[i] = values[f, r]
        sweep_entropy(ys, vs, total, xlogx, scores[f])
        count = 0
        for i in range(n - 1):
            if i + 1 < min_split or n - 1 - i < min_split:
                scores[f, i] = np.inf
            elif scores[f, i] < np.inf:
                count += 1
                best[f] = min(best[f], scores[f, i])
        tries[f] = count
    return best


@compiled
def pick_exact(order, y, k, crit, candidates, n):
    """The first candidate (flat index f * (n - 1) + i, ascending) of lowest
    ``impurity_score``, recounting its class counts along its sorted projection.
    Returns (flat index, score)."""
    total = np.zeros(k, dtype=np.int64)
    for r in range(n):
        total[y[r]] += 1
    left = np.zeros(k, dtype=np.int64)
    right = np.zeros(k, dtype=np.int64)
    spread = np.empty(k)
    win = -1
    win_score = np.inf
    t = 0
    m = candidates.size
    while t < m:
        f = candidates[t] // (n - 1)
        left[:] = 0
        i = 0
        while t < m and candidates[t] // (n - 1) == f:
            p = candidates[t] % (n - 1)
            while i <= p:
                left[y[order[f, i]]] += 1
                i += 1
            for j in range(k):
                right[j] = total[j] - left[j]
            s = impurity_score(crit, left, right, spread)
            if s < win_score:
                win, win_score = candidates[t], s
            t += 1
    return win, win_score


@compiled
def left_counts_at(order, y, k, features, positions):
    """Class counts [m, k] of sorted positions 0..positions[t] of projection
    features[t]; the pairs must be sorted (feature, then position)."""
    m = features.size
    out = np.zeros((m, k), dtype=np.int64)
    counts = np.zeros(k, dtype=np.int64)
    t = 0
    while t < m:
        f = features[t]
        counts[:] = 0
        i = 0
        while t < m and features[t] == f:
            while i <= positions[t]:
                counts[y[order[f, i]]] += 1
                i += 1
            out[t, :] = counts
            t += 1
    return out
