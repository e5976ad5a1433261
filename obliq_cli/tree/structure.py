"""One array-based tree for every algorithm.

A fitted tree is a set of parallel arrays indexed by node id, as scikit-learn's ``Tree``
keeps them, extended to oblique splits: every internal node holds a hyperplane
``w . x <= threshold`` (left) / ``> threshold`` (right). An axis-parallel split is the
hyperplane with a single non-zero weight ``w[feature] = 1``; its ``feature`` index is
kept so prediction reads one column instead of a dot product and printing is readable.

Two extensions, both optional (a tree without them is exactly the binary tree above):

* **Nominal (multiway) splits** (Quinlan 1993, ch. 2): a node of ``kind`` NOMINAL tests
  the category code of column ``feature`` and has one child per code 0..m-1. Every
  node's children are listed in a CSR pair ``branch_ptr``/``branch_child`` (branch b of
  node i is ``branch_child[branch_ptr[i] + b]``; a binary node's branches are 0 = left,
  1 = right); ``children_left``/``children_right`` keep the first and the last child, so
  code that only asks "is it a leaf" or "where does its subtree end" reads them as
  before.
* **Missing values** (NaN; for a nominal test also a code outside 0..m-1, "unknown" as
  C4.5 treats an unseen value): per node ``missing`` says where such a row goes: a
  fixed branch b >= 0 (scikit-learn's ``missing_go_to_left``, learned per split),
  MISSING_DISTRIBUTE (C4.5, Quinlan 1993 ch. 3: down every branch with its weight
  multiplied by the branch's share of the node's training weight, ``Items`` of
  ``classify.c``), or MISSING_DEFAULT (the branch that received the most training
  weight, ties to the last branch: scikit-learn's ``n_left > n_right`` rule for a split
  that saw no missing value).

A row that is spread over several branches reaches several leaves with weights summing
to 1; ``predict_proba`` is the weighted sum of those leaves' class distributions and
``predict`` its argmax (Quinlan 1993, ch. 3). A leaf that received no training case (a
category absent from its parent's cases) predicts its nearest non-empty ancestor's
distribution, as C4.5 labels such a leaf with its parent's class.

Nodes are stored in depth-first preorder (a node's first child follows it), so every
child id is larger than its parent's. Predict, apply, size, depth, export and pruning
all read these arrays through one routing step (``Tree._walk``), whatever algorithm
grew the tree, and every branch is decided by ``route``, the rule the builder
partitions by when it grows the tree.

The tree owns its growth, as scikit-learn's ``Tree`` does (``_add_node``, ``_resize``):
``Tree.empty`` makes a tree of no node, ``add_node`` appends one node at a time into
arrays that double when full, and ``trim`` cuts them to the nodes grown. The builder
decides what each node is; the tree keeps it.

The codes stored in the arrays are ``node_codes``'; the text export is ``export``'s and
the ``obliq-tree`` format (to and from plain data, checked as a whole before use) is
``serialize``'s. ``Tree``'s methods of those names call them, and every name this
module gave before they moved is still importable from here.
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import ObliqError
from ..kernels.linalg import rowwise_dot
from . import export, serialize
from .export import Condition, linear_text
from .node_codes import (
    LEAF,
    LINEAR,
    MISSING_DEFAULT,
    MISSING_DISTRIBUTE,
    NOMINAL,
    OBLIQUE,
    binary_branches,
)
from .serialize import MAX_NODES, check_tree_dict

__all__ = [
    "LEAF", "LINEAR", "MISSING_DEFAULT", "MISSING_DISTRIBUTE", "MAX_NODES", "NOMINAL",
    "OBLIQUE", "Condition", "Tree", "check_tree_dict", "go_left", "linear_text",
    "node_class_counts", "route", "weighs_several",
]

INITIAL_CAPACITY = 64
"""Nodes a tree grown by ``add_node`` has room for before its arrays first double."""

_FILL = {"children_left": LEAF, "children_right": LEAF, "feature": LEAF, "weights": 0.0,
         "threshold": 0.0, "value": 0.0, "kind": LINEAR, "missing": MISSING_DEFAULT}
"""Every per-node array and its entry at a node not yet grown (a leaf's entries)."""

_ARRAYS = (*_FILL, "branch_ptr", "branch_child")
"""The public arrays of a tree (the CSR of its branches besides the per-node ones)."""


def go_left(values, threshold):
    """The test of a linear split: a value goes to branch 0 (left) where ``value <=
    threshold``, else to branch 1. ``route``'s rule for known values, written once;
    a caller that has already ruled out NaN (the builder's binary partition) asks this
    directly for the mask."""
    return values <= threshold


def route(values: np.ndarray, threshold, categories=0) -> np.ndarray:
    """The branch every value takes at its split: the one partition rule of obliq.

    ``values`` are the split's values of the rows (``x[feature]`` of an axis-parallel
    or nominal split, ``w . x`` of an oblique one); each layout computes them its own
    way (the builder from its transposed columns or ``rows_matvec``, ``Tree`` from
    rows, all summing in feature order) and all decide here. ``threshold`` and
    ``categories`` are scalars (one split) or arrays aligned with ``values`` (each row
    at its own node). ``categories`` m > 0 makes a nominal test: branch = the code,
    known when it is one of 0..m-1; 0 makes a linear test (``go_left``: 0 left, 1
    right). Unknown values (NaN, or a code outside 0..m-1) get -1, left to the node's
    missing rule (module docstring), which ``Tree._walk`` and the builder's partition
    apply.
    """
    values = np.asarray(values)
    if np.ndim(categories) == 0:
        if categories > 0:
            return _category_branch(values, categories)
        branch = np.where(go_left(values, threshold), 0, 1)
    else:
        branch = np.where(go_left(values, threshold), 0, 1)
        nominal = categories > 0
        if nominal.any():
            branch[nominal] = _category_branch(values[nominal], categories[nominal])
    branch[np.isnan(values)] = -1
    return branch


def weighs_several(weights: np.ndarray, columns=None) -> np.ndarray:
    """Whether each row of ``weights`` (one hyperplane per row) has more than one
    non-zero weight. ``columns`` (the input column each weight's column was derived from,
    e.g. a qualitative column's dummies) counts distinct input columns instead, so a
    split on one column's dummies weighs one column."""
    used = np.asarray(weights) != 0
    if columns is not None:
        columns = np.asarray(columns, dtype=np.int64)
        source = np.zeros((columns.size, int(columns.max()) + 1 if columns.size else 0))
        source[np.arange(columns.size), columns] = 1.0
        used = (used @ source) > 0
    return np.count_nonzero(used, axis=1) > 1


def _category_branch(codes: np.ndarray, categories) -> np.ndarray:
    """A nominal test's branch: the code where it is one of 0..m-1, else -1."""
    known = (codes >= 0) & (codes < categories) & (codes == np.floor(codes))
    return np.where(known, np.where(known, codes, 0).astype(np.int64), -1)


class Tree:
    """A fitted decision tree as parallel arrays.

    Attributes
    ----------
    children_left, children_right : int64 arrays, shape [n_nodes]
        First and last child ids (left and right of a binary node), ``LEAF`` (-1) at
        leaves.
    feature : int64 array, shape [n_nodes]
        Feature index of an axis-parallel or nominal split, ``OBLIQUE`` (-2) for an
        oblique split, ``LEAF`` (-1) at a leaf.
    weights : float64 array, shape [n_nodes, n_features]
        Hyperplane weights (zero rows at leaves; the unit vector of ``feature`` at a
        nominal node).
    threshold : float64 array, shape [n_nodes]
        A row goes left when ``weights[node] . x <= threshold[node]`` (0 at nominal nodes).
    value : float64 array, shape [n_nodes, n_classes]
        Class counts (fractional with distributed missing values) of the growing data
        that reached each node.
    kind : int8 array [n_nodes], LINEAR or NOMINAL (default: all LINEAR).
    branch_ptr, branch_child : the CSR of every node's children (default: from
        ``children_left``/``children_right``).
    missing : int64 array [n_nodes], the missing-value rule of each node (module
        docstring; default MISSING_DEFAULT everywhere).
    """

    def __init__(self, children_left: np.ndarray, children_right: np.ndarray,
                 feature: np.ndarray, weights: np.ndarray, threshold: np.ndarray,
                 value: np.ndarray, kind: np.ndarray | None = None,
                 branch_ptr: np.ndarray | None = None, branch_child: np.ndarray | None = None,
                 missing: np.ndarray | None = None):
        n = children_left.shape[0]
        self.children_left, self.children_right = children_left, children_right
        self.feature, self.weights, self.threshold, self.value = (feature, weights,
                                                                  threshold, value)
        self.kind = np.zeros(n, dtype=np.int8) if kind is None else kind
        if branch_ptr is None or branch_child is None:
            branch_ptr, branch_child = binary_branches(children_left, children_right)
        self.branch_ptr, self.branch_child = branch_ptr, branch_child
        self.missing = np.full(n, MISSING_DEFAULT, dtype=np.int64) if missing is None else missing

    # ---------------------------------------------------------------- growth
    # While the tree grows, ``_store`` holds every array at full capacity and ``_count``
    # the nodes added. The public arrays (views of the store's first ``_count`` entries)
    # are made on the first read after an ``add_node`` (``__getattr__``), not on every
    # add: a builder adds thousands of nodes and reads none of them.
    _store = None
    _count = 0
    _published = True

    @classmethod
    def empty(cls, n_features: int, n_classes: int,
              capacity: int = INITIAL_CAPACITY) -> Tree:
        """A tree of no node with room for ``capacity`` nodes, grown by ``add_node``."""
        tree = cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64),
                   np.zeros((0, n_features)), np.zeros(0), np.zeros((0, n_classes)),
                   np.zeros(0, np.int8), np.zeros(1, np.int64), np.empty(0, np.int64),
                   np.empty(0, np.int64))
        tree._resize(max(int(capacity), 1))
        return tree

    def add_node(self, parent: int, branch: int, value, *, n_branches: int = 0,
                 feature: int = LEAF, threshold: float = 0.0, weights=None,
                 kind: int = LINEAR, missing: int = MISSING_DEFAULT) -> int:
        """Append a node as branch ``branch`` of ``parent`` (-1: the root) and return its
        id, the next in preorder when the caller adds a node's branches depth first.

        ``value`` is its class counts. A leaf takes the defaults; a split gives its
        ``n_branches`` (2 for a linear test, the category count for a nominal one) and its
        test: ``feature`` >= 0 (axis-parallel or nominal: its unit vector becomes the
        node's weights) or ``OBLIQUE`` with ``weights``, ``threshold`` (linear only),
        ``kind`` and the ``missing`` rule. The split's branches are left for the children
        to fill as they are added (``LEAF`` until then). The arrays double when full
        (``_resize``), so growing n nodes copies O(n) entries in all.
        """
        store = self._store
        node = self._count if store is not None else self.n_nodes
        if store is None or node == store["value"].shape[0]:
            self._resize(max(2 * node, INITIAL_CAPACITY))
            store = self._store
        if self._published:
            self._unpublish()
        ptr = store["branch_ptr"]
        end = ptr[node] + n_branches
        if end > store["branch_child"].shape[0]:
            store["branch_child"] = _grown(store["branch_child"], 2 * end, LEAF)
        store["value"][node] = value
        if n_branches:
            store["feature"][node] = feature if feature >= 0 else OBLIQUE
            store["threshold"][node] = threshold
            store["kind"][node] = kind
            store["missing"][node] = missing
            if feature >= 0:
                store["weights"][node, feature] = 1.0
            else:
                store["weights"][node] = weights
        ptr[node + 1] = end
        if parent >= 0:  # children_left/right keep the first and the last branch
            slot = ptr[parent] + branch
            store["branch_child"][slot] = node
            if branch == 0:
                store["children_left"][parent] = node
            if slot == ptr[parent + 1] - 1:
                store["children_right"][parent] = node
        self._count = node + 1
        return node

    def trim(self) -> Tree:
        """Cut the arrays to the nodes grown, each then owning its memory (as
        scikit-learn's builder ends with ``_resize(node_count)``); returns the tree."""
        if self._store is not None:
            for name, array in self._views().items():
                setattr(self, name, array.copy())
            self._store = None
            self._published = True
        return self

    def _resize(self, capacity: int) -> None:
        """Room for ``capacity`` nodes (at least the ones grown): every array copied into
        one of that length, the entries past the nodes those of a leaf."""
        current = self._views() if self._store is not None else {
            name: getattr(self, name) for name in _ARRAYS}
        n = current["children_left"].shape[0]
        capacity = max(capacity, n)
        store = {name: _grown(current[name], capacity, fill) for name, fill in _FILL.items()}
        store["branch_ptr"] = _grown(current["branch_ptr"], capacity + 1, 0)
        store["branch_child"] = _grown(current["branch_child"], 2 * capacity, LEAF)
        self._store, self._count = store, n
        self._publish()

    def _views(self) -> dict:
        """The arrays of the nodes grown, as views of the store."""
        store, n = self._store, self._count
        out = {name: store[name][:n] for name in _FILL}
        out["branch_ptr"] = store["branch_ptr"][:n + 1]
        out["branch_child"] = store["branch_child"][:store["branch_ptr"][n]]
        return out

    def _publish(self) -> None:
        self.__dict__.update(self._views())
        self._published = True

    def _unpublish(self) -> None:
        for name in _ARRAYS:
            self.__dict__.pop(name, None)
        self._published = False

    def __getattr__(self, name):
        # Reached only for a name the instance lacks: a public array of a tree that has
        # grown since it was last read.
        if name in _ARRAYS and self.__dict__.get("_store") is not None:
            self._publish()
            return self.__dict__[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # ------------------------------------------------------------------ sizes
    @property
    def n_nodes(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.weights.shape[1])

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[1])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == LEAF

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.is_leaf))

    @property
    def n_internal(self) -> int:
        return self.n_nodes - self.n_leaves

    @property
    def n_branches(self) -> np.ndarray:
        """Number of children of every node (0 at leaves, 2 at a binary node)."""
        return np.diff(self.branch_ptr)

    @property
    def has_extensions(self) -> bool:
        """Whether the tree uses a nominal split or a non-default missing rule."""
        return bool((self.kind != LINEAR).any() or (self.missing != MISSING_DEFAULT).any())

    def hyperplane(self, node: int) -> tuple[np.ndarray, float]:
        """``(weights, threshold)`` of internal linear ``node``: a row ``x`` (in the
        columns the tree reads) goes left iff ``weights . x <= threshold`` (``route``),
        summed in feature order as ``branch_of`` sums it. ``weights`` is a copy with
        ``n_features`` entries (an axis-parallel split's is the unit vector of its
        feature). ObliqError for a leaf or a nominal (multiway) node, which have none."""
        node = int(node)
        if not 0 <= node < self.n_nodes:
            raise ObliqError(f"node {node} is not a node of this tree (0..{self.n_nodes - 1})")
        if self.is_leaf[node]:
            raise ObliqError(f"node {node} is a leaf: it has no hyperplane")
        if self.kind[node] == NOMINAL:
            raise ObliqError(f"node {node} is a multiway test of feature "
                             f"{int(self.feature[node])}'s categories, not a hyperplane")
        return self.weights[node].copy(), float(self.threshold[node])

    def oblique_nodes(self, columns=None) -> np.ndarray:
        """Whether each node is a linear split with more than one non-zero weight: an
        oblique split in fact, whatever search proposed it (``columns`` as
        ``weighs_several``)."""
        split = ~self.is_leaf & (self.kind == LINEAR)
        return split & weighs_several(self.weights, columns)

    def children(self, node: int) -> np.ndarray:
        """Child ids of ``node`` in branch order (empty at a leaf)."""
        return self.branch_child[self.branch_ptr[node]:self.branch_ptr[node + 1]]

    def parent(self) -> np.ndarray:
        """Parent id of every node (-1 at the root)."""
        parent = np.full(self.n_nodes, -1, dtype=np.int64)
        parent[self.branch_child] = np.repeat(np.arange(self.n_nodes), self.n_branches)
        return parent

    @property
    def node_depth(self) -> np.ndarray:
        """Depth of every node (root = 0), from the preorder layout in one pass."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        parent = self.parent()
        # Parents precede children in preorder, so one sweep in id order suffices;
        # the loop is over nodes, not samples.
        for node in range(1, self.n_nodes):
            depth[node] = depth[parent[node]] + 1
        return depth

    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf; a single-leaf tree has depth 0 (scikit-learn's)."""
        return int(self.node_depth.max())

    # ------------------------------------------------------------ routing
    def branch_of(self, X: np.ndarray, rows: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """The branch each row ``X[rows[i]]`` takes at internal node ``nodes[i]``
        (``route``); -1 where its value is unknown there (NaN, or a code outside 0..m-1
        at a nominal node), left to the node's ``missing`` rule."""
        feat = self.feature[nodes]
        axis = feat >= 0
        projection = np.empty(nodes.shape[0], dtype=np.float64)
        if axis.any():
            projection[axis] = X[rows[axis], feat[axis]]
        if not axis.all():
            oblique = ~axis
            # summed in feature order, exactly as the builder's partition (split_values)
            projection[oblique] = rowwise_dot(np.ascontiguousarray(X[rows[oblique]]),
                                              self.weights[nodes[oblique]])
        nominal = self.kind[nodes] == NOMINAL
        categories = 0
        if nominal.any():
            categories = np.where(nominal, self.n_branches[nodes], 0)
        return route(projection, self.threshold[nodes], categories)

    def branch_fractions(self) -> np.ndarray:
        """Share of its node's training weight each branch received (aligned with
        ``branch_child``): the weights of C4.5's distribution (``classify.c``)."""
        got = self.value[self.branch_child].sum(axis=1)
        parent = np.repeat(np.arange(self.n_nodes), self.n_branches)
        total = np.bincount(parent, weights=got, minlength=self.n_nodes)
        nb = self.n_branches
        even = 1.0 / np.where(nb > 0, nb, 1)
        return np.where(total[parent] > 0, got / np.where(total[parent] > 0, total[parent], 1),
                        even[parent])

    def missing_branch(self) -> np.ndarray:
        """Every node's missing rule with MISSING_DEFAULT resolved to its branch: the
        one with the most training weight, ties to the last (as scikit-learn sends
        missing values right unless ``n_left > n_right``)."""
        rule = self.missing.copy()
        default = (rule == MISSING_DEFAULT) & ~self.is_leaf
        if default.any():
            heaviest = self._argmax_branch(self.value[self.branch_child].sum(axis=1), last=True)
            rule[default] = heaviest[default]
        return rule

    def _argmax_branch(self, per_branch: np.ndarray, last: bool) -> np.ndarray:
        """Per node the branch of largest ``per_branch`` value (aligned with
        ``branch_child``), ties to the last or the first branch; 0 at leaves."""
        out = np.zeros(self.n_nodes, dtype=np.int64)
        internal = np.flatnonzero(~self.is_leaf)
        if internal.size == 0:
            return out
        starts = self.branch_ptr[internal]
        parent = np.repeat(np.arange(self.n_nodes), self.n_branches)
        local = np.arange(parent.size) - self.branch_ptr[parent]
        top = np.full(self.n_nodes, -np.inf)
        top[internal] = np.maximum.reduceat(per_branch, starts)
        at_top = per_branch == top[parent]
        if last:
            out[internal] = np.maximum.reduceat(np.where(at_top, local, -1), starts)
        else:
            big = np.iinfo(np.int64).max
            out[internal] = np.minimum.reduceat(np.where(at_top, local, big), starts)
        return out

    def _walk(self, X, rows=None, weight=None, start: int = 0, spread: bool = True,
              data_fractions: bool = False, branch_child=None, is_leaf=None):
        """Send rows down from ``start``; yields ``(rows, nodes, weights)`` for the
        entries arriving at each level (``weights`` None while every entry weighs 1).

        Rows travel level by level together, so the Python loop runs once per level,
        never per sample. At a distributing node an unknown row is replaced by one
        entry per branch (``spread``; otherwise it takes the heaviest branch). Its
        weights are the tree's branch shares, or with ``data_fractions`` the shares of
        the known weight of the entries arriving at that node now (C4.5's pruner, which
        redistributes its cases, ``prune.c``), the tree's where none is known.
        ``branch_child``/``is_leaf`` override the tree's (a pruner's working copy).
        """
        X = np.asarray(X, dtype=np.float64)
        child = self.branch_child if branch_child is None else branch_child
        leaf = self.is_leaf if is_leaf is None else is_leaf
        ptr, nb = self.branch_ptr, self.n_branches
        rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
        nodes = np.full(rows.shape[0], start, dtype=np.int64)
        w = None if weight is None else np.asarray(weight, dtype=np.float64)
        rule = fractions = heaviest = None
        while rows.size:
            yield rows, nodes, w
            going = ~leaf[nodes]
            rows, nodes = rows[going], nodes[going]
            w = None if w is None else w[going]
            if not rows.size:
                break
            branch = self.branch_of(X, rows, nodes)
            unknown = np.flatnonzero(branch < 0)
            spread_rows = spread_nodes = spread_w = None
            if unknown.size:
                if rule is None:
                    rule, fractions = self.missing_branch(), self.branch_fractions()
                r = rule[nodes[unknown]]
                if not spread:  # heaviest branch, ties to the first
                    if heaviest is None:
                        heaviest = self._argmax_branch(fractions, last=False)
                    r = np.where(r == MISSING_DISTRIBUTE, heaviest[nodes[unknown]], r)
                branch[unknown] = np.maximum(r, 0)
                many = unknown[r == MISSING_DISTRIBUTE]
                if many.size:
                    share = fractions
                    if data_fractions:
                        share = self._data_shares(rows, nodes, w, branch, many, fractions)
                    at = nodes[many]
                    rep = np.repeat(np.arange(many.size), nb[at])
                    first = np.repeat(ptr[at], nb[at])
                    slot = first + np.arange(rep.size) - np.repeat(np.cumsum(nb[at]) - nb[at],
                                                                   nb[at])
                    base = np.ones(many.size) if w is None else w[many]
                    spread_w = base[rep] * share[slot]
                    kept = spread_w > 0
                    spread_rows = rows[many][rep][kept]
                    spread_nodes = child[slot][kept]
                    spread_w = spread_w[kept]
                    single = np.ones(rows.size, dtype=bool)
                    single[many] = False
                    rows, nodes, branch = rows[single], nodes[single], branch[single]
                    w = np.ones(rows.size) if w is None else w[single]
            nodes = child[ptr[nodes] + branch]
            if spread_rows is not None:
                rows = np.concatenate([rows, spread_rows])
                nodes = np.concatenate([nodes, spread_nodes])
                w = np.concatenate([w, spread_w])

    def _data_shares(self, rows, nodes, w, branch, many, fractions):
        """Branch shares of the known weight of the entries now at each node (aligned
        with ``branch_child``; the tree's ``fractions`` where a node has none known)."""
        known = np.ones(rows.size, dtype=bool)
        known[many] = False
        known &= self.missing[nodes] == MISSING_DISTRIBUTE
        slot = self.branch_ptr[nodes[known]] + branch[known]
        kw = None if w is None else w[known]
        got = np.bincount(slot, weights=kw, minlength=self.branch_child.size).astype(float)
        parent = np.repeat(np.arange(self.n_nodes), self.n_branches)
        total = np.bincount(parent, weights=got, minlength=self.n_nodes)[parent]
        return np.where(total > 0, got / np.where(total > 0, total, 1.0), fractions)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf id reached by every row of ``X`` (one leaf per row: a row with an
        unknown value at a distributing node follows its heaviest branch there; predict
        and predict_proba use every branch)."""
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros(X.shape[0], dtype=np.int64)
        leaf = self.is_leaf
        for rows, nodes, _ in self._walk(X, spread=False):
            at = leaf[nodes]
            out[rows[at]] = nodes[at]
        return out

    def effective_value(self) -> np.ndarray:
        """``value`` with every node that received no training weight given its nearest
        non-empty ancestor's counts (what such a leaf predicts)."""
        value = self.value
        empty = np.flatnonzero(value.sum(axis=1) <= 0)
        if empty.size == 0:
            return value
        value = value.copy()
        parent = self.parent()
        for node in empty:  # parents first (preorder); a loop over empty nodes
            if parent[node] >= 0:
                value[node] = value[parent[node]]
        return value

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class frequencies of the leaf each row reaches (columns = class codes); a row
        spread over several leaves gets the weighted sum of their frequencies."""
        X = np.asarray(X, dtype=np.float64)
        value = self.effective_value()
        totals = value.sum(axis=1, keepdims=True)
        dist = value / np.where(totals > 0, totals, 1.0)
        leaf = self.is_leaf
        proba = np.zeros((X.shape[0], self.n_classes))
        for rows, nodes, w in self._walk(X):
            at = leaf[nodes]
            if w is None:  # one entry per row so far: each row reaches one leaf
                proba[rows[at]] = dist[nodes[at]]
            else:
                np.add.at(proba, rows[at], w[at, None] * dist[nodes[at]])
        return proba

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class code of largest (weighted) leaf frequency per row (ties to the lowest)."""
        return np.argmax(self.predict_proba(X), axis=1)

    def leaf_classes(self) -> np.ndarray:
        """Majority class code of every node, as if it were a leaf (an empty node's is
        its nearest non-empty ancestor's)."""
        return np.argmax(self.effective_value(), axis=1)

    # ------------------------------------------------------------- structure
    def subtree_nodes(self, node: int) -> np.ndarray:
        """Ids of ``node`` and all its descendants (contiguous in preorder)."""
        return np.arange(node, self._subtree_end()[node])

    def _subtree_end(self) -> np.ndarray:
        """One past the last preorder id of every node's subtree."""
        end = np.arange(1, self.n_nodes + 1)
        # Children have larger ids, so a reverse sweep sees them first; a subtree ends
        # where its last child's does.
        for node in np.flatnonzero(~self.is_leaf)[::-1]:
            end[node] = end[self.children_right[node]]
        return end

    def collapse(self, nodes) -> Tree:
        """A new tree in which each node of ``nodes`` becomes a leaf (its subtree removed).

        This is the pruning primitive shared by every pruner.
        """
        keep = np.ones(self.n_nodes, dtype=bool)
        make_leaf = np.zeros(self.n_nodes, dtype=bool)
        end = self._subtree_end()
        for node in np.atleast_1d(np.asarray(nodes, dtype=np.int64)):
            if self.children_left[node] != LEAF:
                keep[node + 1 : end[node]] = False
                make_leaf[node] = True
        make_leaf &= keep
        return self._select(keep, make_leaf)

    def _select(self, keep: np.ndarray, make_leaf: np.ndarray) -> Tree:
        """The tree of the nodes ``keep`` (a preorder-closed set), ``make_leaf`` of them
        turned into leaves; ids renumbered in order."""
        new_id = np.cumsum(keep) - 1
        left = self.children_left.copy()
        right = self.children_right.copy()
        feature = self.feature.copy()
        weights = self.weights.copy()
        threshold = self.threshold.copy()
        kind = self.kind.copy()
        missing = self.missing.copy()
        left[make_leaf] = LEAF
        right[make_leaf] = LEAF
        feature[make_leaf] = LEAF
        weights[make_leaf] = 0.0
        threshold[make_leaf] = 0.0
        kind[make_leaf] = LINEAR
        missing[make_leaf] = MISSING_DEFAULT
        internal = left != LEAF
        left[internal] = new_id[left[internal]]
        right[internal] = new_id[right[internal]]
        parent = np.repeat(np.arange(self.n_nodes), self.n_branches)
        stays = keep[parent] & ~make_leaf[parent]
        nb = np.where(keep & ~make_leaf, self.n_branches, 0)[keep]
        ptr = np.zeros(nb.size + 1, dtype=np.int64)
        np.cumsum(nb, out=ptr[1:])
        return Tree(
            left[keep], right[keep], feature[keep], weights[keep], threshold[keep],
            self.value[keep].copy(), kind[keep], ptr, new_id[self.branch_child[stays]],
            missing[keep],
        )


    # ---------------------------------------------------- export and serialisation
    def to_dict(self) -> dict:
        """Plain data (lists) for JSON (``serialize.tree_to_dict``); ``Tree.from_dict``
        inverts it exactly."""
        return serialize.tree_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict, where: str = "tree") -> Tree:
        """The tree of ``to_dict``'s data, checked as a whole first (``check_tree_dict``:
        an ObliqError naming ``where`` and the field for anything else)."""
        return cls(**check_tree_dict(data, where))

    def to_json(self) -> str:
        # repr-exact floats: json writes the shortest string that round-trips.
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Tree:
        return cls.from_dict(json.loads(text))

    def rules(self) -> list[tuple[list[Condition], int]]:
        """Every leaf as (conditions, node id), leaves in preorder (``export.rules``)."""
        return export.rules(self)

    def hyperplane_text(self, node: int, feature_names=None, digits: int = 4,
                        negligible: float = 1e-4, terms: int | None = None,
                        scale=None) -> str:
        """``w . x`` of a node as text, e.g. ``x3`` or ``-2*dose + 0.5*age``; ``terms`` =
        k shows the k largest terms and counts the rest (``export.hyperplane_text``)."""
        return export.hyperplane_text(self, node, feature_names, digits, negligible, terms,
                                      scale)

    def to_text(self, feature_names=None, class_names=None, digits: int = 4,
                category_names=None, terms: int | None = None, scale=None) -> str:
        """The tree as indented readable rules, one line per node (``export.tree_text``)."""
        return export.tree_text(self, feature_names, class_names, digits, category_names,
                                terms, scale)


def node_class_counts(tree: Tree, X: np.ndarray, y: np.ndarray,
                      data_fractions: bool = False, sample_weight=None) -> np.ndarray:
    """How many rows of each class reach each node, shape [n_nodes, n_classes + 1].

    ``y`` holds class codes; rows with code -1 (a label the tree never saw) count
    toward no class (the last column) but still travel. Used to score every pruned
    subtree on held-out data from one pass: a subtree's errors are the sums over its
    leaves of ``reach - counts[node, majority]``. Rows with an unknown value at a
    distributing node count fractionally (float64 counts); otherwise the counts are
    int64. ``data_fractions``: spread by the shares of the rows themselves (``_walk``).
    ``sample_weight`` (one per row, or None): each row counts its weight (float64 counts).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    k = tree.n_classes
    y_slot = np.where(y >= 0, y, k)  # unseen labels go to an extra column
    counts = np.zeros(tree.n_nodes * (k + 1), dtype=np.float64)
    spread = sample_weight is not None
    for rows, nodes, w in tree._walk(X, weight=sample_weight, data_fractions=data_fractions):
        spread = spread or w is not None
        counts += np.bincount(nodes * (k + 1) + y_slot[rows], weights=w,
                              minlength=counts.size)
    counts = counts.reshape(tree.n_nodes, k + 1)
    return counts if spread else counts.astype(np.int64)


def _grown(array: np.ndarray, length: int, fill) -> np.ndarray:
    """``array`` in one of ``length`` entries (at least its own), the new ones ``fill``."""
    out = np.full((max(length, array.shape[0]),) + array.shape[1:], fill, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out
