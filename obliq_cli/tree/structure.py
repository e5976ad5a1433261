"""One array-based tree for every algorithm.

A fitted tree is a set of parallel arrays indexed by node id, as scikit-learn's ``Tree``
keeps them, extended to oblique splits: every internal node holds a hyperplane
``w . x <= threshold`` (left) / ``> threshold`` (right). An axis-parallel split is the
hyperplane with a single non-zero weight ``w[feature] = 1``; its ``feature`` index is
kept so prediction reads one column instead of a dot product and printing is readable.

Nodes are stored in depth-first preorder (a node's left child follows it), so
``children_left[i] > i`` for every internal node. Predict, apply, size, depth, export
and pruning all read these arrays, whatever algorithm grew the tree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

LEAF = -1
"""Value of ``children_left``/``children_right`` and of ``feature`` at a leaf."""

OBLIQUE = -2
"""Value of ``feature`` at an internal node whose hyperplane has several weights."""


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


@dataclass(eq=False)
class Tree:
    """A fitted decision tree as parallel arrays.

    Attributes
    ----------
    children_left, children_right : int64 arrays, shape [n_nodes]
        Child ids, ``LEAF`` (-1) at leaves.
    feature : int64 array, shape [n_nodes]
        Feature index of an axis-parallel split, ``OBLIQUE`` (-2) for an oblique split,
        ``LEAF`` (-1) at a leaf.
    weights : float64 array, shape [n_nodes, n_features]
        Hyperplane weights (zero rows at leaves).
    threshold : float64 array, shape [n_nodes]
        A row goes left when ``weights[node] . x <= threshold[node]``.
    value : float64 array, shape [n_nodes, n_classes]
        Class counts of the growing data that reached each node.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    weights: np.ndarray
    threshold: np.ndarray
    value: np.ndarray

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
    def node_depth(self) -> np.ndarray:
        """Depth of every node (root = 0), from the preorder layout in one pass."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        # Parents precede children in preorder, so one sweep in id order suffices;
        # the loop is over internal nodes, not samples.
        for node in np.flatnonzero(~self.is_leaf):
            depth[self.children_left[node]] = depth[node] + 1
            depth[self.children_right[node]] = depth[node] + 1
        return depth

    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf; a single-leaf tree has depth 0 (scikit-learn's)."""
        return int(self.node_depth.max())

    # ------------------------------------------------------------- prediction
    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf id reached by every row of ``X``.

        Rows descend level by level together, so the Python loop runs once per tree
        level, never per sample.
        """
        X = np.asarray(X, dtype=np.float64)
        node = np.zeros(X.shape[0], dtype=np.int64)
        active = np.flatnonzero(self.children_left[node] != LEAF)
        while active.size:
            go_left = self._goes_left(X[active], node[active])
            cur = node[active]
            node[active] = np.where(go_left, self.children_left[cur], self.children_right[cur])
            active = active[self.children_left[node[active]] != LEAF]
        return node

    def _goes_left(self, Xa: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether each row goes left at its node (rows and nodes aligned)."""
        feat = self.feature[nodes]
        axis = feat >= 0
        projection = np.empty(nodes.shape[0], dtype=np.float64)
        if axis.any():
            projection[axis] = Xa[axis, feat[axis]]
        if not axis.all():
            oblique = ~axis
            projection[oblique] = np.einsum(
                "ij,ij->i", Xa[oblique], self.weights[nodes[oblique]]
            )
        return projection <= self.threshold[nodes]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class frequencies of the leaf each row reaches (columns = class codes)."""
        counts = self.value[self.apply(X)]
        totals = counts.sum(axis=1, keepdims=True)
        return counts / np.where(totals > 0, totals, 1.0)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Majority class code of each row's leaf (ties go to the lowest code)."""
        return np.argmax(self.value[self.apply(X)], axis=1)

    def leaf_classes(self) -> np.ndarray:
        """Majority class code of every node, as if it were a leaf."""
        return np.argmax(self.value, axis=1)

    # ------------------------------------------------------------- structure
    def subtree_nodes(self, node: int) -> np.ndarray:
        """Ids of ``node`` and all its descendants (contiguous in preorder)."""
        return np.arange(node, self._subtree_end()[node])

    def _subtree_end(self) -> np.ndarray:
        """One past the last preorder id of every node's subtree."""
        end = np.arange(1, self.n_nodes + 1)
        # Children have larger ids, so a reverse sweep sees them first.
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
        new_id = np.cumsum(keep) - 1
        left = self.children_left.copy()
        right = self.children_right.copy()
        feature = self.feature.copy()
        weights = self.weights.copy()
        threshold = self.threshold.copy()
        left[make_leaf] = LEAF
        right[make_leaf] = LEAF
        feature[make_leaf] = LEAF
        weights[make_leaf] = 0.0
        threshold[make_leaf] = 0.0
        internal = left != LEAF
        left[internal] = new_id[left[internal]]
        right[internal] = new_id[right[internal]]
        return Tree(
            left[keep], right[keep], feature[keep], weights[keep], threshold[keep],
            self.value[keep].copy(),
        )

    # ----------------------------------------------------------------- export
    def to_dict(self) -> dict:
        """Plain data (lists) for JSON; ``Tree.from_dict`` inverts it exactly."""
        return {
            "format": "obliq-tree/1",
            "children_left": self.children_left.tolist(),
            "children_right": self.children_right.tolist(),
            "feature": self.feature.tolist(),
            "weights": self.weights.tolist(),
            "threshold": self.threshold.tolist(),
            "value": self.value.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Tree:
        n_features = len(data["weights"][0]) if data["weights"] else 0
        return cls(
            np.asarray(data["children_left"], dtype=np.int64),
            np.asarray(data["children_right"], dtype=np.int64),
            np.asarray(data["feature"], dtype=np.int64),
            np.asarray(data["weights"], dtype=np.float64).reshape(-1, n_features),
            np.asarray(data["threshold"], dtype=np.float64),
            np.asarray(data["value"], dtype=np.float64),
        )

    def to_json(self) -> str:
        # repr-exact floats: json writes the shortest string that round-trips.
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Tree:
        return cls.from_dict(json.loads(text))

    def rules(self) -> list[tuple[list[tuple[np.ndarray, float, bool]], int]]:
        """Every leaf as (conditions, node id); a condition is (weights, threshold, left).

        ``left`` True means the condition is ``w . x <= threshold``, False ``w . x > t``.
        """
        out = []
        stack: list[tuple[int, list]] = [(0, [])]
        while stack:
            node, conds = stack.pop()
            if self.children_left[node] == LEAF:
                out.append((conds, node))
                continue
            w, t = self.weights[node], float(self.threshold[node])
            stack.append((int(self.children_right[node]), conds + [(w, t, False)]))
            stack.append((int(self.children_left[node]), conds + [(w, t, True)]))
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

    def to_text(self, feature_names=None, class_names=None, digits: int = 4) -> str:
        """The tree as indented readable rules, one line per node."""
        classes = class_names if class_names is not None else list(range(self.n_classes))
        lines = []
        stack: list[tuple[int, int, str]] = [(0, 0, "")]
        while stack:
            node, level, prefix = stack.pop()
            pad = "|   " * level
            counts = ", ".join(f"{c:g}" for c in self.value[node])
            if self.children_left[node] == LEAF:
                label = classes[int(np.argmax(self.value[node]))]
                lines.append(f"{pad}{prefix}class {label} [{counts}]")
                continue
            # An internal node's line carries the condition that leads to it.
            lines.append(f"{pad}{prefix}[{counts}]" if prefix else f"root [{counts}]")
            lhs = self.hyperplane_text(node, feature_names, digits)
            t = f"{self.threshold[node] + 0.0:.{digits}g}"  # -0.0 prints as 0
            stack.append((int(self.children_right[node]), level + 1, f"{lhs} > {t}: "))
            stack.append((int(self.children_left[node]), level + 1, f"{lhs} <= {t}: "))
        return "\n".join(lines)


def node_class_counts(tree: Tree, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """How many rows of each class reach each node, shape [n_nodes, n_classes].

    ``y`` holds class codes; rows with code -1 (a label the tree never saw) count
    toward no class but still travel. Used to score every pruned subtree on held-out
    data from one pass: a subtree's errors are the sums over its leaves of
    ``reach - counts[node, majority]``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    k = tree.n_classes
    counts = np.zeros((tree.n_nodes, k + 1), dtype=np.int64)
    y_slot = np.where(y >= 0, y, k)  # unseen labels go to an extra column
    node = np.zeros(X.shape[0], dtype=np.int64)
    active = np.arange(X.shape[0])
    while active.size:
        np.add.at(counts, (node[active], y_slot[active]), 1)
        active = active[tree.children_left[node[active]] != LEAF]
        if not active.size:
            break
        cur = node[active]
        go_left = tree._goes_left(X[active], cur)
        node[active] = np.where(go_left, tree.children_left[cur], tree.children_right[cur])
    return counts
