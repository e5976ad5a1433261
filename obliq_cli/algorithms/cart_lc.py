"""CART with linear-combination splits (CART-LC), Breiman, Friedman, Olshen & Stone 1984, §5.2.

At each node the features are normalised by the node's median and interquartile range
(by their range where the interquartile range is 0, so that no column keeps its units).
The search starts from the best axis-parallel split v = beta'z <= c and cycles through
the features: for feature i and each gamma in {-0.25, 0, 0.25} it finds the best split of
the form v - delta (z_i + gamma) <= c, an exact one-dimensional search over delta, and
takes the best improvement (beta_i -= delta, c += delta gamma). The threshold c is then
searched again. Cycles stop when the criterion improves by less than ``tol`` or after
``max_cycles``. Backward elimination (§5.2.2) follows: for each feature left in the
combination, the increase in impurity when it is dropped (and c searched again) is
computed; the least important feature is dropped while its increase is below ``beta``
times the largest one, and the search is rerun on the remaining features.

The delta search is the line search shared with OC1 (``obliq_cli.kernels.line_search``):
with d_n = z_in + gamma and u_n = (v_n - c) / d_n, a row goes left when delta >= u_n
(d_n > 0) or delta <= u_n (d_n < 0); sorting u once and sweeping the class counts along
it scores every candidate. The coefficient cycle around it is compiled too. The OC1
package's CART-LC mode lacks the normalisation and the elimination
(docs/reference-programs.md), which is why OC1-LC is a different algorithm.
"""

from __future__ import annotations

import numpy as np

from ..invariances import COEFFICIENT_ORDER, NotKept, axis_parallel
from ..kernels import linalg
from ..kernels.cart_lc import best_threshold, coefficient_pass
from ..kernels.line_search import (
    RULE_FIRST,
    SCORE_EPS,
    class_totals,
    line_search,
)
from ..parameters import MAX_REAL, Integral, Interval, Real
from ..registry import register_algorithm
from ..tree.axis_first import best_axis_split, strictly_better
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import line_search_code, split_criterion
from .base import TreeClassifier
from .cart import CRITERION
from .unweighted import GROWN_UNTIL_PURE


def best_shift(slack: np.ndarray, d: np.ndarray, onehot: np.ndarray, criterion):
    """(delta, score) minimising the criterion of {slack - delta d <= 0} over delta.

    ``slack`` = v - c per row, ``d`` = z_i + gamma, ``onehot`` rows x classes. The
    shared line search with ``V = slack``, ``D = -d`` and CART-LC's rule (both sides
    non-empty, first best interval, 1.0 beyond either end).
    """
    y = np.ascontiguousarray(np.argmax(onehot, axis=1), dtype=np.int64)
    delta, score = line_search(np.ascontiguousarray(slack, dtype=np.float64),
                               -np.asarray(d, dtype=np.float64), y,
                               np.asarray(onehot, dtype=np.float64).sum(axis=0),
                               line_search_code(criterion), RULE_FIRST, np.empty(0))
    return float(delta), float(score)


def _order_values(xs, cum, positions):
    """Per column, the values at 0-based ``positions`` of the sorted rows counted with
    their weights: ``xs`` [n, d] the sorted columns, ``cum`` [n, d] their cumulative
    weights (the row at position i is the first whose cumulative weight exceeds i)."""
    n, d = xs.shape
    out = np.empty((len(positions), d))
    for f in range(d):  # a loop over columns
        at = np.searchsorted(cum[:, f], positions, side="right")
        out[:, f] = xs[np.minimum(at, n - 1), f]
    return out


def weighted_median_quartiles(X, w):
    """(median, q75, q25) of every column of ``X``, each row counted ``w`` times.

    numpy's ``median`` and linear ``percentile`` (Hyndman & Fan's type 7) of the rows
    repeated by their weights, operation for operation, so integer weights give the
    duplicated rows' normalisation to the bit: the order statistics at the virtual
    positions ``W q + (1 - q) - 1`` of the total weight W, interpolated as numpy's
    ``_lerp`` does; the median the mean of the two middle ones."""
    order = np.argsort(X, axis=0, kind="stable")
    xs = np.take_along_axis(X, order, axis=0)
    cum = np.cumsum(w[order], axis=0)
    W = float(cum[-1, 0])
    middle = (W - 1.0) / 2.0
    lo_hi = _order_values(xs, cum, np.array([np.floor(middle), np.ceil(middle)]))
    median = (lo_hi[0] + lo_hi[1]) / 2.0
    q = np.array([75.0, 25.0]) / 100
    virtual = W * q + (1 + q * (1 - 1 - 1)) - 1
    below = np.floor(virtual)
    gamma = virtual - below
    values = _order_values(xs, cum, np.r_[below, np.minimum(below + 1, W - 1)])
    a, b = values[:2], values[2:]
    diff = b - a
    g = gamma[:, None]
    quartiles = np.where(g >= 0.5, b - diff * (1 - g), a + diff * g)
    return median, quartiles[0], quartiles[1]


class _Search:
    """The coefficient search at one node, on normalised features Z (rows weighted by
    ``weights`` when it is not None)."""

    def __init__(self, Z, y, k, criterion, tol, max_cycles, weights=None):
        self.Zc = np.ascontiguousarray(Z, dtype=np.float64)
        self.yc = np.ascontiguousarray(y, dtype=np.int64)
        self.weights = weights
        self.total = class_totals(self.yc, k, weights)
        self.code = line_search_code(criterion)
        self.tol, self.max_cycles = tol, max_cycles

    def refit_threshold(self, beta):
        t, score = best_threshold(self.Zc, np.asarray(beta, dtype=np.float64), self.yc,
                                   self.total, self.code, self.weights)
        return (float(t), float(score)) if np.isfinite(score) else (None, np.inf)

    def improve(self, beta, c, score, active):
        beta = np.array(beta, dtype=np.float64)
        features = np.flatnonzero(active)
        for _ in range(self.max_cycles):
            start = score
            c, score = coefficient_pass(self.Zc, self.yc, self.total, self.code, beta,
                                         float(c), float(score), features, self.weights)
            t, s = self.refit_threshold(beta)
            if t is not None and s < score - SCORE_EPS:
                c, score = t, s
            if start - score < self.tol:
                break
        return beta, c, score


@register_algorithm(
    "cart-lc", "CART with linear-combination splits and backward elimination "
    "(Breiman et al. 1984 §5.2); prune with pruner 'cc'",
    invariances=axis_parallel(
        columns=COEFFICIENT_ORDER,
        constant=NotKept("the coefficient cycle visits a constant column too, where gamma "
                         "= -0.25 or 0.25 moves the threshold in mid-cycle"),
        duplicate=NotKept("the coefficient cycle and the backward elimination treat the "
                          "copy as a coefficient of its own")),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class CARTLCClassifier(TreeClassifier):
    """CART-LC.

    Parameters
    ----------
    criterion : 'gini' (default), 'entropy' or 'twoing'.
    beta : backward elimination drops a feature whose removal costs less than beta times
        the costliest one (Breiman suggests 0.1 to 0.2).
    tol : a coefficient cycle that improves the criterion by less stops the search.
    max_cycles : cap on coefficient cycles per search (OC1's MAX_CART_CYCLES is 100).
    min_samples_split, max_depth : as for CART-AP.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in every count of the search and the leaves
        (``base.fit_weights``).

    Row weights count in every class count, in the axis-parallel start and in the
    normalisation's median and quartiles (``weighted_median_quartiles``): integer
    weights grow the tree of the rows repeated.
    """

    _parameter_constraints = {
        "criterion": CRITERION,
        "beta": [Interval(Real, 0, 1, closed="left")],
        "tol": [Interval(Real, 0, MAX_REAL, closed="both")],
        # 0 cycles would never leave the axis-parallel start: CART-AP under another name
        "max_cycles": [Interval(Integral, 1, 100_000, closed="both")],
    }

    def __init__(self, criterion: str = "gini", beta: float = 0.1, tol: float = 1e-4,
                 max_cycles: int = 100, min_samples_split: int = 2,
                 max_depth: int | None = None, random_state=None, class_weight=None):
        self.criterion = criterion
        self.beta = beta
        self.tol = tol
        self.max_cycles = max_cycles
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return CARTLCSplitFinder(criterion=split_criterion(self.criterion), beta=self.beta,
                                 tol=self.tol, max_cycles=self.max_cycles)


class CARTLCSplitFinder(SplitFinder):
    """CART-LC's search at one node (module docstring)."""

    def __init__(self, criterion, beta, tol, max_cycles):
        self.criterion, self.beta, self.tol, self.max_cycles = criterion, beta, tol, max_cycles

    def split(self, node: Node) -> Split | None:
        criterion, n_classes = self.criterion, self.n_classes
        X, y = self.node_data(node)
        w = node.weights
        axis = best_axis_split(X, y, n_classes, criterion, weights=w)
        if axis is None:
            return None
        if w is None:
            median = np.median(X, axis=0)
            q75, q25 = np.percentile(X, [75, 25], axis=0)
        else:  # a row of weight 3 counts as three rows in the normalisation too
            median, q75, q25 = weighted_median_quartiles(X, w)
        # A column of interquartile range 0 (most of the node's rows share one value) is
        # divided by its range instead, not by 1: the search must not depend on its
        # units (scaled by 2**k it would otherwise be searched in other steps).
        spread = X.max(axis=0) - X.min(axis=0)
        scale = np.where(q75 - q25 > 0, q75 - q25, np.where(spread > 0, spread, 1.0))
        Z = (X - median) / scale
        search = _Search(Z, y, n_classes, criterion, self.tol, self.max_cycles, w)
        beta = np.zeros(X.shape[1])
        beta[axis.feature] = 1.0
        c = (axis.threshold - median[axis.feature]) / scale[axis.feature]
        active = np.ones(X.shape[1], dtype=bool)
        beta, c, score = search.improve(beta, c, axis.score, active)
        active &= beta != 0
        # Backward elimination (§5.2.2).
        while active.sum() > 1:
            costs = np.full(X.shape[1], np.nan)
            for i in np.flatnonzero(active):
                trial = beta.copy()
                trial[i] = 0.0
                costs[i] = search.refit_threshold(trial)[1] - score
            least = int(np.nanargmin(costs))
            if not costs[least] < self.beta * np.nanmax(costs):
                break
            trial = beta.copy()
            trial[least] = 0.0
            t, s = search.refit_threshold(trial)
            if t is None:
                break
            active[least] = False
            beta, c, score = search.improve(trial, t, s, active)
            active &= beta != 0
        w = beta / scale
        oblique = Split(threshold=float(c + linalg.dot(w, median)), weights=w, score=score)
        # Never worse than the axis-parallel start; a tie keeps the oblique result.
        return strictly_better(oblique, axis)
