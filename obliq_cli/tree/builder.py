"""Top-down induction shared by every tree algorithm.

The builder owns the recursion, the stopping rules, the partition and the node layout;
an algorithm only supplies a *split finder* in two phases, as scikit-learn's Splitter
works:

* ``finder.prepare(X, y, n_classes, rng)`` once per fit, with the whole training set as
  contiguous float64 rows and int64 class codes 0..n_classes-1: whatever can be
  computed once (a presorted order, a scaling, the set of training values) is computed
  here.
* ``finder.split(node)`` once per node that the stopping rules leave open. ``node`` is a
  :class:`Node` view: the node's row indices into the prepared ``X`` (ascending), its
  class counts, depth, its parent's class counts (None at the root) and the state its
  parent's split handed down (``Split.child_states``). It returns a :class:`Split`, or
  None to make the node a leaf.

A finder that sets ``presort = True`` also gets ``node.order``: every feature's
ascending order of the node's rows, sorted once per fit and partitioned stably at each
split as scikit-learn's presorting does, so no node sorts its columns again (None on
nodes of fewer than ``PRESORT_MIN_ROWS`` rows, where sorting is cheaper than carrying
the orders).

The builder partitions the node's rows with one rule (:func:`goes_left`: ``x[feature]
<= t`` for an axis-parallel split, ``X[rows] @ w <= t`` for an oblique one), the rule
the finders that re-check a partition use too. A pure node is never split, and a split
that sends every row one way is no split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .presort import root_order, split_order
from .structure import LEAF, OBLIQUE, Tree

PRESORT_MIN_ROWS = 16
"""Nodes with fewer rows get no presorted ``Node.order`` (their finder sorts)."""


@dataclass(frozen=True)
class Split:
    """A proposed split: axis-parallel (``feature`` >= 0) or oblique (``weights``).

    ``child_states``: optional (left, right) objects handed to the children's
    ``Node.state`` (e.g. presorted orders of the children's rows, or APDT's look-ahead
    hyperplane); None hands each child None.
    """

    threshold: float
    feature: int = OBLIQUE
    weights: np.ndarray | None = None
    score: float = np.nan
    child_states: tuple | None = None

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


def goes_left(X: np.ndarray, rows: np.ndarray, split: Split) -> np.ndarray:
    """Whether each of ``rows`` goes left: ``X[rows, f] <= t`` or ``X[rows] @ w <= t``.

    The one partition rule of the builder; a finder that needs the children's rows
    (to hand them a state, or to re-score an oblique split) computes them with it.
    """
    if split.feature >= 0:
        return X[rows, split.feature] <= split.threshold
    return X.take(rows, axis=0) @ split.weights <= split.threshold  # = X[rows] @ w


class Node:
    """What a split finder sees of a node (a read-only view; see the module docstring).

    rows : int64 array, the node's row indices into the prepared ``X``, ascending.
    counts : int64 array [n_classes], class counts of those rows.
    depth : 0 at the root.
    parent_counts : the parent's class counts, None at the root.
    state : what the parent's split handed to this child (``Split.child_states``).
    order : for a finder with ``presort = True``, int array [n_features, n_rows]: row f
        lists the node's row indices in ascending order of ``X[:, f]`` (equal values in
        ascending row order); None otherwise and on small nodes.
    """

    __slots__ = ("rows", "counts", "depth", "parent_counts", "state", "order")

    def __init__(self, rows, counts, depth=0, parent_counts=None, state=None, order=None):
        self.rows = rows
        self.counts = counts
        self.depth = depth
        self.parent_counts = parent_counts
        self.state = state
        self.order = order

    @property
    def is_root(self) -> bool:
        return self.depth == 0

    @property
    def n_rows(self) -> int:
        return self.rows.shape[0]


class SplitFinder:
    """Base of the two-phase split finders (module docstring).

    ``prepare`` keeps the training arrays as ``self.X``, ``self.y``, ``self.n_classes``
    and ``self.rng``; subclasses extend it with what they compute once per fit and
    implement ``split``.
    """

    presort = False
    X: np.ndarray
    y: np.ndarray
    n_classes: int
    rng: np.random.Generator
    _position: np.ndarray | None = None

    def prepare(self, X: np.ndarray, y: np.ndarray, n_classes: int,
                rng: np.random.Generator) -> None:
        self.X, self.y, self.n_classes, self.rng = X, y, n_classes, rng

    def split(self, node: Node) -> Split | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def node_data(self, node: Node) -> tuple[np.ndarray, np.ndarray]:
        """The node's rows of ``X`` and their class codes (copies, in row order)."""
        return self.X.take(node.rows, axis=0), self.y[node.rows]

    def local_order(self, node: Node) -> np.ndarray | None:
        """``node.order`` as positions within ``node.rows`` (int64 [n_features, n_rows],
        row f the argsort of ``X[node.rows, f]``), or None when the node has no order."""
        if node.order is None:
            return None
        if self._position is None:
            self._position = np.empty(self.X.shape[0], dtype=np.int64)
        self._position[node.rows] = np.arange(node.rows.shape[0])
        return self._position.take(node.order)


def split_whole(finder: SplitFinder, X, y, n_classes: int, rng=None,
                like: Node | None = None) -> Split | None:
    """Prepare ``finder`` on (X, y) and split all of its rows as one node.

    The node keeps the depth, parent counts and state of ``like`` (default: a root).
    Used where a node's rows live in a space of their own (the crimcoord features of a
    node) and to test one node's search.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    rng = rng if rng is not None else np.random.default_rng(0)
    finder.prepare(X, y, n_classes, rng)
    counts = np.bincount(y, minlength=n_classes)
    rows = np.arange(X.shape[0])
    order = root_order(X) if finder.presort else None
    if like is None:
        return finder.split(Node(rows, counts, order=order))
    return finder.split(Node(rows, counts, like.depth, like.parent_counts, like.state, order))


@dataclass(frozen=True)
class StoppingRules:
    """When a node becomes a leaf without asking the split finder.

    min_samples_split : a node with fewer rows is a leaf (HHCART's MinParent).
    max_depth : nodes at this depth are leaves (None = unlimited; root depth 0).
    max_misclassification_rate : a node whose resubstitution error rate is at most this
        is a leaf (HHCART's MisRate; 0 means only pure nodes stop). A pure node is never
        split, whatever the rules.

    Rules that need more of the node (GDT's look at the parent's majority class) live
    in the finder, which sees the whole ``Node`` and returns None to stop.
    """

    min_samples_split: int = 2
    max_depth: int | None = None
    max_misclassification_rate: float = 0.0

    def is_leaf(self, counts: np.ndarray, depth: int) -> bool:
        """Whether a node with these class counts at this depth stops."""
        n = int(counts.sum())
        if n < max(self.min_samples_split, 2):
            return True
        if self.max_depth is not None and depth >= self.max_depth:
            return True
        return (n - int(counts.max())) / n <= self.max_misclassification_rate


def build_tree(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    finder: SplitFinder,
    stopping: StoppingRules = StoppingRules(),
    rng: np.random.Generator | None = None,
) -> Tree:
    """Grow a tree depth-first; nodes are numbered in preorder (left subtree first).

    ``y`` holds class codes 0..n_classes-1. The loop runs once per node; all per-sample
    work happens in numpy inside the split finder and the partition. A child's class
    counts come from its parent's partition (one bincount per split, the right child's
    by difference), and the node arrays grow by doubling rather than per node.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    rng = rng if rng is not None else np.random.default_rng(0)
    finder.prepare(X, y, n_classes, rng)
    n_samples, n_features = X.shape
    min_split = max(int(stopping.min_samples_split), 2)
    max_depth = stopping.max_depth
    max_rate = float(stopping.max_misclassification_rate)

    capacity = 64
    children = np.full((capacity, 2), LEAF, dtype=np.int64)
    features = np.full(capacity, LEAF, dtype=np.int64)
    thresholds = np.zeros(capacity)
    values = np.zeros((capacity, n_classes))
    oblique: dict[int, np.ndarray] = {}  # node id -> weights of its oblique split
    n_nodes = 0

    presort = bool(getattr(finder, "presort", False))
    mark = np.zeros(n_samples, dtype=bool) if presort else None
    XT = None  # the columns as rows, for axis-parallel partitions (made on first use)
    root = Node(np.arange(n_samples), np.bincount(y, minlength=n_classes),
                order=root_order(X) if presort else None)
    # stack of (node view, parent id, child slot: 0 left, 1 right)
    stack: list[tuple[Node, int, int]] = [(root, -1, 0)]
    while stack:
        node, parent, slot = stack.pop()
        if n_nodes == capacity:
            capacity *= 2
            children = _grown(children, capacity, LEAF)
            features = _grown(features, capacity, LEAF)
            thresholds = _grown(thresholds, capacity, 0.0)
            values = _grown(values, capacity, 0.0)
        node_id = n_nodes
        n_nodes += 1
        if parent >= 0:
            children[parent, slot] = node_id
        counts = node.counts
        values[node_id] = counts
        n = node.rows.shape[0]
        if n < min_split or (max_depth is not None and node.depth >= max_depth):
            continue
        majority = int(counts.max())
        if majority == n or (n - majority) / n <= max_rate:
            continue  # pure, or within the misclassification rate
        split = finder.split(node)
        if split is None:
            continue
        if split.feature >= 0:
            if XT is None:
                XT = np.ascontiguousarray(X.T)
            go_left = XT[split.feature][node.rows] <= split.threshold  # = goes_left
        else:
            go_left = goes_left(X, node.rows, split)
        left_rows = node.rows[go_left]
        n_left = left_rows.shape[0]
        if n_left == 0 or n_left == n:
            continue  # a split that separates nothing is no split
        if split.feature >= 0:
            features[node_id] = split.feature
        else:
            features[node_id] = OBLIQUE
            oblique[node_id] = np.asarray(split.weights, dtype=np.float64)
        thresholds[node_id] = split.threshold
        left_counts = np.bincount(y[left_rows], minlength=n_classes)
        states = split.child_states or (None, None)
        depth = node.depth + 1
        left_order = right_order = None
        if node.order is not None:
            # Stable partition of every feature's order: keep the rows that went each way.
            mark[node.rows] = go_left
            keep_left = n_left >= PRESORT_MIN_ROWS
            keep_right = n - n_left >= PRESORT_MIN_ROWS
            if keep_left or keep_right:
                left_order, right_order = split_order(node.order, mark, n_left, keep_left,
                                                      keep_right)
                left_order = left_order if keep_left else None
                right_order = right_order if keep_right else None
        # Right is pushed first so the left child is numbered next (preorder).
        stack.append((Node(node.rows[~go_left], counts - left_counts, depth, counts,
                           states[1], right_order), node_id, 1))
        stack.append((Node(left_rows, left_counts, depth, counts, states[0], left_order),
                      node_id, 0))

    features = features[:n_nodes]
    weights = np.zeros((n_nodes, n_features))
    axis = np.flatnonzero(features >= 0)
    weights[axis, features[axis]] = 1.0
    for node_id, w in oblique.items():
        weights[node_id] = w
    return Tree(
        children[:n_nodes, 0].copy(),
        children[:n_nodes, 1].copy(),
        features.copy(),
        weights,
        thresholds[:n_nodes].copy(),
        values[:n_nodes].copy(),
    )


def _grown(array: np.ndarray, capacity: int, fill) -> np.ndarray:
    out = np.full((capacity,) + array.shape[1:], fill, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out
