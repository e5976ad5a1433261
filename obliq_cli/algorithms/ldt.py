"""Univariate linear discriminant tree (LDT), Yildiz & Alpaydin 2005, "Linear discriminant
trees", IJPRAI 19 (the univariate variant the UMT paper compares with, its ref. [6]).

Split of one feature for a given two-group partition of the classes: a Gaussian is
fitted to the feature's values in each group (mean, variance, prior = group share of the
node's rows) and the threshold is where the two prior-weighted densities are equal,
``p_L N(x; m_L, s_L^2) = p_R N(x; m_R, s_R^2)``, i.e. the root of

    x^2 (1/s_L^2 - 1/s_R^2)/2 - x (m_L/s_L^2 - m_R/s_R^2)
        + (m_L^2/s_L^2 - m_R^2/s_R^2)/2 - log(p_L s_R / (p_R s_L)) = 0

that lies between the two means (equal variances make it linear:
x = (m_L + m_R)/2 + s^2 log(p_R/p_L) / (m_L - m_R)). This follows the authors' code
(ISELL ``univariatetree.c: find_split_for_partition`` ->
``solve_for_ldt_second_order_equation``, docs/reference-programs.md). Where the code reading is
silent: when no root lies between the means, the root nearest their midpoint is used,
and with no real root (or equal means) the midpoint of the means; a group with zero
variance is given the other group's variance (both zero: the midpoint).

Each (feature, partition) is scored by information gain of ``x <= t`` (ISELL
``find_gain_for_partition``; it minimises the weighted child entropy, which is the same).

Partition of K > 2 classes (ISELL ``decisiontree.c: get_initial_partition`` and
``find_best_ldt_feature``): one random assignment of the node's classes to the two sides
is drawn per node from the finder's rng (the code's ``myrand() % 2``; if every class
lands on one side, one class drawn at random is moved); then, per feature, starting from
that partition, every single-class flip is evaluated, the best one is taken if it
improves the gain, and passes repeat while they improve. Features are compared by the
gain of their final partition; ties keep the first feature. Two classes need no search.
A node whose best split gains no information (to 1e-12 bits) is a leaf; the code
reading shows no such rule, it is added so that growth stops on useless splits.

Row weights (``sample_weight``): the paper and ISELL's code count rows; a weight is
read as a number of copies of the row (as C4.5 reads its fractional cases), so each
group's prior is its share of the node's weight, its mean and variance the weighted
(maximum-likelihood, divided by the weight) ones, and the gain's class counts weighted
sums. The per-node draw of the first class grouping does not depend on the rows, so
integer weights grow the duplicated rows' tree up to the rounding of the weighted sums.

Cost with many classes: every pass of a column's climb scores its K single-class flips,
each from K class sums and K class counts (and K logarithms of the child entropy), so a
26-class node does about 26^2 such terms per column per pass where two classes need one
partition. That work is the search's; what was removed is per-class and per-column
bookkeeping: the columns of a node climb together (one vectorised evaluation per pass),
the class sums of a partition are one compiled loop (``kernels.ldt.group_sums``), and the
class counts at a threshold are one row of a per-column table of counts at or below each
distinct value, placed by one compiled binary search (``kernels.ldt.count_rows_at``).
"""

from __future__ import annotations

import numpy as np

from ..invariances import ROUNDING, NotKept, axis_parallel
from ..kernels.ldt import count_rows_at, group_sums
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import entropy_of_counts, entropy_split
from .base import TreeClassifier
from .unweighted import GROWN_UNTIL_PURE


def gaussian_boundary(m1, v1, p1, m2, v2, p2) -> np.ndarray:
    """Where p1 N(m1, v1) = p2 N(m2, v2), between the means (see the module docstring).

    All arguments broadcast; variances v are squared standard deviations.
    """
    m1, v1, p1, m2, v2, p2 = np.broadcast_arrays(*map(np.asarray, (m1, v1, p1, m2, v2, p2)))
    m1, v1, m2, v2 = (a.astype(np.float64, copy=False) for a in (m1, v1, m2, v2))
    v1 = np.where(v1 > 0, v1, v2)
    v2 = np.where(v2 > 0, v2, v1)
    mid = (m1 + m2) / 2.0
    ok = (v1 > 0) & (v2 > 0) & (m1 != m2) & (p1 > 0) & (p2 > 0)
    v1s = np.where(ok, v1, 1.0)
    v2s = np.where(ok, v2, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_term = np.log(np.where(ok, p1, 1.0) * np.sqrt(v2s)
                          / (np.where(ok, p2, 1.0) * np.sqrt(v1s)))
        a = (1.0 / v1s - 1.0 / v2s) / 2.0
        b = -(m1 / v1s - m2 / v2s)
        c = (m1 ** 2 / v1s - m2 ** 2 / v2s) / 2.0 - log_term
        scale = np.maximum(1.0 / v1s, 1.0 / v2s)
        linear = np.abs(a) <= 1e-12 * scale
        x_lin = -c / np.where(b != 0, b, 1.0)
        disc = b * b - 4 * a * c
        sq = np.sqrt(np.where(disc >= 0, disc, 0.0))
        a_safe = np.where(linear, 1.0, a)
        r1 = (-b - sq) / (2 * a_safe)
        r2 = (-b + sq) / (2 * a_safe)
    lo, hi = np.minimum(m1, m2), np.maximum(m1, m2)
    in1 = (r1 >= lo) & (r1 <= hi)
    in2 = (r2 >= lo) & (r2 <= hi)
    nearest = np.where(np.abs(r1 - mid) <= np.abs(r2 - mid), r1, r2)
    quad = np.where(in1 & ~in2, r1, np.where(in2 & ~in1, r2, nearest))
    quad = np.where(disc >= 0, quad, mid)
    out = np.where(linear, x_lin, quad)
    out = np.where(ok & np.isfinite(out), out, mid)
    return out


class _NodeStats:
    """Per-class sufficient statistics of every column of a node's ``X`` [n, F], and
    the class counts at or below each of a column's distinct values, so any (column,
    partition) pair's Gaussians and threshold counts cost O(K) plus one binary search.

    All columns of a node are scored together (``hill_climb_columns``): one pass of
    every column's climb is one vectorised evaluation, not one per column. Every value
    is computed by the same operations as one column alone would be (the row sums in
    class order by ``kernels.ldt.group_sums``, a fixed-order loop), so batching changes no
    result."""

    def __init__(self, X, y, k, w=None):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        n, n_cols = X.shape
        self.k = k
        if w is None:
            self.n_c = np.bincount(y, minlength=k).astype(np.float64)
            self.s1 = np.stack([np.bincount(y, weights=X[:, f], minlength=k)
                                for f in range(n_cols)])
            self.s2 = np.stack([np.bincount(y, weights=X[:, f] * X[:, f], minlength=k)
                                for f in range(n_cols)])
        else:
            self.n_c = np.bincount(y, weights=w, minlength=k)
            self.s1 = np.stack([np.bincount(y, weights=w * X[:, f], minlength=k)
                                for f in range(n_cols)])
            self.s2 = np.stack([np.bincount(y, weights=w * X[:, f] * X[:, f], minlength=k)
                                for f in range(n_cols)])
        # every column's distinct values, ascending, one column after another
        # (column f's from starts[f]), and the class counts at or below each in a table
        # of the same layout with a row of zeros before each column's block
        if w is None:
            self.values, self.starts, self.counts = _counts_at_or_below_columns(X, y, k)
        else:
            per_column = [_counts_at_or_below(X[:, f], y, k, w) for f in range(n_cols)]
            self.values = np.concatenate([v for v, _ in per_column])
            self.starts = np.r_[0, np.cumsum([v.size for v, _ in per_column])]
            self.counts = np.concatenate([c for _, c in per_column])

    @property
    def n_columns(self) -> int:
        return self.starts.size - 1

    def thresholds(self, parts: np.ndarray, columns=None) -> np.ndarray:
        """Boundary for every partition row of ``parts`` [m, K] (True = group L) on the
        column of the same row of ``columns`` [m] (default: all on column 0)."""
        columns = self._columns(parts, columns)
        return self._thresholds(self._sums(parts, columns))

    def _sums(self, parts, columns):
        # class sums added in class order (kernels/ldt.py), not in the CPU's BLAS order
        return group_sums(np.ascontiguousarray(parts, dtype=np.bool_), columns, self.n_c,
                          self.s1, self.s2)

    @staticmethod
    def _thresholds(sums):
        nL, nR, s1L, s1R, s2L, s2R = sums
        mL = s1L / np.where(nL > 0, nL, 1)
        mR = s1R / np.where(nR > 0, nR, 1)
        vL = np.maximum(s2L / np.where(nL > 0, nL, 1) - mL ** 2, 0.0)
        vR = np.maximum(s2R / np.where(nR > 0, nR, 1) - mR ** 2, 0.0)
        n = nL + nR
        return gaussian_boundary(mL, vL, nL / n, mR, vR, nR / n)

    def score(self, parts: np.ndarray, columns=None):
        """(thresholds, weighted child entropy) for every partition row (on its column
        of ``columns``, as in :meth:`thresholds`); lower is better, invalid partitions
        (an empty group or an empty side) score inf."""
        columns = self._columns(parts, columns)
        sums = self._sums(parts, columns)
        t = self._thresholds(sums)
        left = self.counts[count_rows_at(self.values, self.starts, columns, t)]
        right = self.n_c[None, :] - left
        sc = entropy_split(left, right)
        nl = left.sum(axis=1)
        groups_ok = (sums[0] > 0) & (sums[1] > 0)
        ok = groups_ok & (nl > 0) & (nl < self.n_c.sum()) & np.isfinite(t)
        return t, np.where(ok, sc, np.inf)

    @staticmethod
    def _columns(parts, columns):
        if columns is None:
            return np.zeros(len(parts), dtype=np.int64)
        return np.asarray(columns, dtype=np.int64)


def _counts_at_or_below(x, y, k, w=None):
    """The distinct values of ``x`` ascending [U], and the class counts [U + 1, K] of
    the rows at or below each (row 0: none); with ``w`` the summed weights, added one
    row at a time in ascending (then row) order, as a running sum over one class's
    sorted rows adds them."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    ends = np.flatnonzero(np.r_[xs[1:] > xs[:-1], True])  # last row of each run
    counts = np.zeros((ends.size + 1, k))
    if w is None:
        run = np.zeros(xs.size, dtype=np.int64)
        np.cumsum(xs[1:] > xs[:-1], out=run[1:])
        per_run = np.bincount(run * k + y[order], minlength=ends.size * k)
        np.cumsum(per_run.reshape(ends.size, k), axis=0, out=counts[1:])
    else:
        running = np.zeros((xs.size, k))
        running[np.arange(xs.size), y[order]] = w[order]
        counts[1:] = np.cumsum(running, axis=0)[ends]
    return xs[ends], counts


def _counts_at_or_below_columns(X, y, k):
    """:func:`_counts_at_or_below` of every column of ``X`` [n, F] without weights, with
    one sort and one count for all columns: (values, starts, counts) in the layout of
    ``kernels.ldt.count_rows_at``."""
    n, n_cols = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    xs = np.take_along_axis(X, order, axis=0)
    new_value = xs[1:] > xs[:-1]
    run = np.zeros((n, n_cols), dtype=np.int64)
    np.cumsum(new_value, axis=0, out=run[1:])
    n_runs = run[-1] + 1
    starts = np.r_[0, np.cumsum(n_runs)]
    # column f's block of counts: rows starts[f] + f (zeros) to starts[f + 1] + f
    cell = ((run + (starts[:-1] + np.arange(n_cols) + 1)) * k + y[order]).ravel()
    counts = np.cumsum(np.bincount(cell, minlength=int(starts[-1] + n_cols) * k)
                       .reshape(-1, k), axis=0)
    # each block counted from its own row of zeros (integers: exact)
    counts -= np.repeat(counts[starts[:-1] + np.arange(n_cols)], n_runs + 1, axis=0)
    last = np.ones((n, n_cols), dtype=bool)  # the last row of each run of equal values
    last[:-1] = new_value
    return xs.T[last.T], starts, counts.astype(np.float64)


class _FeatureStats(_NodeStats):
    """:class:`_NodeStats` of one feature ``x`` [n]."""


def hill_climb_columns(stats: _NodeStats, start: np.ndarray, present: np.ndarray):
    """:func:`hill_climb` of every column of ``stats`` from the same ``start``, all
    columns' passes evaluated together; returns (partitions [F, K], thresholds [F],
    scores [F], traces), each column's exactly as its own climb gives them."""
    n_cols = stats.n_columns
    current = np.repeat(start[None, :], n_cols, axis=0)
    best_t, best_s = stats.score(current, np.arange(n_cols))
    best_t, best_s = best_t.copy(), best_s.copy()
    traces = [[float(s)] for s in best_s]
    flippable = np.flatnonzero(present)
    m = flippable.size
    climbing = np.arange(n_cols)
    while climbing.size:  # a loop per improving pass (at most 2^K, in practice a few)
        cands = np.repeat(current[climbing], m, axis=0)
        cands[np.arange(cands.shape[0]), np.tile(flippable, climbing.size)] ^= True
        t, s = stats.score(cands, np.repeat(climbing, m))
        t, s = t.reshape(-1, m), s.reshape(-1, m)
        j = np.argmin(s, axis=1)
        pick = np.arange(climbing.size)
        improved = s[pick, j] < best_s[climbing] - 1e-12
        pick, j = pick[improved], j[improved]
        climbing = climbing[improved]
        current[climbing] = cands.reshape(-1, m, cands.shape[1])[pick, j]
        best_t[climbing] = t[pick, j]
        best_s[climbing] = s[pick, j]
        for f in climbing:
            traces[f].append(float(best_s[f]))
    return current, best_t, best_s, traces


def hill_climb(stats: _NodeStats, start: np.ndarray, present: np.ndarray):
    """Best-flip hill-climbing from ``start`` (bool [K]) on column 0 of ``stats``;
    returns (partition, threshold, score, trace of scores), the trace never
    increasing."""
    parts, t, s, traces = hill_climb_columns(stats, start, present)
    return parts[0], float(t[0]), float(s[0]), traces[0]


def initial_partition(present: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each present class on a random side (``myrand() % 2``); both sides non-empty."""
    k = present.size
    side = rng.integers(0, 2, size=k).astype(bool)
    idx = np.flatnonzero(present)
    if side[idx].all() or not side[idx].any():
        side[rng.choice(idx)] ^= True
    return side & present


@register_algorithm(
    "ldt", "Univariate linear discriminant tree (Yildiz & Alpaydin 2005): Gaussian "
    "boundary per feature, information gain, hill-climbed class grouping",
    # the per-class sums of a feature are taken in row order; the Gaussian boundary
    # scales exactly with a power of two
    invariances=axis_parallel(
        rows=ROUNDING,
        classes3=NotKept("the random first grouping of the classes is drawn class by "
                         "class, and entropy's sum over classes rounds in class order")),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class LDTClassifier(TreeClassifier):
    """Univariate LDT (module docstring).

    Parameters
    ----------
    min_samples_split, max_depth : builder stopping rules.
    random_state : seed or Generator for the initial class partitions (K > 2).
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight in the priors, moments and gains (``base.fit_weights``).
    """

    def __init__(self, min_samples_split: int = 2, max_depth: int | None = None,
                 random_state=None, class_weight=None):
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return LDTSplitFinder()


class LDTSplitFinder(SplitFinder):
    """The univariate LDT split at one node (module docstring)."""

    def split(self, node: Node) -> Split | None:
        n_classes, counts = self.n_classes, node.counts
        present = counts > 0
        if present.sum() < 2:
            return None
        if present.sum() == 2:
            start = np.zeros(n_classes, dtype=bool)
            start[np.flatnonzero(present)[0]] = True
            climb = False
        else:
            start = initial_partition(present, self.rng)
            climb = True
        X, y = self.node_data(node)
        # constant columns cannot split; all the others are searched together
        columns = np.flatnonzero(X.max(axis=0) > X.min(axis=0))
        if not columns.size:
            return None
        stats = _NodeStats(X[:, columns], y, n_classes, node.weights)
        if climb:
            _, t, s, _ = hill_climb_columns(stats, start, present)
        else:
            t, s = stats.score(np.repeat(start[None, :], columns.size, axis=0),
                               np.arange(columns.size))
        # the lowest finite score, the first column on ties
        s = np.where(np.isfinite(s), s, np.inf)
        j = int(np.argmin(s))
        best = (int(columns[j]), float(t[j]), float(s[j])) if np.isfinite(s[j]) else None
        if best is None:
            return None
        base = float(entropy_of_counts(counts))
        if not base - best[2] > 1e-12:  # no information gained
            return None
        return Split(threshold=best[1], feature=best[0], score=best[2])
