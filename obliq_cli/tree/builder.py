"""Top-down induction shared by every tree algorithm.

The builder owns the recursion, the stopping rules and the node layout; an algorithm
only supplies a *split finder*: ``find_split(X_node, y_node, counts, rng) -> Split |
None`` that proposes a hyperplane for the rows reaching a node. The builder partitions
the rows with the same rule the fitted ``Tree`` uses to predict (``w . x <= t`` goes
left), so a tree always routes its growing data the way it was grown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .structure import LEAF, OBLIQUE, Tree


@dataclass(frozen=True)
class Split:
    """A proposed split: axis-parallel (``feature`` >= 0) or oblique (``weights``)."""

    threshold: float
    feature: int = OBLIQUE
    weights: np.ndarray | None = None
    score: float = np.nan

    def projection(self, X: np.ndarray) -> np.ndarray:
        if self.feature >= 0:
            return X[:, self.feature]
        return X @ self.weights

    def weight_vector(self, n_features: int) -> np.ndarray:
        if self.feature >= 0:
            w = np.zeros(n_features)
            w[self.feature] = 1.0
            return w
        return np.asarray(self.weights, dtype=np.float64)


SplitFinder = Callable[[np.ndarray, np.ndarray, np.ndarray, np.random.Generator], Split | None]


@dataclass(frozen=True)
class StoppingRules:
    """When a node becomes a leaf without asking the split finder.

    min_samples_split : a node with fewer rows is a leaf (HHCART's MinParent).
    max_depth : nodes at this depth are leaves (None = unlimited; root depth 0).
    max_misclassification_rate : a node whose resubstitution error rate is at most this
        is a leaf (HHCART's MisRate; 0 means only pure nodes stop). A pure node is never
        split, whatever the rules.
    """

    min_samples_split: int = 2
    max_depth: int | None = None
    max_misclassification_rate: float = 0.0

    def is_leaf(self, counts: np.ndarray, depth: int, parent_counts=None) -> bool:
        """Whether a node with these class counts stops; ``parent_counts`` (None at the
        root) lets rules that look at the parent's majority class (GDT's) subclass this."""
        n = counts.sum()
        if n < max(self.min_samples_split, 2):
            return True
        if self.max_depth is not None and depth >= self.max_depth:
            return True
        return (n - counts.max()) / n <= self.max_misclassification_rate


def build_tree(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    find_split: SplitFinder,
    stopping: StoppingRules = StoppingRules(),
    rng: np.random.Generator | None = None,
) -> Tree:
    """Grow a tree depth-first; nodes are numbered in preorder (left subtree first).

    ``y`` holds class codes 0..n_classes-1. The loop runs once per node; all per-sample
    work happens in numpy inside the split finder and the partition.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    rng = rng if rng is not None else np.random.default_rng(0)
    n_features = X.shape[1]
    left_ids: list[int] = []
    right_ids: list[int] = []
    features: list[int] = []
    weights: list[np.ndarray] = []
    thresholds: list[float] = []
    values: list[np.ndarray] = []
    zeros = np.zeros(n_features)

    # stack of (row indices, depth, parent id, is_left_child)
    stack: list[tuple[np.ndarray, int, int, bool]] = [(np.arange(X.shape[0]), 0, -1, True)]
    while stack:
        rows, depth, parent, is_left = stack.pop()
        node = len(left_ids)
        if parent >= 0:
            (left_ids if is_left else right_ids)[parent] = node
        y_node = y[rows]
        counts = np.bincount(y_node, minlength=n_classes)
        left_ids.append(LEAF)
        right_ids.append(LEAF)
        features.append(LEAF)
        weights.append(zeros)
        thresholds.append(0.0)
        values.append(counts.astype(np.float64))
        parent_counts = values[parent] if parent >= 0 else None
        if stopping.is_leaf(counts, depth, parent_counts):
            continue
        X_node = X[rows]
        split = find_split(X_node, y_node, counts, rng)
        if split is None:
            continue
        go_left = split.projection(X_node) <= split.threshold
        n_left = int(np.count_nonzero(go_left))
        if n_left == 0 or n_left == rows.size:
            continue  # a split that separates nothing is no split
        features[node] = split.feature if split.feature >= 0 else OBLIQUE
        weights[node] = split.weight_vector(n_features)
        thresholds[node] = float(split.threshold)
        # Right is pushed first so the left child is numbered next (preorder).
        stack.append((rows[~go_left], depth + 1, node, False))
        stack.append((rows[go_left], depth + 1, node, True))

    return Tree(
        np.asarray(left_ids, dtype=np.int64),
        np.asarray(right_ids, dtype=np.int64),
        np.asarray(features, dtype=np.int64),
        np.vstack(weights) if weights else np.zeros((0, n_features)),
        np.asarray(thresholds, dtype=np.float64),
        np.vstack(values),
    )
