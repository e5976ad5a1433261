"""The shared sorted sweep: every threshold of one or many projections scored with
running class counts, in one compiled pass (Breiman et al. 1984, §2.4: the thresholds
lie halfway between consecutive distinct values).

numpy's batched ``argsort`` orders each projection (it is hard to beat); a numba kernel
then walks each sorted projection once, moving one row at a time from the right side
to the left, and scores the split at the end of every run of equal values from the
integer counts in closed form:

- gini: ``(n - sum_j L_j^2 / n_L - sum_j R_j^2 / n_R) / n``, with the sums of squares
  kept as running integers (one update per row);
- twoing: ``-(sum_j |n L_j - n_L T_j|)^2 / (4 n^2 n_L n_R)``, the same value as
  ``p_L p_R / 4 (sum_j |L_j / n_L - R_j / n_R|)^2`` with an integer numerator (T the
  node's counts);
- entropy: ``(n_L log2 n_L - sum_j L_j log2 L_j + (same for R)) / n`` from a table of
  ``c log2 c``;
- misclassification: ``(n_L - max_j L_j + n_R - max_j R_j) / n``.

These closed forms round differently from the vectorised formulas of
``obliq_cli.tree.impurity``, which define the trees. So the kernel's scores only
*shortlist*: every candidate within a small tolerance of the kernel's best (far wider
than the rounding of either formula) gets its class counts recounted and is scored again
by the criterion's own vectorised function, and the lowest of those wins, the earliest
(lowest feature, then lowest threshold) on ties. The result is exactly what scoring
every candidate with ``impurity`` would give, compiled or not (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

import numba
import numpy as np

from . import impurity

GINI, ENTROPY, TWOING, MISCLASSIFICATION = 0, 1, 2, 3

KERNEL_CRITERIA = {
    impurity.gini_split: GINI,
    impurity.entropy_split: ENTROPY,
    impurity.twoing_split: TWOING,
    impurity.misclassification_split: MISCLASSIFICATION,
}
"""The criteria the kernel scores in closed form, keyed by their vectorised function."""

# The shortlist keeps candidates within this of the best kernel score (relative to
# max(1, |best|)). Both formulas are accurate to about k * 1e-16 here, so a true best
# can never fall outside, and distinct count vectors of n <= 1e6 rows rarely score
# closer than 1e-12, so the shortlist stays short.
SHORTLIST_TOLERANCE = 1e-10
# Candidates recounted and rescored at once (bounds the [m, k] count arrays when a
# criterion has many exact ties, e.g. misclassification).
_RESCORE_BATCH = 65_536


_NO_TABLE = np.zeros(1)


def xlogx_table(n: int) -> np.ndarray:
    """``c log2 c`` for c = 0..n (0 for c = 0)."""
    c = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1)
    out[1:] = c[1:] * np.log2(c[1:])
    return out


@numba.njit(cache=True, nogil=True)
def _sweep_gini(ys, vs, total, out):
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


@numba.njit(cache=True, nogil=True)
def _sweep_twoing(ys, vs, total, out):
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


@numba.njit(cache=True, nogil=True)
def _sweep_twoing_direct(ys, vs, total, out):
    """``_sweep_twoing`` summing over every class at every threshold (for the tests)."""
    n, k = ys.size, total.size
    left = np.zeros(k, dtype=np.int64)
    nf = float(n)
    best = np.inf
    for i in range(n - 1):
        left[ys[i]] += 1
        if vs[i + 1] > vs[i]:
            n_left = i + 1
            spread = 0
            for j in range(k):
                spread += abs(n * left[j] - n_left * total[j])
            sf = float(spread)
            s = -(sf * sf) / (4.0 * nf * nf * float(n_left) * float(n - n_left))
            out[i] = s
            best = min(best, s)
        else:
            out[i] = np.inf
    return best


@numba.njit(cache=True, nogil=True)
def _sweep_entropy(ys, vs, total, xlogx, out):
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


@numba.njit(cache=True, nogil=True)
def _sweep_minority(ys, vs, total, out):
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


@numba.njit(cache=True, nogil=True)
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
            s = _sweep_gini(ys, vs, total, scores[f])
        elif crit == TWOING:
            s = _sweep_twoing(ys, vs, total, scores[f])
        elif crit == ENTROPY:
            s = _sweep_entropy(ys, vs, total, xlogx, scores[f])
        else:
            s = _sweep_minority(ys, vs, total, scores[f])
        best = min(best, s)
    return best


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
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
        _sweep_entropy(ys, vs, total, xlogx, scores[f])
        count = 0
        for i in range(n - 1):
            if i + 1 < min_split or n - 1 - i < min_split:
                scores[f, i] = np.inf
            elif scores[f, i] < np.inf:
                count += 1
                best[f] = min(best[f], scores[f, i])
        tries[f] = count
    return best


@numba.njit(cache=True, nogil=True)
def pairwise_sum(a):
    """Sum of a short 1-D array (at most 128 values) in numpy's pairwise order (eight
    running partial sums combined as a tree, then the rest), so that it rounds as
    ``ndarray.sum`` does along a contiguous axis."""
    n = a.size
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r = a[:8].copy()
    i = 8
    while i < n - (n % 8):
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[i]
        i += 1
    return res


_PAIRWISE_MAX = 128  # numpy splits longer sums recursively; those go through numpy


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
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


def midpoint_threshold(lo: float, hi: float) -> float:
    """Halfway between consecutive distinct values; ``lo`` when the midpoint rounds up
    to ``hi`` (adjacent floats)."""
    threshold = lo / 2.0 + hi / 2.0
    return float(lo if threshold >= hi else threshold)


def best_sorted_split(values: np.ndarray, y: np.ndarray, k: int, criterion,
                      order: np.ndarray | None = None):
    """The lowest-scoring threshold over the rows of ``values`` [d, n].

    ``y`` holds class codes 0..k-1 (every code present keeps ``impurity``'s rounding
    the same as a search over the node's present classes), ``criterion`` one of
    ``KERNEL_CRITERIA``; ``order`` the argsort of each row when already known.
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
    crit = KERNEL_CRITERIA[criterion]
    xlogx = xlogx_table(n) if crit == ENTROPY else _NO_TABLE
    best = sweep_scores(values, order, y, k, crit, xlogx, scores)
    if not np.isfinite(best):
        return None
    near = shortlist(scores, np.full(d, best + SHORTLIST_TOLERANCE * max(1.0, abs(best))))
    if crit != ENTROPY and k <= _PAIRWISE_MAX:
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


@numba.njit(cache=True, nogil=True)
def numpy_pairwise_sum(a, start, n):
    """``a[start:start + n].sum()`` in numpy's order for a contiguous float64 run:
    blocks of at most 128 values summed by ``pairwise_sum``, longer runs split in two
    (the first part a multiple of 8 values) and the halves added. Written with an
    explicit stack: numba's cached recursive functions are not reliable."""
    if n <= _PAIRWISE_MAX:
        return pairwise_sum(a[start:start + n])
    depth = 64
    st_start = np.empty(depth, dtype=np.int64)
    st_n = np.empty(depth, dtype=np.int64)
    st_stage = np.zeros(depth, dtype=np.int64)  # 0: left half pending, 1: right half
    st_left = np.zeros(depth)
    top = 0
    st_start[0], st_n[0], st_stage[0] = start, n, 0
    top = 1
    value = 0.0
    returned = False
    while top > 0:
        t = top - 1
        m = st_n[t]
        half = m // 2
        half -= half % 8
        if returned:
            if st_stage[t] == 0:
                st_left[t] = value
                st_stage[t] = 1
                returned = False
                top += 1
                st_start[top - 1] = st_start[t] + half
                st_n[top - 1] = m - half
                st_stage[top - 1] = 0
            else:
                value = st_left[t] + value
                top -= 1
        elif m <= _PAIRWISE_MAX:
            value = pairwise_sum(a[st_start[t]:st_start[t] + m])
            returned = True
            top -= 1
        else:
            top += 1
            st_start[top - 1] = st_start[t]
            st_n[top - 1] = half
            st_stage[top - 1] = 0
    return value


@numba.njit(cache=True, nogil=True)
def hinge_slack_sweep(z_pos, z_neg, Cs, slack, lo, hi):
    """UMT's eq. 4 minimised over the threshold, for every margin and feature.

    z_pos [d, n_pos], z_neg [d, n_neg]: each feature's values of the +1 and -1 rows,
    each row sorted ascending. For margin C the hinge breakpoints are u = z - C (+1)
    and v = z + C (-1); both lists are already sorted, so a merge (O(n), no sort per
    C) gives the sorted breakpoints P, and prefix counts and sums give the summed
    slack f at every breakpoint:
    ``f(P_i) = sum_{u <= P_i} (P_i - u) + sum_{v > P_i} (v - P_i)``, clipped at 0.
    Writes, for margin m and feature f, the least slack and the lowest and highest
    breakpoint within 1e-9 max(1, min) of it into slack/lo/hi [m, d]. The arithmetic is
    that of ``umt.hinge_sweep``'s vectorised form (sequential prefix sums, numpy's
    pairwise total), so the numbers are the same.
    """
    d, n_pos = z_pos.shape
    n_neg = z_neg.shape[1]
    n = n_pos + n_neg
    P = np.empty(n)
    is_pos = np.empty(n, dtype=np.bool_)
    neg_vals = np.empty(n)
    f_vals = np.empty(n)
    for m in range(Cs.size):
        minus_c = Cs[m] * -1.0
        plus_c = Cs[m] * 1.0
        for f in range(d):
            a = 0
            b = 0
            for i in range(n):
                if b >= n_neg or (a < n_pos and z_pos[f, a] + minus_c <= z_neg[f, b] + plus_c):
                    P[i] = z_pos[f, a] + minus_c
                    is_pos[i] = True
                    neg_vals[i] = 0.0
                    a += 1
                else:
                    P[i] = z_neg[f, b] + plus_c
                    is_pos[i] = False
                    neg_vals[i] = P[i]
                    b += 1
            total_neg = numpy_pairwise_sum(neg_vals, 0, n)
            cnt_pos = 0
            sum_pos = 0.0
            cum_neg = 0.0
            fmin = np.inf
            for i in range(n):
                if is_pos[i]:
                    cnt_pos += 1
                    sum_pos += P[i]
                else:
                    sum_pos += 0.0
                cum_neg += neg_vals[i]
                cnt_neg_after = n_neg - (i + 1 - cnt_pos)
                value = (cnt_pos * P[i] - sum_pos) + ((total_neg - cum_neg)
                                                      - cnt_neg_after * P[i])
                value = max(value, 0.0)
                f_vals[i] = value
                fmin = min(fmin, value)
            bound = fmin + 1e-9 * max(1.0, fmin)
            low = np.inf
            high = -np.inf
            for i in range(n):
                if f_vals[i] <= bound:
                    low = min(low, P[i])
                    high = max(high, P[i])
            slack[m, f] = fmin
            lo[m, f] = low
            hi[m, f] = high

