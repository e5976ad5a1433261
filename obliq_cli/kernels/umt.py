"""UMT's loops (``obliq_cli.algorithms.umt`` documents every choice): eq. 4's hinge slack
minimised over the threshold for every margin and feature, the margin's choice by
split error, and the author's code's sign-rule thresholds.
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .sums import numpy_pairwise_sum


@compiled
def counts_at_most(blocks, offsets, f, t, out):
    """Per class, how many of its rows have feature ``f`` <= ``t``: ``blocks`` holds
    each class's learn rows (class k at rows offsets[k]:offsets[k+1]) with every column
    sorted within its block, so a binary search per class counts them
    (np.searchsorted(.., side="right"))."""
    for k in range(out.size):
        a = offsets[k]
        b = offsets[k + 1]
        start = a
        while a < b:
            mid = (a + b) // 2
            if blocks[mid, f] <= t:
                a = mid + 1
            else:
                b = mid
        out[k] = a - start


@compiled
def split_error_counts(left, total):
    """``error_of_split`` of one split from its left class counts and the node's class
    totals: 1 - (majority left + majority right) / N. For two classes the additions
    are those of the two-class formula, (l0 + l1) + (r0 + r1), so the numbers are the
    same."""
    n_left = 0.0
    n_right = 0.0
    best_left = 0.0
    best_right = 0.0
    for k in range(left.size):
        right = total[k] - left[k]
        n_left += left[k]
        n_right += right
        best_left = max(best_left, left[k])
        best_right = max(best_right, right)
    n = n_left + n_right
    return 1.0 - (best_left + best_right) / (n if n > 0 else 1.0)


@compiled
def validation_error(X_val, y_val, val_total, f, t, left, w_val):
    """``error_of_split`` of the rows ``X_val`` (classes ``y_val``, weights ``w_val``,
    weighted class totals ``val_total``) split at ``X_val[:, f] <= t``."""
    left[:] = 0.0
    for r in range(y_val.size):
        if X_val[r, f] <= t:
            left[y_val[r]] += w_val[r]
    return split_error_counts(left, val_total)


@compiled
def choose_margin(blocks, offsets, thr, varies, X_val, y_val, by_validation, w_val,
                  X_learn, y_learn, w_learn):
    """Index of the chosen C and each C's feature, with K classes (K = offsets.size - 1).

    ``by_validation`` False (the author's code): per C the feature of least learn error
    (first on ties; constant features never), then the C of least validation error
    (first on ties). True (the paper's Fig. 1): every (C, feature) pair is scored on the
    validation rows and the first least one wins (C outer, feature inner), so a C's
    feature is its pair's. ``blocks``/``offsets``: the learn rows grouped by class, every
    column sorted within its class (``counts_at_most``); ``thr`` [m, d] raw thresholds;
    rows x <= t go left; errors are ``error_of_split``. Row weights: ``w_val`` weigh
    the validation rows; with ``w_learn`` (one per learn row ``X_learn``, ``y_learn``;
    empty unweighted) the learn errors count weight, row by row, instead of the blocks'
    rows.
    """
    m, d = thr.shape
    n_classes = offsets.size - 1
    weighted = w_learn.size > 0
    learn_total = np.zeros(n_classes)
    if weighted:
        for r in range(y_learn.size):
            learn_total[y_learn[r]] += w_learn[r]
    else:
        for k in range(n_classes):
            learn_total[k] = offsets[k + 1] - offsets[k]
    val_total = np.zeros(n_classes)
    for r in range(y_val.size):
        val_total[y_val[r]] += w_val[r]
    counts = np.zeros(n_classes, dtype=np.int64)
    left = np.zeros(n_classes)
    best_f = np.zeros(m, dtype=np.int64)
    chosen, best = 0, np.inf
    for c in range(m):
        best_c = np.inf
        for f in range(d):
            if not varies[f]:
                continue
            if by_validation:
                err = validation_error(X_val, y_val, val_total, f, thr[c, f], left, w_val)
            elif weighted:
                err = validation_error(X_learn, y_learn, learn_total, f, thr[c, f], left,
                                       w_learn)
            else:
                counts_at_most(blocks, offsets, f, thr[c, f], counts)
                for k in range(n_classes):
                    left[k] = counts[k]
                err = split_error_counts(left, learn_total)
            if err < best_c:
                best_c, best_f[c] = err, f
        if by_validation:
            if best_c < best:
                chosen, best = c, best_c
    if by_validation:
        return chosen, best_f
    for c in range(m):
        err = validation_error(X_val, y_val, val_total, best_f[c], thr[c, best_f[c]], left,
                               w_val)
        if err < best:
            chosen, best = c, err
    return chosen, best_f


@compiled
def sign_rule_thresholds(z_rest, z_pos, Cs, tau, w_rest, w_pos):
    """The author's sweep (ISELL ``svmtree.c``), for every margin and feature: writes the
    x-threshold it keeps into ``tau`` [m, d] (normalised units; +inf where a feature's
    candidates are all equal, which sends every row left).

    ``z_rest`` [d, n_rest], ``z_pos`` [d, n_pos]: each feature's values of the rows
    outside / inside the positive class, each row sorted ascending. The code takes the
    candidates w0 = (C - t x) / t of eq. 9 (t = -1 for the positive class, +1 for the
    rest: C - x and -(C + x)), sorts them and merges ties, and then sweeps a convex
    piecewise-linear function whose slope steps by each candidate's count; but it
    decides whether a candidate's hinge rises or falls by the candidate's sign, not by
    its class: it minimises ``sum_{s > 0} max(0, s - w0) + sum_{s <= 0} max(0, w0 - s)``
    over the candidates s, keeps the first minimising candidate (strict ``<``, the last
    one never) and the threshold x = -(s_j + s_{j+1}) / 2. A candidate exactly 0 is taken
    off the count of positive candidates though it was never on it, as in the code. This
    is not eq. 4 (``hinge_sweep`` minimises that): the threshold sits where the
    candidates' counts balance, near the median of the shifted values. Both classes'
    candidates fall as x rises, so walking each sorted row from its end and merging
    gives them in ascending order without a sort per margin.

    Row weights: ``w_rest``/``w_pos`` [d, n] hold each value's row weight, aligned with
    ``z_rest``/``z_pos``; a candidate's count is its summed weight (all 1 unweighted).
    """
    d, n_rest = z_rest.shape
    n_pos = z_pos.shape[1]
    n = n_rest + n_pos
    xs = np.empty(n)
    cnt = np.empty(n)
    for m in range(Cs.size):
        C = Cs[m]
        for f in range(d):
            a = n_rest - 1
            b = n_pos - 1
            k = 0
            for _ in range(n):
                if b < 0 or (a >= 0 and C - z_rest[f, a] <= -(C + z_pos[f, b])):
                    value = C - z_rest[f, a]
                    weight = w_rest[f, a]
                    a -= 1
                else:
                    value = -(C + z_pos[f, b])
                    weight = w_pos[f, b]
                    b -= 1
                if k > 0 and xs[k - 1] == value:
                    cnt[k - 1] += weight
                else:
                    xs[k] = value
                    cnt[k] = weight
                    k += 1
            if k == 1:
                tau[m, f] = np.inf
                continue
            # value = f(w0) at w0 = xs[j]; ``above``: positive candidates right of w0,
            # ``below``: negative candidates passed (the code's two counters)
            value = 0.0
            below = 0.0
            above = 0.0
            for j in range(k - 1, 0, -1):
                if xs[j] > 0:
                    above += cnt[j]
                    value += (xs[j] - xs[0]) * cnt[j]
                else:
                    break
            best = np.inf
            split = np.inf
            for j in range(k - 1):
                if value < best:
                    best = value
                    split = -(xs[j] + xs[j + 1]) / 2.0
                if xs[j] < 0:
                    below += cnt[j]
                else:
                    above -= cnt[j]
                value += (below - above) * (xs[j + 1] - xs[j])
            tau[m, f] = split


@compiled
def hinge_slack_sweep(z_pos, z_neg, Cs, slack, lo, hi, w_pos, w_neg):
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

    Row weights: ``w_pos``/``w_neg`` [d, n] hold each value's row weight, aligned with
    ``z_pos``/``z_neg``; each hinge term is multiplied by its row's weight (libsvm's
    per-row C): counts become summed weights and sums weighted sums (all 1 unweighted).
    """
    d, n_pos = z_pos.shape
    n_neg = z_neg.shape[1]
    n = n_pos + n_neg
    P = np.empty(n)
    is_pos = np.empty(n, dtype=np.bool_)
    neg_vals = np.empty(n)
    wts = np.empty(n)
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
                    wts[i] = w_pos[f, a]
                    a += 1
                else:
                    P[i] = z_neg[f, b] + plus_c
                    is_pos[i] = False
                    neg_vals[i] = w_neg[f, b] * P[i]
                    wts[i] = w_neg[f, b]
                    b += 1
            total_neg = numpy_pairwise_sum(neg_vals, 0, n)
            total_w_neg = 0.0
            for i in range(n):
                if not is_pos[i]:
                    total_w_neg += wts[i]
            cnt_pos = 0.0
            cnt_neg = 0.0
            sum_pos = 0.0
            cum_neg = 0.0
            fmin = np.inf
            for i in range(n):
                if is_pos[i]:
                    cnt_pos += wts[i]
                    sum_pos += wts[i] * P[i]
                else:
                    sum_pos += 0.0
                    cnt_neg += wts[i]
                cum_neg += neg_vals[i]
                cnt_neg_after = total_w_neg - cnt_neg
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
