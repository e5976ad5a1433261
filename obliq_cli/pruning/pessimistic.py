"""C4.5's pessimistic (error-based) pruning with subtree raising (Quinlan 1993, ch. 4).

Estimated errors (§4.2)
    A leaf covering N training cases, E of them misclassified, is charged
    ``N * U_CF(E, N)`` errors, U_CF being the upper limit of the binomial confidence
    interval for the error rate at confidence CF (default 25 %). C4.5 release 8
    (``stats.c: AddErrs``) computes the *additional* errors ``N * U_CF(E, N) - E`` as:

    - E = 0: ``N (1 - CF^(1/N))``, the exact limit (solves ``(1 - U)^N = CF``);
    - 0 < E < 1 (fractional counts): linear interpolation between E = 0 and E = 1;
    - E + 0.5 >= N: ``0.67 (N - E)``;
    - otherwise the normal approximation with continuity correction (a Wilson score
      limit): ``U = (E + 0.5 + z^2/2 + sqrt(z^2 ((E + 0.5)(1 - (E + 0.5)/N) + z^2/4)))
      / (N + z^2)``, with z the normal deviate for CF linearly interpolated in the table
      CF = 0, .001, .005, .01, .05, .1, .2, .4, 1 -> z = 4, 3.09, 2.58, 2.33, 1.65, 1.28,
      .84, .25, 0 (Documenta Geigy, as in ``stats.c``).

    The exact limit is ``scipy.stats.beta.ppf(1 - CF, E + 1, N - E)``; the tests check
    that C4.5's approximation stays close to it.

Pruning (§4.2-4.3, ``prune.c: EstimateErrors``)
    Bottom-up: each child is pruned first, with the training cases that reach it; the
    subtree's estimate is the sum of its children's. Three choices are compared at an
    internal node:

    - the subtree as it now stands (``tree``);
    - the node as a leaf (``leaf``: its N cases, E = N - majority count);
    - the *largest branch* (the child receiving most of the node's training cases, ties to
      the later branch as C4.5's ``Factor >= MaxFactor``) grafted in place of the node,
      with all of the node's cases re-distributed through it (``branch``).

    C4.5 keeps the leaf when ``leaf <= branch + 0.1`` and ``leaf <= tree + 0.1``; else it
    raises the branch when ``branch <= tree + 0.1``; else keeps the subtree. A raised
    branch is pruned again with the node's full set of cases (its nodes now see more
    cases, which may prune it further). ``subtree_raising=False`` drops the third option
    (Weka J48's ``subtreeRaising`` switch; C4.5 release 8 always raises).

    Raising removes a test from the path to every node of the raised branch, so every
    node that survives receives at least the training cases it received in the grown tree
    (no node becomes empty); the class counts of the pruned tree are recounted from the
    growing data at the end (``node_class_counts``). C4.5 keeps a node's previous class
    when a recount ties; here the leaf class is the tree's usual argmax (lowest code on a
    tie), which changes no error count.

Nominal (multiway) splits and unknown values (``prune.c``, release 8): every branch
that receives a known case is pruned with its cases, and the cases whose tested value
is unknown go down each such branch with their weight times the branch's share of the
node's known weight (``Factor``), so N and E are fractional (``AddErrs`` interpolates
for 0 < E < 1); the largest branch is the one of largest share (ties to the later). A
branch without known cases (an empty leaf of a multiway split) is skipped. The final
recount spreads the unknown cases the same way (``node_class_counts(...,
data_fractions=True)``).

Weights (``pruning.weights``): C4.5 already carries every case with a weight (the
fractions of its unknown values), and N and E are sums of those weights, so a weighted
growing set enters the same arithmetic: each case starts with its weight (sample weight
times class weight, exactly what the tree was grown with) instead of 1, the largest
branch is the one of largest weight, and the final recount is weighted, so the leaves
keep the classes the weighted fit gave them. U_CF(E, N) depends on N itself, not only on
E / N: weights scaled by a common factor other than 1 change the estimate; "balanced"
weights sum to the row count, and integer weights count as copied cases. Rows of weight
0 are dropped first (a branch reached only by them is skipped, as for a removed row).

The pruner ignores ``X_prune``: C4.5 prunes on the training data. Vectorisation: rows
descend through a subtree level by level (one numpy step per level), so the Python work
is per node and per level, never per sample.
"""

from __future__ import annotations

import sys
from numbers import Real

import numpy as np

from ..errors import ObliqError
from ..parameters import Interval, pruner_parameters
from ..registry import register_pruner
from ..tree.structure import LEAF, LINEAR, MISSING_DEFAULT, Tree, node_class_counts
from .weights import drop_weightless, part_weights

# stats.c: confidence levels and normal deviates (Documenta Geigy Scientific Tables).
CF_TABLE = np.array([0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
Z_TABLE = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])

# prune.c: a leaf or a raised branch wins when it is at most this many errors worse.
TOLERANCE = 0.1


def c45_coefficient(confidence: float) -> float:
    """z^2 for confidence CF: z interpolated linearly in C4.5's table (``stats.c``)."""
    z = float(np.interp(confidence, CF_TABLE, Z_TABLE))
    return z * z


def added_errors(n, e, confidence: float = 0.25) -> np.ndarray:
    """C4.5's ``AddErrs(N, E)``: ``N * U_CF(E, N) - E``, vectorised over arrays.

    ``n`` cases of which ``e`` are errors (both may be fractional); 0 where ``n`` is 0.
    """
    n = np.asarray(n, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    n, e = np.broadcast_arrays(n, e)
    coeff = c45_coefficient(confidence)
    safe_n = np.where(n > 0, n, 1.0)
    at_zero = safe_n * (1.0 - np.exp(np.log(confidence) / safe_n))

    def normal(err):
        half = err + 0.5
        root = np.sqrt(np.maximum(coeff * (half * (1.0 - half / safe_n) + coeff / 4.0), 0.0))
        upper = (half + coeff / 2.0 + root) / (safe_n + coeff)
        near_all = half >= safe_n
        return np.where(near_all, 0.67 * (safe_n - err), safe_n * upper - err)

    at_one = normal(np.ones_like(e))
    out = np.where(
        e < 1e-6, at_zero,
        np.where(e < 0.9999, at_zero + e * (at_one - at_zero), normal(e)),
    )
    return np.where(n > 0, out, 0.0)


def estimated_errors(n, e, confidence: float = 0.25) -> np.ndarray:
    """Predicted errors ``N * U_CF(E, N) = E + AddErrs(N, E)`` of a leaf (§4.2)."""
    return np.asarray(e, dtype=np.float64) + added_errors(n, e, confidence)


def upper_limit(n, e, confidence: float = 0.25) -> np.ndarray:
    """``U_CF(E, N)``, the pessimistic error rate C4.5 charges a leaf."""
    n = np.asarray(n, dtype=np.float64)
    return estimated_errors(n, e, confidence) / np.where(n > 0, n, 1.0)


def rebuild_tree(tree: Tree, root: int, branch_child: np.ndarray,
                 is_leaf: np.ndarray) -> Tree:
    """A preorder ``Tree`` from a working copy of ``tree``'s children.

    ``branch_child`` (aligned with ``tree.branch_child``) may point anywhere among the
    ids of ``tree`` (a raised branch takes the place of its ancestor simply by being
    pointed to); nodes with ``is_leaf`` set are leaves. Splits are copied from ``tree``;
    ``value`` is copied too and is recounted by the caller. This is the "replace a node
    by a copy of a subtree" operation ``Tree`` lacks.
    """
    ptr = tree.branch_ptr
    order: list[int] = []
    stack = [int(root)]
    while stack:  # one step per node
        node = stack.pop()
        order.append(node)
        if not is_leaf[node]:
            stack.extend(int(c) for c in branch_child[ptr[node]:ptr[node + 1]][::-1])
    old = np.asarray(order, dtype=np.int64)
    new_id = np.full(tree.n_nodes, -1, dtype=np.int64)
    new_id[old] = np.arange(old.size)
    internal = ~is_leaf[old]
    n_branches = np.where(internal, tree.n_branches[old], 0)
    new_ptr = np.zeros(old.size + 1, dtype=np.int64)
    np.cumsum(n_branches, out=new_ptr[1:])
    slots = np.concatenate([np.arange(ptr[i], ptr[i + 1]) for i in old[internal]]
                           or [np.zeros(0, dtype=np.int64)])
    new_child = new_id[branch_child[slots]]
    first = np.full(old.size, LEAF, dtype=np.int64)
    last = np.full(old.size, LEAF, dtype=np.int64)
    first[internal] = new_child[new_ptr[:-1][internal]]
    last[internal] = new_child[new_ptr[1:][internal] - 1]
    return Tree(
        first, last, np.where(internal, tree.feature[old], LEAF),
        np.where(internal[:, None], tree.weights[old], 0.0),
        np.where(internal, tree.threshold[old], 0.0), tree.value[old].copy(),
        np.where(internal, tree.kind[old], LINEAR).astype(np.int8), new_ptr, new_child,
        np.where(internal, tree.missing[old], MISSING_DEFAULT),
    )


class _ErrorBasedPruning:
    """``prune.c: EstimateErrors`` on a working copy of a tree's children.

    Cases travel with weights (None: every case weighs 1, the integer path of old); at a
    node that distributes unknown values C4.5 spreads them over the branches that
    receive known cases, each by the share of the known weight it receives there
    (``Factor``), so counts and errors become fractional.
    """

    def __init__(self, tree: Tree, X: np.ndarray, y: np.ndarray, confidence: float,
                 raising: bool):
        self.tree = tree
        self.X, self.y = X, y
        self.k = tree.n_classes
        self.cf = confidence
        self.raising = raising
        self.child = tree.branch_child.copy()
        self.leaf = tree.is_leaf.copy()
        self.rule = tree.missing_branch()
        self.fractions = tree.branch_fractions()
        self.n_collapsed = 0
        self.n_raised = 0

    def leaf_estimate(self, rows: np.ndarray, w) -> float:
        if rows.size == 0:
            return 0.0
        counts = np.bincount(self.y[rows], weights=w, minlength=self.k)
        n = rows.size if w is None else counts.sum()
        return float(estimated_errors(n, n - counts.max(), self.cf))

    def subtree_estimate(self, node: int, rows: np.ndarray, w) -> float:
        """Estimated errors of the subtree at ``node`` as it stands, for cases ``rows``
        (C4.5's ``EstimateErrors(..., UpdateTree=false)``): the sum over its leaves of
        N * U_CF(E, N) with the cases re-distributed; leaves reached by none add 0."""
        size = self.tree.n_nodes * self.k
        counts = np.zeros(size)
        for at_rows, at_nodes, at_w in self.tree._walk(
                self.X, rows, w, start=node, data_fractions=True,
                branch_child=self.child, is_leaf=self.leaf):
            done = self.leaf[at_nodes]
            counts += np.bincount(at_nodes[done] * self.k + self.y[at_rows[done]],
                                  weights=None if at_w is None else at_w[done],
                                  minlength=size)
        counts = counts.reshape(self.tree.n_nodes, self.k)
        n = counts.sum(axis=1)
        hit = n > 0
        return float(estimated_errors(n[hit], n[hit] - counts[hit].max(axis=1), self.cf).sum())

    def branches(self, node: int, rows: np.ndarray, w):
        """The cases of each branch of ``node`` (``prune.c``'s ``Group``/``Factor``):
        (branch, rows, weights, known share) for every branch with a known case."""
        tree = self.tree
        branch = tree.branch_of(self.X, rows, np.full(rows.size, node, dtype=np.int64))
        unknown = branch < 0
        if unknown.any() and self.rule[node] >= 0:
            branch = np.where(unknown, self.rule[node], branch)
            unknown = np.zeros(rows.size, dtype=bool)
        m = int(tree.n_branches[node])
        seen = np.bincount(branch[~unknown], minlength=m)
        known_w = np.bincount(branch[~unknown], minlength=m,
                              weights=None if w is None else w[~unknown])
        total = known_w.sum()
        at = tree.branch_ptr[node]
        share = known_w / total if total > 0 else self.fractions[at:at + m]
        out = []
        for b in range(m):  # a loop over branches
            if seen[b] == 0:
                continue  # C4.5 skips a branch that receives no known case
            here = branch == b
            if not unknown.any():
                out.append((b, rows[here], None if w is None else w[here], share[b]))
                continue
            here |= unknown
            base = np.ones(rows.size) if w is None else w
            out.append((b, rows[here], base[here] * np.where(unknown[here], share[b], 1.0),
                        share[b]))
        return out

    def prune(self, node: int, rows: np.ndarray, w=None) -> tuple[float, int]:
        """Prune the subtree at ``node`` for cases ``rows`` with weights ``w``
        (``UpdateTree=true``).

        Returns its estimated errors and the id that now stands in its place (``node``
        itself, or the root of the raised branch).
        """
        leaf = self.leaf_estimate(rows, w)
        if self.leaf[node]:
            return leaf, node
        at = self.tree.branch_ptr[node]
        total = 0.0
        largest, largest_share = None, -1.0
        for b, part, part_w, share in self.branches(node, rows, w):
            errors, self.child[at + b] = self.prune(int(self.child[at + b]), part, part_w)
            total += errors
            if share >= largest_share:  # ties to the later branch (``Factor >= MaxFactor``)
                largest, largest_share = int(self.child[at + b]), share
        branch = np.inf
        if self.raising and largest is not None:
            branch = self.subtree_estimate(largest, rows, w)
        if leaf <= branch + TOLERANCE and leaf <= total + TOLERANCE:
            self.leaf[node] = True
            self.n_collapsed += 1
            return leaf, node
        if branch <= total + TOLERANCE:
            self.n_raised += 1
            return self.prune(largest, rows, w)
        return total, node


@register_pruner(
    "pessimistic",
    "C4.5's error-based pruning (Quinlan 1993, ch. 4): leaves charged N*U_CF(E,N), "
    "bottom-up replacement by a leaf or by the largest branch (subtree raising)",
    params={"confidence": 0.25, "subtree_raising": True},
    uses_prune_set=False,
)
@pruner_parameters("pessimistic", {
    "confidence": [Interval(Real, 0, 1, closed="neither")],
    "subtree_raising": ["boolean"],
})
def prune_pessimistic(
    estimator, X_grow, y_grow, X_prune=None, y_prune=None, *, random_state=None,
    confidence: float = 0.25, subtree_raising: bool = True, sample_weight=None,
    prune_weight=None,
):
    """Replace ``estimator.tree_`` by its C4.5 pessimistic pruning; returns the estimator.

    ``sample_weight``: the growing rows' weights as given to ``fit`` (module docstring).
    ``X_prune``/``y_prune``/``prune_weight`` and ``random_state`` are ignored (C4.5
    prunes on the training data and draws nothing). Records ``estimator.unpruned_tree_`` and
    ``estimator.pruning_`` (method, confidence, subtree_raising, leaves before/after,
    nodes made leaves, branches raised, estimated errors of the pruned tree).
    """
    cf = float(confidence)
    tree = estimator.tree_
    X = estimator.tree_input(X_grow)
    codes = np.asarray(estimator.encode(y_grow), dtype=np.int64)
    if codes.shape[0] != X.shape[0]:
        raise ObliqError(f"pessimistic pruner: y_grow has {codes.shape[0]} labels for "
                         f"{X.shape[0]} rows")
    weights = part_weights(estimator, y_grow, sample_weight)
    known = codes >= 0  # a label the tree never saw counts toward no class
    X, codes = X[known], codes[known]
    weights, X, codes = drop_weightless(None if weights is None else weights[known], X, codes)
    work = _ErrorBasedPruning(tree, X, codes, cf, bool(subtree_raising))
    # The recursion is as deep as the tree (twice, with raising): allow for it.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 3 * tree.max_depth + 200))
    try:
        estimate, root = work.prune(0, np.arange(X.shape[0]), weights)
    finally:
        sys.setrecursionlimit(limit)
    pruned = rebuild_tree(tree, root, work.child, work.leaf)
    pruned.value = node_class_counts(pruned, X, codes, data_fractions=True,
                                     sample_weight=weights)[
        :, : tree.n_classes].astype(np.float64)
    estimator.unpruned_tree_ = tree
    estimator.tree_ = pruned
    estimator.pruning_ = {
        "method": "pessimistic", "confidence": cf, "subtree_raising": bool(subtree_raising),
        "n_leaves_before": tree.n_leaves, "n_leaves_after": pruned.n_leaves,
        "n_collapsed": work.n_collapsed, "n_raised": work.n_raised,
        "estimated_errors": estimate,
    }
    return estimator


__all__ = ["added_errors", "c45_coefficient", "estimated_errors", "prune_pessimistic",
           "rebuild_tree", "upper_limit"]
