"""The exact one-coefficient line search of the oblique hill climbers (OC1, CART-LC).

Given every point's value ``V_j`` of the current hyperplane (left iff ``V_j <= 0``) and
its derivative ``D_j`` along one direction, :func:`line_search` finds the step ``delta``
whose partition ``{V + delta D <= 0}`` has the lowest criterion. A point with
``D_j != 0`` changes side at ``delta_j = -V_j / D_j``; the candidates are sorted once
and one sweep along them keeps the class counts of the left side, so every open
interval between distinct candidates (and both unbounded ends) is scored. This is OC1's
``linear_split`` (Murthy, Kasif & Salzberg 1994, JAIR 2, §3.1.1 eq. 3: coefficient m has
``D = x_m`` and ``delta_j = U_j - a_m``; a random jump §3.2 has ``D = x . r``) and the
delta search of CART's linear combinations (Breiman et al. 1984, §5.2.1: ``D = -(x_m +
gamma)``).

Three rules choose among the intervals of equal score (``RULE_*``) and place the step
inside the chosen interval; they are the only difference between the families:

- ``RULE_RANDOM`` (OC1): ties uniformly at random, one uniform draw per interval
  position ``0..n`` (the largest draw among the tied wins), so the stream of draws does
  not depend on the scores. Inner steps are midpoints ``c_i / 2 + c_{i+1} / 2``; beyond
  either end half the mean candidate gap (at least 1e-9 relative to the extreme
  candidate), a scale-free choice where the paper is silent.
- ``RULE_SMALLEST`` (OC1-LC): as ``RULE_RANDOM`` but the tied step of smallest
  ``|delta|`` (then the lowest position) is taken; deterministic.
- ``RULE_FIRST`` (CART-LC): partitions with an empty side are not candidates; the first
  interval of lowest score (smallest delta) wins; steps are midpoints ``(c_i +
  c_{i+1}) / 2`` and 1.0 beyond either end.
- ``RULE_THRESHOLD``: as ``RULE_FIRST`` with the axis-parallel search's midpoint
  ``c_i / 2 + c_{i+1} / 2`` (``c_i`` when that rounds up to ``c_{i+1}``); with ``D =
  -1`` it is the best threshold ``t`` of ``V <= t``, as
  :func:`obliq_cli.tree.axis_search.find_best_axis_split` finds it on one column.

Scores are lower-is-better split criteria with the formulas of
:mod:`obliq_cli.tree.impurity` (gini, twoing, entropy), evaluated from the running
counts in closed form. "Equal" means within ``SCORE_EPS`` (floating-point noise).

Everything here is compiled with numba: the climbers call it once per coefficient
from their own compiled loops, where a Python-level call would cost more than the sweep.
OC1's climb, which searches tens of thousands of lines of one node's points, gives
:func:`line_search_with` one set of scratch arrays for all of them.
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .criteria import ENTROPY, GINI, TWOING, count_score, twoing_of_spread, twoing_spread

RULE_RANDOM, RULE_SMALLEST, RULE_FIRST, RULE_THRESHOLD = 0, 1, 2, 3
"""Tie and step rules of :func:`line_search` (see the module docstring)."""

SCORE_EPS = 1e-12
"""Two criterion values closer than this are equal (floating-point noise only)."""


@compiled
def partition_score(V, y, total, code, weights=None):
    """(score, perfect) of the partition ``V <= 0``; perfect means both sides pure (an
    empty side counts as pure), the program's ``stop_splitting`` case. ``weights``:
    None (every point counts 1; numba compiles that case without the weighted branch)
    or each point's weight, ``total`` then the weighted class sums."""
    K = total.size
    left = np.zeros(K)
    if weights is not None:
        # purity from the rows each side holds: weighted sums summed in another
        # order need not cancel exactly
        sides = np.zeros((2, K), dtype=np.bool_)
        for j in range(V.size):
            if V[j] <= 0.0:
                left[y[j]] += weights[j]
                sides[0, y[j]] = True
            else:
                sides[1, y[j]] = True
        score = count_score(left, total, code)
        return score, sides[0].sum() <= 1 and sides[1].sum() <= 1
    if K == 2:
        # integer counts in registers (exact, as the float counts are): adding 1.0 to
        # the class's count in memory made each point wait for the point before
        n_le = 0
        n_le_1 = 0
        for j in range(V.size):
            if V[j] <= 0.0:
                n_le += 1
                n_le_1 += y[j]
        left[0] = n_le - n_le_1
        left[1] = n_le_1
    else:
        for j in range(V.size):
            if V[j] <= 0.0:
                left[y[j]] += 1.0
    pure_l = 0
    pure_r = 0
    for c in range(K):
        if left[c] > 0.0:
            pure_l += 1
        if total[c] - left[c] > 0.0:
            pure_r += 1
    return count_score(left, total, code), pure_l <= 1 and pure_r <= 1


@compiled
def line_search(V, D, y, total, code, rule, draws, weights=None):
    """(delta, score) minimising the criterion of ``{V + delta D <= 0}`` over delta.

    ``y`` holds class codes ``0..K-1`` with ``total`` their counts (float, [K]);
    ``draws`` holds ``n + 1`` uniform numbers for ``RULE_RANDOM`` (ignored otherwise).
    Returns (0.0, inf) when no point can move (all ``D == 0``; for ``RULE_FIRST`` also
    when every interval leaves a side empty). Points with ``D = 0`` never change side;
    partitions that exist only exactly at a candidate shared by points moving in both
    directions are not considered (``linear_split`` never picks them either).

    ``weights``: None, or each point's weight (``total`` the weighted class sums): a
    point then moves its weight between the sides, every count is a weighted sum and
    the steps beyond either end use the weighted number of candidates, so integer
    weights search as many copies of the points would (the draws of ``RULE_RANDOM``
    stay one per interval position of the points given).

    This allocates the scratch arrays and runs :func:`line_search_with`; a climber that
    searches many lines of the same points allocates them once instead.
    """
    fwork, iwork = line_search_scratch(V.size, total.size)
    return line_search_with(V, D, y, total, code, rule, draws, fwork, iwork, weights)


@compiled
def line_search_scratch(n, K):
    """The scratch arrays ``(fwork, iwork)`` of :func:`line_search_with` for up to ``n``
    points and ``K`` classes (float64 and int64; their contents do not matter)."""
    return (np.empty(3 * n + 1 + K),
            np.empty((BUCKETS_PER_KEY + 4) * n + 3, dtype=np.int64))


@compiled
def line_search_with(V, D, y, total, code, rule, draws, fwork, iwork, weights=None):
    """:func:`line_search` in the scratch arrays of :func:`line_search_scratch` (sized
    for at least ``V.size`` points and ``total.size`` classes, whatever they hold): the
    same operations in the same order, without allocating (eight arrays a search made
    before: 5-10% of a search of 40-130 points)."""
    n = V.size
    K = total.size
    cand = fwork[:n]
    c = fwork[n:2 * n]
    near_score = fwork[2 * n:3 * n + 1]
    left = fwork[3 * n + 1:3 * n + 1 + K]
    tags = iwork[:n]
    near = iwork[n:2 * n + 1]
    ctags = iwork[2 * n + 1:3 * n + 1]
    sort_ints = iwork[3 * n + 1:]
    left[:] = 0.0
    n_left = 0.0
    lo = np.inf  # the range of the keys below +inf, for the sort
    hi = -np.inf
    n_keys = 0
    w_keys = 0.0  # weighted: the finite candidates' weight, for the end steps' margin
    m_left = 0  # weighted: the rows on the left, for the rules that want no empty side
    for j in range(n):
        if D[j] != 0.0:
            key = -V[j] / D[j]
            cand[j] = key
            if key < np.inf:  # as sort_tagged finds them
                n_keys += 1
                if weights is not None:
                    w_keys += weights[j]
                if key < lo:
                    lo = key
                if key > hi:
                    hi = key
        else:
            cand[j] = np.inf
        # delta -> -inf: points with D > 0 are left, D < 0 right, D = 0 where V says.
        if D[j] > 0.0 or (D[j] == 0.0 and V[j] <= 0.0):
            if weights is None:
                left[y[j]] += 1.0
                n_left += 1.0
            else:
                left[y[j]] += weights[j]
                n_left += weights[j]
                m_left += 1
        # what the sweep needs of the point when it changes side: its class (weighted:
        # its index, which gives class and weight), and whether it joins the left side
        # (D < 0) or leaves it
        if weights is None:
            tags[j] = 2 * y[j] + (1 if D[j] < 0.0 else 0)
        else:
            tags[j] = 2 * j + (1 if D[j] < 0.0 else 0)
    sort_tagged_in(cand, tags, c, ctags, sort_ints, n_keys, lo, hi)
    # n_fin: how many finite keys the sorted ones start with. They start with the n_keys
    # keys below +inf (NaN and +inf sort after them), all finite unless the least is
    # -inf, and then none counts (as a scan to the first key not finite would find).
    n_fin = n_keys if lo > -np.inf else 0
    n_tot = float(n)
    if weights is not None:
        n_tot = 0.0
        for c_ in range(K):
            n_tot += total[c_]
    # Position p is the interval just after sorted candidate p - 1; only the ends of
    # runs of equal candidates are scored (nothing after the unmoving points).
    # Only positions within SCORE_EPS of the best so far can end within it of the final
    # best (the best only falls), so they alone are kept, in position order.
    n_near = 0
    best = np.inf
    # Two classes with gini or twoing: the counts are two scalars and the score is
    # count_score's closed form, written out (same operations, same rounding).
    two = K == 2 and code != ENTROPY
    t0 = total[0]
    n_all = 0.0 + total[0] + total[1]
    l0 = left[0]
    # More classes with gini: the sums of squared counts are kept as they change (exact
    # integers, so the score equals count_score's bit for bit); with twoing the exact
    # integer form of twoing_exact, summed only where it can come near the best;
    # entropy through count_score.
    sq_l = 0.0
    sq_r = 0.0
    for c_ in range(K):
        sq_l += left[c_] * left[c_]
        sq_r += (total[c_] - left[c_]) * (total[c_] - left[c_])
    known = -1  # twoing: the last position whose spread S was summed, and S there
    spread_known = 0.0
    two_n = 2.0 * n_tot
    four_n2 = 4.0 * n_tot * n_tot
    for p in range(n_fin + 1):
        if p > 0:
            tag = ctags[p - 1]
            change = 1.0 if tag & 1 else -1.0  # D < 0 joins the left side
            if weights is None:
                cls = tag >> 1
            else:
                m_left += 1 if tag & 1 else -1
                cls = y[tag >> 1]
                change *= weights[tag >> 1]
            n_left += change
            if two:
                # without a branch on the class, which a sweep cannot predict: adding
                # change * 0 (a signed zero) leaves the count as it is
                l0 += change * (1 - cls)
            else:
                before_l = left[cls]
                left[cls] = before_l + change
                if code == GINI:  # the sums of squares serve gini alone
                    before_r = total[cls] - before_l
                    sq_l += (2.0 * before_l + change) * change
                    sq_r += (change - 2.0 * before_r) * change
        if n_fin == 0:
            break
        if 0 < p < n_fin and c[p] == c[p - 1]:
            continue
        if rule >= RULE_FIRST:
            if weights is None:
                if not 0.0 < n_left < n_tot:
                    continue
            elif not 0 < m_left < n:  # rows, not weight: sums of fractions round
                continue
        if weights is not None and not two:
            # the weighted sums of squares would gather rounding as they run: the
            # counts' own score (the same value for integer weights)
            s = count_score(left, total, code)
        elif two:
            n_right = n_all - n_left
            safe_l = n_left if n_left > 0.0 else 1.0
            safe_r = n_right if n_right > 0.0 else 1.0
            if code == TWOING:
                gap = l0 / safe_l - (t0 - l0) / safe_r
                s = -(n_left * n_right / (n_all * n_all)) * gap * gap
            else:
                l1 = n_left - l0
                r0 = t0 - l0
                r1 = n_right - r0
                s = (n_all - ((l0 * l0 + l1 * l1) / safe_l
                              + (r0 * r0 + r1 * r1) / safe_r)) / n_all
        elif code == GINI:
            n_right = n_tot - n_left
            safe_l = n_left if n_left > 0.0 else 1.0
            safe_r = n_right if n_right > 0.0 else 1.0
            s = (n_tot - (sq_l / safe_l + sq_r / safe_r)) / n_tot
        elif code == TWOING:
            # twoing_exact in two steps: S = twoing_spread moves by at most 2 n a point,
            # so S_known + 2 n (points moved since) bounds S; a position whose bound
            # puts its score more than SCORE_EPS above the best (with a margin of 1e-9
            # for the rounding of the products) is neither near nor the best, and the
            # K-class sum is skipped (most of them, far from the best on many classes)
            if known >= 0 and 0.0 < n_left < n_tot:
                bound = spread_known + two_n * (p - known)
                if (bound * bound * (1.0 + 1e-9)
                        < -(best + SCORE_EPS) * (four_n2 * n_left * (n_tot - n_left))):
                    continue
            spread_known = twoing_spread(left, total, n_left, n_tot)
            known = p
            s = twoing_of_spread(spread_known, n_left, n_tot)
        else:
            s = count_score(left, total, code)
        if s <= best + SCORE_EPS:
            near[n_near] = p
            near_score[n_near] = s
            n_near += 1
        if s < best:
            best = s
    if rule >= RULE_FIRST:
        if not np.isfinite(best):
            return 0.0, np.inf
        for i in range(n_near):
            p = near[i]
            if near_score[i] == best:
                if rule == RULE_THRESHOLD and 0 < p < n_fin:
                    mid = c[p - 1] / 2.0 + c[p] / 2.0
                    return (c[p - 1] if mid >= c[p] else mid), best
                if p == 0:
                    return c[0] - 1.0, best
                if p == n_fin:
                    return c[n_fin - 1] + 1.0, best
                return (c[p - 1] + c[p]) / 2, best
    first = c[0] if n_fin > 0 else 0.0
    last = c[n_fin - 1] if n_fin > 0 else 0.0
    spread = last - first
    n_gaps = n_fin - 1
    if weights is not None:
        n_gaps = w_keys - 1.0 if n_fin > 0 else -1.0
    margin = 0.5 * spread / max(n_gaps, 1) if spread > 0 else 0.5
    margin = max(margin, 1e-9 * max(1.0, max(abs(first), abs(last))))
    if not best < np.inf:  # nothing scored: every position ties
        n_near = n + 1
        for p in range(n + 1):
            near[p] = p
            near_score[p] = np.inf
    bound = best + SCORE_EPS
    pick = -1
    pick_key = 0.0
    pick_score = np.inf
    for i in range(n_near):
        if not near_score[i] <= bound:
            continue
        p = near[i]
        if rule == RULE_RANDOM:
            key = -draws[p]
        else:
            key = abs(step_at(c, p, n, n_fin, first, last, margin))
        if pick < 0 or key < pick_key:
            pick, pick_key, pick_score = p, key, near_score[i]
    if not np.isfinite(best):
        return 0.0, pick_score
    return step_at(c, pick, n, n_fin, first, last, margin), pick_score


RADIX_MIN_ROWS = 600
"""From this many keys on, :func:`argsort_floats` uses the radix sort (measured: numba's
quicksort is faster below about 600 keys, the radix sort 2x faster at 1000 and 5-9x
at 3000-4000, where numba's quicksort degrades). The line search sorts with the bucket
sort of :func:`sort_tagged` at every size (4x faster than numba's quicksort on OC1's
candidates of 550 rows of pima, 2x on 60 rows; on OC1's candidates of 2,000 rows of
magic faster than the radix sort by a third, which made the whole OC1 fit 18% faster),
which leaves only sets it cannot spread to :func:`argsort_floats`."""

BUCKETS_PER_KEY = 3
"""The bucket sort's buckets per key: with more, fewer keys share a bucket and fewer
move in its insertion pass, with more buckets to count (measured on OC1's candidates on
pima: 3 or 4 are 8% faster than 2, 2 is 15% faster than 1)."""

BUCKET_MIN_ROWS = 16
"""Below this many keys :func:`sort_tagged` leaves them to :func:`argsort_floats`
(numba's quicksort at that size)."""

_BUCKET_MAX = 32
"""The bucket sort's insertion pass costs the sum of its buckets' squared sizes; a
bucket into which more than this many keys crowd (a few outliers stretching the range:
OC1's candidates ``-V_j / x_jm`` where some ``x_jm`` is near 0) is bucket-sorted again
over its own range (:func:`_sort_segment`)."""


@compiled
def sort_tagged(keys, tags, c, ctags, ints):
    """Sort the float64 ``keys`` (+inf last; no NaN) ascending into ``c[:n]``, and
    their int64 ``tags`` in the same order into ``ctags[:n]``, with ``ints`` (int64, at
    least ``(BUCKETS_PER_KEY + 1) n + 2``) as scratch. The line search tags a candidate
    with what its sweep needs of the point (its class, its direction), which it then
    reads in order instead of through an index.

    A bucket sort. Every finite key goes to one of ``m`` buckets (``BUCKETS_PER_KEY``
    per finite key) by ``floor((key - lo) * m / (hi - lo))``, which never decreases as
    the key grows (each operation rounds monotonically), so the buckets are in order;
    one scatter writes keys and tags bucket by bucket, and an insertion pass orders each
    bucket. OC1's candidates spread evenly enough that a bucket holds a few keys; a
    bucket holding more than ``_BUCKET_MAX`` (outliers stretched the range) is sorted
    over its own range first (:func:`_sort_segment`), and with fewer than
    ``BUCKET_MIN_ROWS`` keys or a range that is not finite :func:`argsort_floats` sorts
    them. The order within runs of equal keys differs between the sorts; the sweep
    scores only the ends of runs, so the search does not depend on it (the counts it
    sums are integers: exact in any order).
    """
    lo = np.inf
    hi = -np.inf
    n_fin = 0
    for j in range(keys.size):
        k = keys[j]
        if k < np.inf:
            n_fin += 1
            if k < lo:
                lo = k
            if k > hi:
                hi = k
    sort_tagged_in(keys, tags, c, ctags, ints, n_fin, lo, hi)


@compiled
def sort_tagged_in(keys, tags, c, ctags, ints, n_fin, lo, hi):
    """:func:`sort_tagged` given the number ``n_fin`` of keys below +inf and their
    least and greatest, ``lo`` and ``hi``, which the line search finds while it computes
    the keys (a pass over them less)."""
    n = keys.size
    m = BUCKETS_PER_KEY * n_fin
    scale = m / (hi - lo) if hi > lo else 0.0
    if n < BUCKET_MIN_ROWS or not (lo > -np.inf and 0.0 < scale < np.inf):
        _gather(keys, tags, argsort_floats(keys), c, ctags)
        return
    start = ints[:m + 2]  # bucket m holds the +inf keys
    bucket = ints[m + 2:m + 2 + n]
    start[:] = 0
    for j in range(n):
        b = m
        if keys[j] < np.inf:
            b = min(int((keys[j] - lo) * scale), m - 1)
        bucket[j] = b
        start[b + 1] += 1
    # the running sum stays in a register: adding each count to the start just
    # written made every step wait for the store before it (a third of the sort)
    at = 0
    crowded = False
    for b in range(m + 1):
        count = start[b + 1]
        if count > _BUCKET_MAX and b < m:
            crowded = True
        at += count
        start[b + 1] = at
    for j in range(n):
        b = bucket[j]
        p = start[b]
        c[p] = keys[j]
        ctags[p] = tags[j]
        start[b] = p + 1
    if crowded:
        # start[b] is now the end of bucket b: a bucket holding more than
        # _BUCKET_MAX keys (a few outliers stretched the range) is sorted on its own
        begin = 0
        for b in range(m):
            end = start[b]
            if end - begin > _BUCKET_MAX:
                _sort_segment(c, ctags, begin, end)
            begin = end
    # Each key moves back only within its bucket: the buckets are in order.
    _insertion_pass(c, ctags, 0, n_fin)


@compiled
def _insertion_pass(c, ctags, begin, end):
    """Insertion-sort ``c[begin:end]`` and its tags ``ctags`` alike (fast when every
    key is near its place: the buckets of :func:`sort_tagged_in`)."""
    for i in range(begin + 1, end):
        key = c[i]
        if c[i - 1] <= key:
            continue
        tag = ctags[i]
        h = i - 1
        while h >= begin and c[h] > key:
            c[h + 1] = c[h]
            ctags[h + 1] = ctags[h]
            h -= 1
        c[h + 1] = key
        ctags[h + 1] = tag


@compiled
def _sort_segment(c, ctags, begin, end):
    """Sort the finite keys ``c[begin:end]`` and their tags in place: one more bucket
    pass over the segment's own range (``BUCKETS_PER_KEY`` buckets a key) and an
    insertion pass, so a bulk of keys that outliers crowded into one bucket spreads
    again; a bucket still holding more than ``_BUCKET_MAX`` keys leaves the segment to
    :func:`argsort_floats`."""
    size = end - begin
    lo = np.inf
    hi = -np.inf
    for i in range(begin, end):
        if c[i] < lo:
            lo = c[i]
        if c[i] > hi:
            hi = c[i]
    if not hi > lo:
        return  # all equal
    keys = c[begin:end].copy()
    tags = ctags[begin:end].copy()
    m = BUCKETS_PER_KEY * size
    scale = m / (hi - lo)
    if not scale < np.inf:
        _sort_by_order(keys, tags, argsort_floats(keys), c, ctags, begin)
        return
    bucket = np.empty(size, dtype=np.int64)
    start = np.zeros(m + 1, dtype=np.int64)
    for j in range(size):
        b = min(int((keys[j] - lo) * scale), m - 1)
        bucket[j] = b
        start[b + 1] += 1
    at = 0
    for b in range(m):
        count = start[b + 1]
        if count > _BUCKET_MAX:
            _sort_by_order(keys, tags, argsort_floats(keys), c, ctags, begin)
            return
        at += count
        start[b + 1] = at
    for j in range(size):
        b = bucket[j]
        p = begin + start[b]
        c[p] = keys[j]
        ctags[p] = tags[j]
        start[b] += 1
    _insertion_pass(c, ctags, begin, end)


@compiled
def _sort_by_order(keys, tags, order, c, ctags, begin):
    """``c[begin:begin + n] = keys[order]`` and the tags alike."""
    for i in range(keys.size):
        c[begin + i] = keys[order[i]]
        ctags[begin + i] = tags[order[i]]


@compiled
def _gather(keys, tags, order, c, ctags):
    """``c[:n] = keys[order]``, ``ctags[:n] = tags[order]``: the fallbacks of
    :func:`sort_tagged`, whose sorts return an order."""
    for i in range(keys.size):
        c[i] = keys[order[i]]
        ctags[i] = tags[order[i]]

_RADIX_BITS = 11


@compiled
def argsort_floats(keys):
    """An order sorting the float64 ``keys`` ascending (+inf last; no NaN).

    Small arrays use numba's quicksort. Large ones use a least-significant-digit radix
    sort that moves one 64-bit word per key: the key's bit pattern mapped to an unsigned
    integer of the same order (sign bit set for positives, all bits flipped for
    negatives), its low bits replaced by the key's index. The radix passes (11 bits
    each, a pass skipped when every key has the same digit) sort by the remaining high
    bits; keys that agree in all of them (relative differences below about 2^-36) keep
    their index order, and a final insertion pass orders them by their exact values,
    which moves nothing unless such near-equal keys are out of order.

    The result is a true ascending order of ``keys``; the order within runs of equal
    keys is unspecified (the sweep scores only the ends of runs, so it does not matter).
    """
    n = keys.size
    if n < RADIX_MIN_ROWS:
        return np.argsort(keys)
    idx_bits = 1
    while (1 << idx_bits) < n:
        idx_bits += 1
    low = np.uint64(idx_bits)
    n_passes = (64 - idx_bits + _RADIX_BITS - 1) // _RADIX_BITS
    bits = keys.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    idx_mask = (np.uint64(1) << low) - np.uint64(1)
    packed = np.empty(n, dtype=np.uint64)
    for i in range(n):
        b = bits[i]
        ordered = ~b if b & sign else b | sign
        packed[i] = ((ordered >> low) << low) | np.uint64(i)
    n_buckets = 1 << _RADIX_BITS
    mask = np.uint64(n_buckets - 1)
    hist = np.zeros((n_passes, n_buckets), dtype=np.int64)
    for i in range(n):
        b = packed[i]
        for p in range(n_passes):
            hist[p, (b >> np.uint64(idx_bits + p * _RADIX_BITS)) & mask] += 1
    out = np.empty(n, dtype=np.uint64)
    for p in range(n_passes):
        shift = np.uint64(idx_bits + p * _RADIX_BITS)
        start = hist[p]
        if start[(packed[0] >> shift) & mask] == n:
            continue
        running = 0
        for b in range(n_buckets):
            count = start[b]
            start[b] = running
            running += count
        for i in range(n):
            word = packed[i]
            digit = (word >> shift) & mask
            pos = start[digit]
            start[digit] = pos + 1
            out[pos] = word
        packed, out = out, packed
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = np.int64(packed[i] & idx_mask)
    for i in range(1, n):
        j = order[i]
        key = keys[j]
        h = i - 1
        while h >= 0 and keys[order[h]] > key:
            order[h + 1] = order[h]
            h -= 1
        order[h + 1] = j
    return order


@compiled
def step_at(c, p, n, n_fin, first, last, margin):
    """The OC1 step of interval position ``p`` (see the module docstring)."""
    if p == 0:
        return first - margin
    if p >= n_fin:
        return last + margin
    return c[p - 1] / 2.0 + c[p] / 2.0


def class_totals(y, n_classes, weights=None):
    """Float class counts, the ``total`` of the kernels (weighted sums with ``weights``)."""
    return np.bincount(y, weights=weights, minlength=n_classes).astype(np.float64)
