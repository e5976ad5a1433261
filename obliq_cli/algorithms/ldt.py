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
"""

from __future__ import annotations

import numpy as np

from ..invariances import ROUNDING, NotKept, axis_parallel
from ..kernels import linalg
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
    m1, v1, m2, v2 = (a.astype(np.float64) for a in (m1, v1, m2, v2))
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


class _FeatureStats:
    """Per-class sufficient statistics of one feature and its sorted values per class,
    so any partition's Gaussians and any threshold's class counts cost O(K log n)."""

    def __init__(self, x, y, k, w=None):
        self.k = k
        if w is None:
            self.n_c = np.bincount(y, minlength=k).astype(np.float64)
            self.s1 = np.bincount(y, weights=x, minlength=k)
            self.s2 = np.bincount(y, weights=x * x, minlength=k)
            self.sorted = [np.sort(x[y == c]) for c in range(k)]
            self.cum_w = None
            return
        # row weights: every count, sum and sum of squares a weighted one, and the
        # class count left of a threshold the summed weight of the rows there
        self.n_c = np.bincount(y, weights=w, minlength=k)
        self.s1 = np.bincount(y, weights=w * x, minlength=k)
        self.s2 = np.bincount(y, weights=w * x * x, minlength=k)
        order = [np.argsort(x[y == c], kind="stable") for c in range(k)]
        self.sorted = [x[y == c][o] for c, o in enumerate(order)]
        self.cum_w = [np.concatenate([[0.0], np.cumsum(w[y == c][o])])
                      for c, o in enumerate(order)]

    def thresholds(self, parts: np.ndarray) -> np.ndarray:
        """Boundary for every partition row of ``parts`` [m, K] (True = group L)."""
        L = parts.astype(np.float64)
        R = 1.0 - L
        nL, nR = L @ self.n_c, R @ self.n_c
        # class sums added in class order (kernels/linalg.py), not in the CPU's BLAS order
        mL = linalg.matvec(L, self.s1) / np.where(nL > 0, nL, 1)
        mR = linalg.matvec(R, self.s1) / np.where(nR > 0, nR, 1)
        vL = np.maximum(linalg.matvec(L, self.s2) / np.where(nL > 0, nL, 1) - mL ** 2, 0.0)
        vR = np.maximum(linalg.matvec(R, self.s2) / np.where(nR > 0, nR, 1) - mR ** 2, 0.0)
        n = nL + nR
        return gaussian_boundary(mL, vL, nL / n, mR, vR, nR / n)

    def score(self, parts: np.ndarray):
        """(thresholds, weighted child entropy) for every partition row; lower is better,
        invalid partitions (an empty group or an empty side) score inf."""
        t = self.thresholds(parts)
        left = np.stack([np.searchsorted(s, t, side="right") for s in self.sorted], axis=1)
        if self.cum_w is None:
            left = left.astype(np.float64)
        else:
            left = np.stack([cw[left[:, c]] for c, cw in enumerate(self.cum_w)], axis=1)
        right = self.n_c[None, :] - left
        sc = entropy_split(left, right)
        nl = left.sum(axis=1)
        groups_ok = (parts @ self.n_c > 0) & ((~parts) @ self.n_c > 0)
        ok = groups_ok & (nl > 0) & (nl < self.n_c.sum()) & np.isfinite(t)
        return t, np.where(ok, sc, np.inf)


def hill_climb(stats: _FeatureStats, start: np.ndarray, present: np.ndarray):
    """Best-flip hill-climbing from ``start`` (bool [K]); returns (partition, threshold,
    score, trace of scores), the trace never increasing."""
    current = start.copy()
    t, s = stats.score(current[None, :])
    best_t, best_s = float(t[0]), float(s[0])
    trace = [best_s]
    flippable = np.flatnonzero(present)
    while True:  # a loop per improving pass (at most 2^K, in practice a few)
        cands = np.repeat(current[None, :], flippable.size, axis=0)
        cands[np.arange(flippable.size), flippable] ^= True
        t, s = stats.score(cands)
        j = int(np.argmin(s))
        if not s[j] < best_s - 1e-12:
            break
        current, best_t, best_s = cands[j], float(t[j]), float(s[j])
        trace.append(best_s)
    return current, best_t, best_s, trace


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
        best = None
        for j in range(X.shape[1]):  # a loop per feature
            col = X[:, j]
            if not col.max() > col.min():
                continue
            stats = _FeatureStats(col, y, n_classes, node.weights)
            if climb:
                _, t, s, _ = hill_climb(stats, start, present)
            else:
                tt, ss = stats.score(start[None, :])
                t, s = float(tt[0]), float(ss[0])
            if np.isfinite(s) and (best is None or s < best[2]):
                best = (j, t, s)
        if best is None:
            return None
        base = float(entropy_of_counts(counts))
        if not base - best[2] > 1e-12:  # no information gained
            return None
        return Split(threshold=best[1], feature=best[0], score=best[2])
