"""Top-down induction shared by every tree algorithm.

The builder owns the recursion, the stopping rules, the partition and the node layout;
an algorithm only supplies a *split finder* in two phases, as scikit-learn's Splitter
works:

* ``finder.prepare(X, y, n_classes, rng)`` once per fit, with the whole training set as
  contiguous float64 rows and int64 class codes 0..n_classes-1: whatever can be
  computed once (a presorted order, a scaling, the set of training values) is computed
  here.
* ``finder.split(node)`` once per node that the stopping rules (:class:`StoppingRules`)
  leave open. ``node`` is a
  :class:`Node` view: the node's row indices into the prepared ``X`` (ascending), its
  class counts, depth, its parent's class counts (None at the root) and the state its
  parent's split handed down (``Split.child_states``). It returns a :class:`Split`, or
  None to make the node a leaf.

The builder decides which nodes stop, in one place (``StoppingRules.leaf_rule``): its
common rules first, then a rule the finder declares as ``stop_node(node) -> bool``
(GDT's eta rules, which look at the parent's class counts). A finder proposes splits;
it returns None from ``split`` only when it finds none.

A finder that sets ``presort = True`` also gets ``node.order``: every feature's
ascending order of the node's rows, sorted once per fit and partitioned stably at each
split as scikit-learn's presorting does, so no node sorts its columns again (None on
nodes of fewer than ``PRESORT_MIN_ROWS`` rows, where sorting is cheaper than carrying
the orders).

The builder partitions the node's rows with the one partition rule of obliq
(``structure.route``: ``x[feature] <= t`` or ``x . w <= t`` goes left, a nominal split's
branch is the code, an unknown value follows the missing rule), which ``Tree`` routes
by too; :func:`split_values` computes a split's values in the builder's layouts and
:func:`goes_left` gives the left mask a finder that re-checks a partition uses. A pure
node is never split, and a split that sends every row one way (every row into one
branch) is no split.

Two extensions of a split (``obliq_cli.tree.structure`` for the tree's side):

* ``Split(feature=j, categories=m)``: a multiway split on the nominal column j, one
  child per code 0..m-1 (Quinlan 1993, ch. 2); a child whose category the node lacks is
  an empty leaf.
* Rows whose split value is unknown (NaN, or a code outside 0..m-1) follow
  ``Split.missing``: a branch index (scikit-learn's learned direction), or
  MISSING_DISTRIBUTE: every branch, with the row's weight times the branch's share of
  the node's known weight (C4.5, Quinlan 1993 ch. 3), or MISSING_DEFAULT: the branch
  with most rows (ties to the last), then stored explicitly on the node.

Distribution makes row weights fractional: from then on ``Node.weights`` holds each
row's weight and ``Node.counts`` the weighted class sums (float64), and the stopping
rules count weight, not rows (C4.5's ``Cases``). Until a node receives a distributed
row, ``Node.weights`` is None and everything is the integer path of old, so a tree
grown without unknown values or nominal splits is unchanged bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fit_threads import FitThreads
from ..kernels.linalg import matvec, rows_matvec
from ..kernels.presort import root_order, split_order
from .structure import (
    MISSING_DEFAULT,
    MISSING_DISTRIBUTE,
    NOMINAL,
    OBLIQUE,
    Tree,
    go_left,
    route,
)

PRESORT_MIN_ROWS = 16
"""Nodes with fewer rows get no presorted ``Node.order`` (their finder sorts)."""


@dataclass(frozen=True)
class Split:
    """A proposed split: axis-parallel (``feature`` >= 0) or oblique (``weights``).

    ``child_states``: optional objects, one per branch, handed to the children's
    ``Node.state``, of a type the finder defines (APDT's ``NodeState``: what the parent
    found out about the child, e.g. its look-ahead hyperplane); None hands each child
    None.
    ``categories``: m > 0 makes it a multiway split on the nominal column ``feature``
    (codes 0..m-1; ``threshold`` unused). ``missing``: where rows with an unknown value
    go (module docstring).
    """

    threshold: float = 0.0
    feature: int = OBLIQUE
    weights: np.ndarray | None = None
    score: float = np.nan
    child_states: tuple | None = None
    categories: int = 0
    missing: int = MISSING_DEFAULT

    @property
    def n_branches(self) -> int:
        return self.categories if self.categories > 0 else 2

    def projection(self, X: np.ndarray) -> np.ndarray:
        """The split's values of every row of ``X`` (``split_values``' sums)."""
        if self.feature >= 0:
            return X[:, self.feature]
        return matvec(X, np.asarray(self.weights, dtype=np.float64))

    def branches(self, X: np.ndarray) -> np.ndarray:
        """The branch every row of ``X`` takes (``structure.route``; -1 unknown)."""
        return route(self.projection(X), self.threshold, self.categories)

    def weight_vector(self, n_features: int) -> np.ndarray:
        if self.feature >= 0:
            w = np.zeros(n_features)
            w[self.feature] = 1.0
            return w
        return np.asarray(self.weights, dtype=np.float64)


def split_values(X: np.ndarray, XT: np.ndarray | None, rows: np.ndarray,
                 split: Split) -> np.ndarray:
    """The values ``split`` tests for ``rows``: column ``feature`` (read from the
    transposed ``XT`` when the builder has it, a contiguous gather) or ``X[rows] . w``.

    The product is summed in feature order by ``linalg.rows_matvec``, not by BLAS,
    whose order depends on the CPU: a row within rounding of the hyperplane goes the
    same way on every machine, and the way ``Tree.apply`` sends it.
    """
    if split.feature >= 0:
        return XT[split.feature][rows] if XT is not None else X[rows, split.feature]
    weights = np.asarray(split.weights, dtype=np.float64)
    return rows_matvec(X, np.asarray(rows, dtype=np.int64), weights)


def goes_left(X: np.ndarray, rows: np.ndarray, split: Split) -> np.ndarray:
    """Whether each of ``rows`` goes left under a linear ``split`` whose values are
    known (``structure.go_left`` of ``split_values``): the builder's partition, for a
    finder that needs the children's rows (to hand them a state, or to re-score an
    oblique split)."""
    return go_left(split_values(X, None, rows, split), split.threshold)


class Node:
    """What a split finder sees of a node (a read-only view; see the module docstring).

    rows : int64 array, the node's row indices into the prepared ``X``, ascending.
    counts : int64 array [n_classes], class counts of those rows (float64 weighted sums
        when ``weights`` is set).
    weights : None (every row weighs 1) or float64 [n_rows], the rows' fractional
        weights after a distribution of unknown values above.
    depth : 0 at the root.
    parent_counts : the parent's class counts, None at the root.
    state : what the parent's split handed to this child (``Split.child_states``).
    order : for a finder with ``presort = True``, int array [n_features, n_rows]: row f
        lists the node's row indices in ascending order of ``X[:, f]`` (equal values in
        ascending row order); None otherwise and on small nodes.
    """

    __slots__ = ("rows", "counts", "depth", "parent_counts", "state", "order", "weights")

    def __init__(self, rows, counts, depth=0, parent_counts=None, state=None, order=None,
                 weights=None):
        self.weights = weights
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

    @property
    def total(self) -> float:
        """The node's weight: its number of rows, or their summed weights."""
        return self.rows.shape[0] if self.weights is None else float(self.counts.sum())


class SplitFinder:
    """Base of the two-phase split finders (module docstring).

    ``prepare`` keeps the training arrays as ``self.X``, ``self.y``, ``self.n_classes``
    and ``self.rng``; subclasses extend it with what they compute once per fit and
    implement ``split``.
    """

    presort = False
    stop_node = None
    """Optional rule of the finder's own, ``stop_node(node) -> bool``: True makes the
    node a leaf before ``split`` is asked (``StoppingRules.leaf_rule`` applies it)."""
    threads: FitThreads = FitThreads(1)
    """The fit's threads (``obliq_cli.fit_threads``), set by an estimator with an
    ``n_threads`` parameter before the fit: a finder may score a node's independent
    candidates with ``threads.map`` and must then choose among them as it would in
    order on one thread. One thread (every unit on the calling thread) by default."""
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
    Used to run or test one node's search on its own.
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
    """When a node becomes a leaf without a split: every stopping rule of the builder.

    min_samples_split : a node with fewer rows (less weight, once rows are fractional)
        is a leaf (HHCART's MinParent).
    max_depth : nodes at this depth are leaves (None = unlimited; root depth 0).
    max_misclassification_rate : a node whose resubstitution error rate is at most this
        is a leaf (HHCART's MisRate; 0 means only pure nodes stop). A pure node is never
        split, whatever the rules.

    A rule that needs more of the node than these (GDT's eta rules, which compare the
    node with its parent's majority class) is declared by the finder as
    ``stop_node(node)`` and applied here after the rules above.
    """

    min_samples_split: int = 2
    max_depth: int | None = None
    max_misclassification_rate: float = 0.0

    def leaf_rule(self, finder: SplitFinder | None = None):
        """``is_leaf(node) -> bool`` for one fit: the rules above, then ``finder``'s
        ``stop_node`` when it declares one (made once per fit, asked once per node)."""
        min_split = max(int(self.min_samples_split), 2)
        max_depth = self.max_depth
        max_rate = float(self.max_misclassification_rate)
        finder_rule = getattr(finder, "stop_node", None)

        def is_leaf(node: Node) -> bool:
            weights = node.weights  # Node.total, without a property call per node
            n = node.rows.shape[0] if weights is None else float(node.counts.sum())
            if n < min_split or (max_depth is not None and node.depth >= max_depth):
                return True
            counts = node.counts
            majority = counts.max()
            if majority == n or (n - majority) / n <= max_rate:
                return True  # pure, or within the misclassification rate
            return finder_rule is not None and bool(finder_rule(node))

        return is_leaf

    def is_leaf(self, node: Node, finder: SplitFinder | None = None) -> bool:
        """Whether ``node`` stops (``leaf_rule``; for one node, as a test asks)."""
        return self.leaf_rule(finder)(node)


def build_tree(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    finder: SplitFinder,
    stopping: StoppingRules = StoppingRules(),
    rng: np.random.Generator | None = None,
    sample_weight: np.ndarray | None = None,
) -> Tree:
    """Grow a tree depth-first; nodes are numbered in preorder (first branch first).

    ``sample_weight``: None (every row weighs 1: the integer path), or one positive
    float64 weight per row, which the root node carries as ``Node.weights`` (its counts
    the weighted class sums), so every node below, the stopping rules and the leaves'
    ``value`` count weight, as after a distribution of unknown values.

    ``y`` holds class codes 0..n_classes-1. The loop runs once per node; all per-sample
    work happens in numpy inside the split finder and the partition. A child's class
    counts come from its parent's partition (one bincount per split, the right child's
    of a binary split by difference). The tree keeps the nodes as they are decided
    (``Tree.add_node``, whose arrays grow by doubling).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    rng = rng if rng is not None else np.random.default_rng(0)
    finder.prepare(X, y, n_classes, rng)
    n_samples, n_features = X.shape
    is_leaf = stopping.leaf_rule(finder)
    tree = Tree.empty(n_features, n_classes)

    presort = bool(getattr(finder, "presort", False))
    mark = np.zeros(n_samples, dtype=bool) if presort else None
    # Without a NaN in X (every paper dataset) no node needs to look for one.
    any_nan = bool(np.isnan(X).any())
    XT = None  # the columns as rows, for axis-parallel partitions (made on first use)
    weights = None
    if sample_weight is not None:
        weights = np.ascontiguousarray(sample_weight, dtype=np.float64)
        if weights.shape != (n_samples,) or not (weights > 0).all():
            raise ValueError("build_tree: sample_weight must hold one positive weight a row")
    root = Node(np.arange(n_samples), np.bincount(y, weights=weights, minlength=n_classes),
                order=root_order(X) if presort else None, weights=weights)
    # stack of (node view, parent id, branch of the parent it hangs from)
    stack: list[tuple[Node, int, int]] = [(root, -1, 0)]
    while stack:
        node, parent, slot = stack.pop()
        split = None if is_leaf(node) else finder.split(node)
        parts = None
        if split is not None:
            if XT is None and split.feature >= 0:
                XT = np.ascontiguousarray(X.T)
            parts = _partition(X, XT, y, n_classes, node, split, any_nan)
        if parts is None:  # a leaf; a split that separates nothing is no split
            tree.add_node(parent, slot, node.counts)
            continue
        child_rows, child_weights, child_counts, rule, left_mask = parts
        node_id = tree.add_node(parent, slot, node.counts, missing=rule, **_node_test(split))
        m = len(child_rows)
        states = split.child_states or (None,) * m
        depth = node.depth + 1
        orders = _child_orders(node, child_rows, mark, left_mask)
        # Pushed last branch first, so the first branch is numbered next (preorder).
        for b in range(m - 1, -1, -1):
            stack.append((Node(child_rows[b], child_counts[b], depth, node.counts, states[b],
                               orders[b], child_weights[b]), node_id, b))
    return tree.trim()


def _node_test(split: Split) -> dict:
    """The test ``Tree.add_node`` stores for ``split``: a nominal column's codes, an
    axis-parallel threshold, or an oblique hyperplane."""
    if split.categories > 0:
        return {"n_branches": split.categories, "feature": split.feature, "kind": NOMINAL}
    if split.feature >= 0:
        return {"n_branches": 2, "feature": split.feature, "threshold": split.threshold}
    return {"n_branches": 2, "feature": OBLIQUE, "threshold": split.threshold,
            "weights": np.asarray(split.weights, dtype=np.float64)}


def split_branches(X: np.ndarray, XT: np.ndarray | None, rows: np.ndarray,
                   split: Split) -> np.ndarray:
    """The branch of every row of ``rows`` under ``split`` (``structure.route``); -1
    where the value is unknown (NaN; for a nominal split also a code outside 0..m-1)."""
    return route(split_values(X, XT, rows, split), split.threshold, split.categories)


def _partition(X, XT, y, n_classes, node: Node, split: Split, any_nan: bool = True):
    """The children of ``node`` under ``split``: (rows, weights, counts) per branch, the
    node's missing rule and, for a plain binary partition, the mask of the rows that went
    left (else None); None when fewer than two branches get a row. ``any_nan``: whether X
    holds a NaN at all (if not, no node's values are searched for one)."""
    rows, weights = node.rows, node.weights
    n = rows.shape[0]
    if split.categories == 0 and weights is None:
        values = split_values(X, XT, rows, split)
        if not (any_nan and np.isnan(values).any()):
            # Every value known: route's linear rule as a mask (the binary integer path).
            left = go_left(values, split.threshold)
            left_rows = rows[left]
            n_left = left_rows.shape[0]
            if n_left == 0 or n_left == n:
                return None
            left_counts = np.bincount(y[left_rows], minlength=n_classes)
            return ([left_rows, rows[~left]], [None, None],
                    [left_counts, node.counts - left_counts], split.missing, left)
    branch = split_branches(X, XT, rows, split)
    m = split.n_branches
    unknown = branch < 0
    known_w = np.bincount(branch[~unknown], minlength=m,
                          weights=None if weights is None else weights[~unknown])
    rule = split.missing
    if unknown.any() and rule == MISSING_DEFAULT:
        rule = m - 1 - int(np.argmax(known_w[::-1]))  # most rows, ties to the last
    distribute = unknown.any() and rule == MISSING_DISTRIBUTE
    if unknown.any() and not distribute:
        branch = np.where(unknown, rule, branch)
        unknown = np.zeros(n, dtype=bool)
    share = known_w / known_w.sum() if distribute and known_w.sum() > 0 else None
    if distribute and share is None:
        return None  # no known value: nothing to learn the shares from
    out_rows, out_weights, out_counts = [], [], []
    for b in range(m):  # a loop over branches
        here = branch == b
        if distribute and share[b] > 0:
            here |= unknown
        child = rows[here]
        if distribute or weights is not None:
            w = np.ones(n) if weights is None else weights
            w = w[here] * np.where(unknown[here], share[b] if distribute else 1.0, 1.0)
            counts = np.bincount(y[child], weights=w, minlength=n_classes)
        else:
            w = None
            counts = np.bincount(y[child], minlength=n_classes)
        out_rows.append(child)
        out_weights.append(w)
        out_counts.append(counts)
    if sum(r.shape[0] > 0 for r in out_rows) < 2:
        return None
    return out_rows, out_weights, out_counts, rule, None


def _child_orders(node: Node, child_rows: list, mark, left_mask=None) -> list:
    """Each child's presorted orders (None below ``PRESORT_MIN_ROWS`` rows or without
    an order): a stable filter of the parent's, so no child sorts again."""
    m = len(child_rows)
    if node.order is None:
        return [None] * m
    keep = [r.shape[0] >= PRESORT_MIN_ROWS for r in child_rows]
    if m == 2 and child_rows[0].shape[0] + child_rows[1].shape[0] == node.rows.shape[0]:
        # A binary partition: one pass splits every feature's order in two.
        if not any(keep):
            return [None, None]
        if left_mask is not None:  # the partition's own mask: one scatter
            mark[node.rows] = left_mask
        else:
            mark[node.rows] = False
            mark[child_rows[0]] = True
        left, right = split_order(node.order, mark, child_rows[0].shape[0], keep[0], keep[1])
        return [left if keep[0] else None, right if keep[1] else None]
    d = node.order.shape[0]
    out = []
    for b in range(m):  # a loop over branches
        if not keep[b]:
            out.append(None)
            continue
        mark[node.rows] = False
        mark[child_rows[b]] = True
        out.append(node.order[mark[node.order]].reshape(d, -1))
    return out

