"""CART with axis-parallel splits (CART-AP), Breiman, Friedman, Olshen & Stone 1984.

Exhaustive search over every feature and every threshold halfway between consecutive
distinct values (§2.4), scored by gini, entropy or twoing (§4.3-4.4). With gini and
no pruning the grown tree is the one scikit-learn's ``DecisionTreeClassifier`` grows
whenever no two candidate splits tie. Pruning is a separate step (``pruner: cc``).
"""

from __future__ import annotations

import numpy as np

from ..parameters import StrOptions
from ..registry import register_algorithm
from ..tree.axis_search import find_best_projection_split
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import split_criterion
from .base import TreeClassifier

CRITERIA = ("gini", "entropy", "twoing")
# The declaration of ``criterion`` for every algorithm that offers CART's split rules.
CRITERION = [StrOptions(set(CRITERIA))]


@register_algorithm(
    "cart-ap",
    "CART with axis-parallel splits (Breiman et al. 1984); prune with pruner 'cc'",
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
    """

    _parameter_constraints = {"criterion": CRITERION}

    def __init__(
        self,
        criterion: str = "gini",
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
    ):
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.random_state = random_state

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

    def split(self, node: Node) -> Split | None:
        rows = node.rows
        found = find_best_projection_split(self.XT.take(rows, axis=1), self.y[rows], self.n_classes,
                                           self.criterion, self.local_order(node))
        if found is None:
            return None
        feature, threshold, score = found
        return Split(threshold=threshold, feature=feature, score=score)
