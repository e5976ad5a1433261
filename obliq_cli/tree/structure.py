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
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import ObliqError
from ..kernels.linalg import rowwise_dot

LEAF = -1
"""Value of ``children_left``/``children_right`` and of ``feature`` at a leaf."""

OBLIQUE = -2
"""Value of ``feature`` at an internal node whose hyperplane has several weights."""

LINEAR = 0
"""``kind`` of a binary node ``w . x <= threshold`` (axis-parallel or oblique)."""

NOMINAL = 1
"""``kind`` of a multiway node: one branch per category code of column ``feature``."""

MISSING_DEFAULT = -2
"""``missing`` rule: the branch with the most training weight (ties to the last)."""

MISSING_DISTRIBUTE = -1
"""``missing`` rule: down every branch, weighted by its share of the training weight."""


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


def _category_branch(codes: np.ndarray, categories) -> np.ndarray:
    """A nominal test's branch: the code where it is one of 0..m-1, else -1."""
    known = (codes >= 0) & (codes < categories) & (codes == np.floor(codes))
    return np.where(known, np.where(known, codes, 0).astype(np.int64), -1)


def linear_text(w, names, digits: int = 4, negligible: float = 1e-4) -> str:
    """``w . x`` as text: the terms largest coefficient first, those below ``negligible``
    times the largest left out (numerical dust of a search, not part of the rule a
    reader wants), signs written as ``a - b``; ``"0"`` when every coefficient is 0."""
    w = np.asarray(w, dtype=np.float64)
    size = np.abs(w)
    largest = size.max() if size.size else 0.0
    if largest == 0.0:
        return "0"
    keep = np.flatnonzero(size >= negligible * largest)
    order = keep[np.argsort(-size[keep], kind="stable")]  # ties keep feature order
    text = " ".join(f"{'-' if w[i] < 0 else '+'} {size[i]:.{digits}g}*{names[i]}"
                    for i in order)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


class Condition(NamedTuple):
    """One test on the path to a leaf (``Tree.rules``).

    ``test`` is ``"<="`` or ``">"`` for a linear node (``weights . x`` against
    ``threshold``) or ``"=="`` for a nominal node (column ``feature`` equals the code
    ``threshold``; ``weights`` is that column's unit vector). ``missing`` True means the
    branch also takes the rows whose value is unknown there (a fixed missing branch); at a
    distributing node an unknown row follows no single rule (it is spread over all).
    """

    weights: np.ndarray
    threshold: float
    test: str
    feature: int = LEAF
    missing: bool = False


def _binary_branches(children_left: np.ndarray, children_right: np.ndarray):
    """The CSR children of a tree whose internal nodes are all binary."""
    internal = children_left != LEAF
    ptr = np.zeros(children_left.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.where(internal, 2, 0), out=ptr[1:])
    child = np.column_stack([children_left[internal], children_right[internal]]).ravel()
    return ptr, child.astype(np.int64)


@dataclass(eq=False)
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

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    weights: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    kind: np.ndarray | None = None
    branch_ptr: np.ndarray | None = None
    branch_child: np.ndarray | None = None
    missing: np.ndarray | None = None

    def __post_init__(self):
        n = self.children_left.shape[0]
        if self.kind is None:
            self.kind = np.zeros(n, dtype=np.int8)
        if self.branch_ptr is None or self.branch_child is None:
            self.branch_ptr, self.branch_child = _binary_branches(self.children_left,
                                                                  self.children_right)
        if self.missing is None:
            self.missing = np.full(n, MISSING_DEFAULT, dtype=np.int64)

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

    # ----------------------------------------------------------------- export
    def to_dict(self) -> dict:
        """Plain data (lists) for JSON; ``Tree.from_dict`` inverts it exactly. The
        fields of the extensions are written only when the tree uses them, so a binary
        tree's JSON is the ``obliq-tree/1`` of old."""
        out = {
            "format": "obliq-tree/1",
            "children_left": self.children_left.tolist(),
            "children_right": self.children_right.tolist(),
            "feature": self.feature.tolist(),
            "weights": self.weights.tolist(),
            # +inf (scikit-learn's "every known value left, the missing ones right") is
            # written as the largest float: the same test for every finite input, and
            # strict JSON
            "threshold": np.minimum(self.threshold, np.finfo(np.float64).max).tolist(),
            "value": self.value.tolist(),
        }
        if (self.kind != LINEAR).any():
            out["format"] = "obliq-tree/2"
            out["kind"] = self.kind.tolist()
            out["branch_ptr"] = self.branch_ptr.tolist()
            out["branch_child"] = self.branch_child.tolist()
        if (self.missing != MISSING_DEFAULT).any():
            out["format"] = "obliq-tree/2"
            out["missing"] = self.missing.tolist()
        return out

    @classmethod
    def from_dict(cls, data: dict, where: str = "tree") -> Tree:
        """The tree of ``to_dict``'s data, checked as a whole first (``check_tree_dict``:
        an ObliqError naming ``where`` and the field for anything else)."""
        a = check_tree_dict(data, where)
        return cls(a["children_left"], a["children_right"], a["feature"], a["weights"],
                   a["threshold"], a["value"], a["kind"], a["branch_ptr"],
                   a["branch_child"], a["missing"])

    def to_json(self) -> str:
        # repr-exact floats: json writes the shortest string that round-trips.
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Tree:
        return cls.from_dict(json.loads(text))

    def _conditions(self, node: int, rule: int) -> list[Condition]:
        """The condition of each branch of internal ``node`` (``rule`` its resolved
        missing rule)."""
        w, t, f = self.weights[node], float(self.threshold[node]), int(self.feature[node])
        if self.kind[node] == NOMINAL:
            return [Condition(w, float(v), "==", f, rule == v)
                    for v in range(int(self.n_branches[node]))]
        return [Condition(w, t, "<=", f, rule == 0), Condition(w, t, ">", f, rule == 1)]

    def rules(self) -> list[tuple[list[Condition], int]]:
        """Every leaf as (conditions, node id), leaves in preorder; see ``Condition``.

        A row whose values are all known satisfies the conditions of exactly one leaf.
        """
        rule = self.missing_branch()
        out = []
        stack: list[tuple[int, list]] = [(0, [])]
        while stack:
            node, conds = stack.pop()
            if self.children_left[node] == LEAF:
                out.append((conds, node))
                continue
            branch = list(zip(self.children(node).tolist(), self._conditions(node, rule[node])))
            for child, cond in branch[::-1]:
                stack.append((child, conds + [cond]))
        return out

    def hyperplane_text(self, node: int, feature_names=None, digits: int = 4,
                        negligible: float = 1e-4) -> str:
        """``w . x`` of a node as text, e.g. ``x3`` or ``-2*dose + 0.5*age``.

        An oblique node lists its terms largest coefficient first and leaves out those
        below ``negligible`` times the largest (a coefficient of 1e-06 beside ones of
        order 1 is numerical dust of the search, not part of the rule a reader wants);
        the stored hyperplane, which predicts, keeps every coefficient."""
        names = feature_names if feature_names is not None else [
            f"x{i + 1}" for i in range(self.n_features)]
        if self.feature[node] >= 0:
            return str(names[self.feature[node]])
        return linear_text(self.weights[node], names, digits, negligible)

    def to_text(self, feature_names=None, class_names=None, digits: int = 4,
                category_names=None) -> str:
        """The tree as indented readable rules, one line per node.

        A nominal node shows one line per branch, ``outlook = sunny``, the category
        names read from ``category_names`` (feature index -> list of names by code; the
        code itself when absent). A branch that takes the rows with an unknown value by
        a learned (explicit) rule says ``or missing``; the default rule and C4.5's
        distribution are not printed."""
        classes = class_names if class_names is not None else list(range(self.n_classes))
        categories = category_names or {}
        effective = self.effective_value()
        lines = []
        stack: list[tuple[int, int, str]] = [(0, 0, "")]
        while stack:
            node, level, prefix = stack.pop()
            pad = "|   " * level
            counts = ", ".join(f"{c:g}" for c in self.value[node])
            if self.children_left[node] == LEAF:
                label = classes[int(np.argmax(effective[node]))]
                lines.append(f"{pad}{prefix}class {label} [{counts}]")
                continue
            # An internal node's line carries the condition that leads to it.
            lines.append(f"{pad}{prefix}[{counts}]" if prefix else f"root [{counts}]")
            lhs = self.hyperplane_text(node, feature_names, digits)
            explicit = int(self.missing[node])
            texts = []
            if self.kind[node] == NOMINAL:
                names = categories.get(int(self.feature[node]))
                for v in range(int(self.n_branches[node])):
                    texts.append(f"{lhs} = {names[v] if names is not None else v}")
            else:
                t = f"{self.threshold[node] + 0.0:.{digits}g}"  # -0.0 prints as 0
                texts = [f"{lhs} <= {t}", f"{lhs} > {t}"]
            for b, (child, text) in reversed(list(enumerate(zip(self.children(node), texts)))):
                extra = " or missing" if explicit == b else ""
                stack.append((int(child), level + 1, f"{text}{extra}: "))
        return "\n".join(lines)


# ------------------------------------------------------------- checking stored trees
MAX_NODES = 10_000_000
"""More nodes than any tree obliq grows on a million rows; a stored tree beyond it is
refused before arrays are built from it."""


def _shown(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _type_name(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "an integer", float: "a number"}.get(type(value),
                                                                         type(value).__name__)


def _fail(field: str, message: str):
    raise ObliqError(f"{field}: {message}")


def _int_list(data: dict, key: str, where: str, n: int | None) -> np.ndarray:
    """``data[key]`` as int64: a list of JSON integers (``n`` of them unless None)."""
    field = f"{where}.{key}"
    values = data.get(key)
    if not isinstance(values, list):
        _fail(field, f"must be a list of integers (got {_type_name(values)})")
    if n is not None and len(values) != n:
        _fail(field, f"has {len(values)} entries for a tree of {n} nodes")
    for i, v in enumerate(values):  # a loop over nodes, once per load
        if type(v) is not int or not -2**62 < v < 2**62:
            _fail(f"{field}[{i}]", f"{_shown(v)} is not an integer in range")
    return np.asarray(values, dtype=np.int64).reshape(len(values))


def _float_array(data: dict, key: str, where: str, shape: tuple) -> np.ndarray:
    """``data[key]`` as a finite float64 array of ``shape`` (None: any length there)."""
    field = f"{where}.{key}"
    values = data.get(key)
    if not isinstance(values, list):
        _fail(field, f"must be a list of numbers (got {_type_name(values)})")
    if len(values) != shape[0]:
        _fail(field, f"has {len(values)} entries for a tree of {shape[0]} nodes")
    if len(shape) == 2:
        for i, row in enumerate(values):
            if not isinstance(row, list):
                _fail(f"{field}[{i}]", f"must be a list of numbers (got {_type_name(row)})")
            if len(row) != shape[1]:
                _fail(f"{field}[{i}]", f"has {len(row)} entries where {field}[0] has "
                      f"{shape[1]}")
    try:
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):  # refused below, entry by entry
        array = np.empty(0, dtype=object)
    if array.dtype.kind not in "if" or array.shape != shape:
        flat = values if len(shape) == 1 else [v for row in values for v in row]
        for i, v in enumerate(flat):
            at = f"[{i}]" if len(shape) == 1 else f"[{i // shape[1]}][{i % shape[1]}]"
            if type(v) not in (int, float):
                _fail(field + at, f"{_shown(v)} is not a number")
            if type(v) is int and abs(v) > 2**1023:
                _fail(field + at, f"{_shown(v)} is not a finite number")
    array = array.astype(np.float64) if array.dtype.kind in "if" else np.asarray(
        values, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        at = "".join(f"[{i}]" for i in bad[0])
        _fail(field + at, f"{array[tuple(bad[0])]} is not a finite number")
    return array


def check_tree_dict(data, where: str = "tree") -> dict:
    """The arrays of a stored tree (``Tree.to_dict``) after checking them as a whole;
    an ObliqError naming the field (``where``.key[i]) for anything that is not a tree
    obliq could have written: wrong types or lengths, a child that is no node, a node
    reached twice or never (a cycle, a shared child), nodes out of preorder, a feature
    index past the weights' columns, NaN or infinite numbers, a missing-value rule that
    names no branch. Predicting with such arrays would loop, fail deep inside numpy, or
    answer from a tree that is not the one fitted."""
    if not isinstance(data, dict):
        _fail(where, f"must be an object (got {_type_name(data)})")
    fmt = data.get("format", "obliq-tree/1")
    if fmt not in ("obliq-tree/1", "obliq-tree/2"):
        _fail(f"{where}.format", f"{_shown(fmt)} is not obliq-tree/1 or obliq-tree/2")
    raw = data.get("children_left")
    if not isinstance(raw, list) or not raw:
        _fail(f"{where}.children_left", "must be a non-empty list of integers (got "
              f"{'an empty list' if raw == [] else _type_name(raw)})")
    n = len(raw)
    if n > MAX_NODES:
        _fail(f"{where}.children_left", f"{n} nodes, more than {MAX_NODES}")
    left = _int_list(data, "children_left", where, n)
    right = _int_list(data, "children_right", where, n)
    feature = _int_list(data, "feature", where, n)
    rows = data.get("weights")
    first = rows[0] if isinstance(rows, list) and rows else None
    if not isinstance(first, list) or not first:
        _fail(f"{where}.weights[0]", "must be a non-empty list of numbers (got "
              f"{'an empty list' if first == [] else _type_name(first)})")
    d = len(first)
    weights = _float_array(data, "weights", where, (n, d))
    threshold = _float_array(data, "threshold", where, (n,))
    vrows = data.get("value")
    vfirst = vrows[0] if isinstance(vrows, list) and vrows else None
    if not isinstance(vfirst, list) or not vfirst:
        _fail(f"{where}.value[0]", "must be a non-empty list of class counts (got "
              f"{'an empty list' if vfirst == [] else _type_name(vfirst)})")
    value = _float_array(data, "value", where, (n, len(vfirst)))
    negative = np.argwhere(value < 0)
    if negative.size:
        i, j = negative[0]
        _fail(f"{where}.value[{i}][{j}]", f"{value[i, j]} is not a class count (negative)")

    for key, child in (("children_left", left), ("children_right", right)):
        bad = np.flatnonzero((child != LEAF) & ((child < 0) | (child >= n)))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.{key}[{i}]", f"{child[i]} is not a node (the tree has {n})")
    odd = np.flatnonzero((left == LEAF) != (right == LEAF))
    if odd.size:
        i = odd[0]
        _fail(f"{where}.children_left[{i}]", f"{left[i]} with children_right {right[i]}: "
              "a node is a leaf on both sides or on neither")
    leaf = left == LEAF

    kind = _int_list(data, "kind", where, n) if "kind" in data else np.zeros(n, np.int64)
    bad = np.flatnonzero((kind != LINEAR) & (kind != NOMINAL))
    if bad.size:
        _fail(f"{where}.kind[{bad[0]}]", f"{kind[bad[0]]} is not {LINEAR} (linear) or "
              f"{NOMINAL} (nominal)")
    bad = np.flatnonzero(leaf & (kind != LINEAR))
    if bad.size:
        _fail(f"{where}.kind[{bad[0]}]", "a leaf cannot be a nominal split")

    if ("branch_ptr" in data) != ("branch_child" in data):
        _fail(f"{where}.{'branch_child' if 'branch_ptr' in data else 'branch_ptr'}",
              "missing (branch_ptr and branch_child come together)")
    if "branch_ptr" in data:
        ptr = _int_list(data, "branch_ptr", where, None)
        if ptr.size != n + 1:
            _fail(f"{where}.branch_ptr", f"has {ptr.size} entries for a tree of {n} nodes "
                  f"(needs {n + 1})")
        child = _int_list(data, "branch_child", where, None)
        if ptr[0] != 0:
            _fail(f"{where}.branch_ptr[0]", f"{ptr[0]} is not 0")
        down = np.flatnonzero(np.diff(ptr) < 0)
        if down.size:
            i = down[0] + 1
            _fail(f"{where}.branch_ptr[{i}]", f"{ptr[i]} is below branch_ptr[{i - 1}] "
                  f"({ptr[i - 1]})")
        if ptr[-1] != child.size:
            _fail(f"{where}.branch_ptr[{n}]", f"{ptr[-1]} is not the length of branch_child "
                  f"({child.size})")
        bad = np.flatnonzero((child < 0) | (child >= n))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.branch_child[{i}]", f"{child[i]} is not a node (the tree has {n})")
    else:
        if (kind == NOMINAL).any():
            _fail(f"{where}.branch_ptr", "missing (a nominal split lists its children there)")
        ptr, child = _binary_branches(left, right)
    nb = np.diff(ptr)
    for bad, message in (
            (np.flatnonzero(leaf & (nb != 0)), "branches at a leaf"),
            (np.flatnonzero(~leaf & (nb < 2)), "branches at a split (it needs 2 or more)"),
            (np.flatnonzero((kind == LINEAR) & ~leaf & (nb != 2)),
             "branches at a linear split (it has 2)")):
        if bad.size:
            i = bad[0]
            _fail(f"{where}.branch_ptr[{i}]", f"node {i} has {nb[i]} {message}")
    internal = np.flatnonzero(~leaf)
    firsts, lasts = child[ptr[internal]], child[ptr[internal + 1] - 1]
    for key, side, ends in (("children_left", left, firsts), ("children_right", right, lasts)):
        bad = np.flatnonzero(side[internal] != ends)
        if bad.size:
            i = internal[bad[0]]
            _fail(f"{where}.{key}[{i}]", f"{side[i]} is not node {i}'s "
                  f"{'first' if key == 'children_left' else 'last'} branch in branch_child "
                  f"({ends[bad[0]]})")
    # A tree rooted at 0 in preorder: every child follows its parent (no cycle), the
    # first child right after it, each next child where its elder sibling's subtree
    # ends, and the root's subtree is every node (each reached exactly once).
    parent = np.repeat(np.arange(n), nb)
    bad = np.flatnonzero(child <= parent)
    if bad.size:
        b = bad[0]
        _fail(f"{where}.branch_child[{b}]" if "branch_ptr" in data
              else f"{where}.children_{'left' if left[parent[b]] == child[b] else 'right'}"
              f"[{parent[b]}]",
              f"{child[b]} does not come after its parent {parent[b]} (a cycle, or nodes "
              "out of preorder)")
    seen = np.bincount(child, minlength=n)
    twice = np.flatnonzero(seen > 1)
    if twice.size:
        c = twice[0]
        parents = parent[child == c][:2].tolist()
        _fail(f"{where}.branch_child" if "branch_ptr" in data else f"{where}.children_left",
              f"node {c} is a child of nodes {parents[0]} and {parents[1]} (a tree reaches "
              "each node once)")
    end = np.arange(1, n + 1)
    for i in internal[::-1]:  # a loop over splits, children (larger ids) first
        kids = child[ptr[i]:ptr[i + 1]]
        expected = i + 1
        for kid in kids:
            if kid != expected:
                _fail(f"{where}.branch_child" if "branch_ptr" in data
                      else f"{where}.children_{'left' if kid == left[i] else 'right'}[{i}]",
                      f"node {i}'s child {kid} is not where preorder puts it (node "
                      f"{expected})")
            expected = end[kid]
        end[i] = expected
    if end[0] != n:
        _fail(f"{where}.children_left", f"the tree from node 0 reaches {end[0]} of its {n} "
              "nodes")

    bad = np.flatnonzero(leaf & (feature != LEAF))
    if bad.size:
        i = bad[0]
        _fail(f"{where}.feature[{i}]", f"{feature[i]} at a leaf (it is {LEAF} there)")
    bad = np.flatnonzero(~leaf & (feature >= d) | ~leaf & (feature < 0) & (
        (feature != OBLIQUE) | (kind == NOMINAL)))
    if bad.size:
        i = bad[0]
        _fail(f"{where}.feature[{i}]", f"{feature[i]} is not a feature index (the tree has "
              f"{d} features)")

    if "missing" in data:
        missing = _int_list(data, "missing", where, n)
        bad = np.flatnonzero((missing < MISSING_DEFAULT) | (missing >= np.maximum(nb, 1)))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.missing[{i}]", f"{missing[i]} is not a missing-value rule of "
                  f"node {i} ({MISSING_DEFAULT}, {MISSING_DISTRIBUTE} or a branch 0.."
                  f"{max(nb[i], 1) - 1})")
    else:
        missing = None
    out = {"children_left": left, "children_right": right, "feature": feature,
           "weights": weights, "threshold": threshold, "value": value,
           "kind": kind.astype(np.int8) if "kind" in data else None,
           "branch_ptr": ptr if "branch_ptr" in data else None,
           "branch_child": child if "branch_ptr" in data else None, "missing": missing}
    return out


def node_class_counts(tree: Tree, X: np.ndarray, y: np.ndarray,
                      data_fractions: bool = False) -> np.ndarray:
    """How many rows of each class reach each node, shape [n_nodes, n_classes + 1].

    ``y`` holds class codes; rows with code -1 (a label the tree never saw) count
    toward no class (the last column) but still travel. Used to score every pruned
    subtree on held-out data from one pass: a subtree's errors are the sums over its
    leaves of ``reach - counts[node, majority]``. Rows with an unknown value at a
    distributing node count fractionally (float64 counts); otherwise the counts are
    int64. ``data_fractions``: spread by the shares of the rows themselves (``_walk``).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    k = tree.n_classes
    y_slot = np.where(y >= 0, y, k)  # unseen labels go to an extra column
    counts = np.zeros(tree.n_nodes * (k + 1), dtype=np.float64)
    spread = False
    for rows, nodes, w in tree._walk(X, data_fractions=data_fractions):
        spread = spread or w is not None
        counts += np.bincount(nodes * (k + 1) + y_slot[rows], weights=w,
                              minlength=counts.size)
    counts = counts.reshape(tree.n_nodes, k + 1)
    return counts if spread else counts.astype(np.int64)
