"""CART with axis-parallel splits (CART-AP), Breiman, Friedman, Olshen & Stone 1984.

Exhaustive search over every feature and every threshold halfway between consecutive
distinct values (§2.4), scored by gini, entropy or twoing (§4.3-4.4). With gini and
no pruning the grown tree is the one scikit-learn's ``DecisionTreeClassifier`` grows
whenever no two candidate splits tie. Pruning is a separate step (``pruner: cc``).

Missing values (NaN) as scikit-learn's trees handle them (``_splitter.pyx``,
scikit-learn >= 1.3): at a node where a feature has missing values, its search is run
twice, with the missing rows on the right and on the left of every threshold between
consecutive distinct known values, plus the split "every known value left, the missing
ones right" (threshold +inf); the best candidate fixes the node's branch for missing
values (``missing_go_to_left``), learned per split. A split on a feature without
missing values at its node sends missing values at prediction to the child that
received more training rows (ties: right), the tree's default rule. Candidates are
visited feature by feature, right-then-left, thresholds ascending; the first of the
lowest score wins (scikit-learn visits features in a random order: on data without
ties the trees are the same node for node; tests/algorithms/test_cart.py checks it). A node whose
rows have no missing value uses the compiled search of old.
"""

from __future__ import annotations

import numpy as np

from ..invariances import axis_parallel
from ..parameters import StrOptions
from ..registry import register_algorithm
from ..tree.axis_search import find_best_projection_split
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import split_criterion
from ..tree.sorted_sweep import midpoint_threshold
from ..tree.structure import MISSING_DEFAULT
from .base import TreeClassifier
from .unweighted import GROWN_UNTIL_PURE

CRITERIA = ("gini", "entropy", "twoing")
# The declaration of ``criterion`` for every algorithm that offers CART's split rules.
CRITERION = [StrOptions(set(CRITERIA))]


@register_algorithm(
    "cart-ap",
    "CART with axis-parallel splits (Breiman et al. 1984); prune with pruner 'cc'",
    # gini's sum over classes is of whole squared counts, exact in any class order
    invariances=axis_parallel(),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class CARTClassifier(TreeClassifier):
    """CART-AP.

    Parameters
    ----------
    criterion : 'gini' (default), 'entropy' or 'twoing'.
    min_samples_split : nodes with fewer rows are leaves (default 2).
    max_depth : maximum depth, None for unlimited.
    max_misclassification_rate : a node whose error rate is at most this stops (0).
    random_state : unused by the search (it is deterministic); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: every class count the search and
        the leaves read is weighed by it (``base.fit_weights``; CART's priors, Breiman et
        al. 1984 §4.3, in scikit-learn's form).
    """

    _parameter_constraints = {"criterion": CRITERION}
    _allow_nan = True

    def __init__(
        self,
        criterion: str = "gini",
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
        class_weight=None,
    ):
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return AxisSplitFinder(split_criterion(self.criterion))


class AxisSplitFinder(SplitFinder):
    """The exhaustive axis-parallel search of CART-AP and OC1-AP at every node, on
    columns presorted once per fit (``presort``)."""

    presort = True

    def __init__(self, criterion):
        self.criterion = criterion

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        self.XT = np.ascontiguousarray(X.T)  # a node's columns gather as rows
        self.has_nan = bool(np.isnan(self.XT).any())

    def split(self, node: Node) -> Split | None:
        rows = node.rows
        columns = self.XT.take(rows, axis=1)
        if self.has_nan and np.isnan(columns).any():
            return best_split_with_missing(columns, self.y[rows], self.n_classes,
                                           self.criterion, self.local_order(node),
                                           weights=node.weights)
        # node.weights: the rows' weights (None unweighted), so the impurity compared
        # is of the weighted class sums, as the leaves' (integer weights = copied rows)
        found = find_best_projection_split(columns, self.y[rows], self.n_classes,
                                           self.criterion, self.local_order(node),
                                           weights=node.weights)
        if found is None:
            return None
        feature, threshold, score = found
        return Split(threshold=threshold, feature=feature, score=score)


def best_split_with_missing(values: np.ndarray, y: np.ndarray, n_classes: int, criterion,
                            order: np.ndarray | None = None,
                            weights: np.ndarray | None = None) -> Split | None:
    """scikit-learn's best split of a node whose ``values`` [d, n] hold NaN (module
    docstring): a ``Split`` whose ``missing`` is the learned branch (0 left, 1 right)
    when its feature has missing values here, the default rule otherwise; None when no
    feature offers a split. ``order``: optional [d, n] argsort of each row, NaN last.
    ``weights``: the rows' weights (None: each counts once); the class sums on both
    sides, the missing rows' included, are then sums of weights, as scikit-learn's
    splitter sums its ``sample_weight`` for the missing rows' side."""
    d, n = values.shape
    best_score, best = np.inf, None
    for f in range(d):  # a loop over features; each step inside is vectorised
        x = values[f]
        missing = np.isnan(x)
        n_known = n - int(missing.sum())
        if n_known == 0:
            continue  # every value missing: scikit-learn's "constant" feature
        known = order[f, :n_known] if order is not None else np.flatnonzero(~missing)[
            np.argsort(x[~missing], kind="stable")]
        xs = x[known]
        running = np.zeros((n_known, n_classes))
        running[np.arange(n_known), y[known]] = 1.0 if weights is None else weights[known]
        np.cumsum(running, axis=0, out=running)
        cut = np.flatnonzero(xs[:-1] < xs[1:])  # left = the first cut + 1 known rows
        total = running[-1]
        missed = np.bincount(y[missing], minlength=n_classes,
                             weights=None if weights is None else weights[missing]
                             ).astype(np.float64)
        left_known = running[cut]
        if n_known == n:
            if cut.size == 0:
                continue
            lefts, rights = left_known, total - left_known
            sides = np.full(cut.size, MISSING_DEFAULT)
        else:
            # missing right at every cut, then known | missing, then missing left
            lefts = np.vstack([left_known, total[None, :], left_known + missed])
            rights = np.vstack([total - left_known + missed, missed[None, :],
                                total - left_known])
            sides = np.r_[np.ones(cut.size + 1, dtype=np.int64),
                          np.zeros(cut.size, dtype=np.int64)]
        scores = criterion(lefts, rights)
        i = int(np.argmin(scores))
        if scores[i] < best_score:
            best_score = float(scores[i])
            if n_known < n and i == cut.size:
                threshold = np.inf  # NaN <= inf is False: the missing rows go right
            else:
                c = int(cut[i - cut.size - 1] if n_known < n and i > cut.size else cut[i])
                threshold = midpoint_threshold(xs[c], xs[c + 1])
            best = Split(threshold=threshold, feature=f, score=best_score,
                         missing=int(sides[i]))
    return best
