"""Validation-set (reduced-error) post-pruning, the UMT paper's "cross-validation-based
postpruning" (Yildiz 2011, §3.1: the validation folds val_i "are used to prune the
decision trees").

The paper gives no rule; the author's code prunes with the validation data
(ISELL ``prune_tree(root, root, cvdata)`` under ``VALIDATIONPRUNING``, docs/reference-programs.md),
which is Quinlan's reduced-error pruning (Quinlan 1987, "Simplifying decision trees",
§2.2): bottom-up, every internal node is replaced by a leaf (labelled with the majority
class of its *growing* rows, ``tree.value``) whenever that does not increase the number
of validation rows misclassified in its subtree (ties prune: the smaller tree wins).
Bottom-up means a node is judged against its subtree as already pruned below, so the
pruned error of a node is ``min(error as a leaf, sum of its children's pruned
errors)``; a node reached by no validation row is therefore pruned (0 <= 0), as in
Quinlan's procedure. Validation rows whose label the tree never saw count as errors
everywhere.

Rows reaching each node do not depend on pruning below it, so one pass of
``node_class_counts`` on the grown tree gives every node's validation class counts; the
loop then runs once per internal node (children before parents, reverse preorder).

With no validation rows (``X_prune`` None or empty) the tree is left unchanged and
``estimator.pruning_`` says so. The one-vs-one / one-vs-rest wrappers
(``obliq_cli.algorithms.multiclass``) are pruned member by member, each on the
validation rows of its class pair / all rows relabelled to its one-vs-rest problem
(``member_problem``), as ISELL's ``train_svmtree`` does; a member whose problem has no
validation row is left unchanged.

Weights (``pruning.weights``): the validation rows carry their own sample weights times
their class's weight (``class_weight`` computed on the validation rows), and "rows
misclassified" is their weight summed; rows of weight 0 are dropped, as if removed.
A wrapper's members read the weights of the rows of their problem.
"""

from __future__ import annotations

import numpy as np

from ..registry import register_pruner
from ..tree.structure import LEAF, Tree, node_class_counts
from .weights import drop_weightless, part_weights


def reduced_error_prune(tree: Tree, X, y_codes, sample_weight=None) -> tuple[Tree, dict]:
    """The reduced-error-pruned tree for validation rows ``X`` (already ``tree_input``)
    with class codes ``y_codes`` (-1 = unseen class), weighed by ``sample_weight`` (None:
    each row counts 1), and a summary dict."""
    counts = node_class_counts(tree, X, y_codes, sample_weight=sample_weight)
    reach = counts.sum(axis=1)
    majority = tree.leaf_classes()
    leaf_err = reach - counts[np.arange(tree.n_nodes), majority]
    # int64 counts, or fractional ones where rows were spread over branches (C4.5's
    # unknown values)
    pruned_err = leaf_err.copy()
    cut = np.zeros(tree.n_nodes, dtype=bool)
    for node in np.flatnonzero(tree.children_left != LEAF)[::-1]:  # children first
        below = pruned_err[tree.children(node)].sum()
        if leaf_err[node] <= below:
            cut[node] = True  # pruned_err[node] already equals leaf_err[node]
        else:
            pruned_err[node] = below
    number = int if np.issubdtype(counts.dtype, np.integer) else float
    grown_err = number(leaf_err[tree.is_leaf].sum())
    new_tree = tree.collapse(np.flatnonzero(cut))
    n_eval = int(len(y_codes)) if sample_weight is None else float(np.sum(sample_weight))
    info = {"n_eval": n_eval, "errors_before": grown_err,
            "errors_after": number(pruned_err[0]), "nodes_before": tree.n_nodes,
            "nodes_after": new_tree.n_nodes}
    return new_tree, info


def _prune_single(estimator, X_prune, y_prune, weights=None) -> dict:
    """``weights``: the rows' pruning weights (``part_weights``) or None."""
    tree = estimator.tree_
    estimator.unpruned_tree_ = tree
    if X_prune is not None:
        weights, X_prune, y_prune = drop_weightless(weights, X_prune, y_prune)
    if X_prune is None or len(X_prune) == 0:
        return {"method": "validation", "pruned": False,
                "note": "no validation rows: tree left unchanged", "n_eval": 0}
    new_tree, info = reduced_error_prune(tree, estimator.tree_input(X_prune),
                                         estimator.encode(y_prune), weights)
    estimator.tree_ = new_tree
    return {"method": "validation", "pruned": True, **info}


@register_pruner(
    "validation",
    "Reduced-error pruning on the validation (pruning) rows, bottom-up, a subtree becomes "
    "a leaf when that does not increase validation errors (UMT paper's CV post-pruning)",
    params={},
)
def prune_validation(estimator, X_grow, y_grow, X_prune, y_prune, *, random_state=None,
                     sample_weight=None, prune_weight=None):
    """Prune ``estimator`` (a TreeClassifier or a one-vs-one/one-vs-rest wrapper) in
    place on the validation rows and return it; sets ``estimator.pruning_``.
    ``prune_weight``: the validation rows' weights before ``class_weight`` (module
    docstring); ``sample_weight`` (the growing rows') is not read."""
    weights = None
    if X_prune is not None and len(X_prune) > 0:
        weights = part_weights(estimator, y_prune, prune_weight)
        if weights is not None:
            X_prune, y_prune = np.asarray(X_prune), np.asarray(y_prune)
    members = getattr(estimator, "estimators_", None)
    if members is None or not hasattr(estimator, "member_problem"):
        estimator.pruning_ = _prune_single(estimator, X_prune, y_prune, weights)
        return estimator
    if X_prune is None or len(X_prune) == 0:
        for member in members:
            member.unpruned_tree_ = member.tree_
        estimator.pruning_ = {"method": "validation", "pruned": False,
                              "note": "no validation rows: trees left unchanged",
                              "n_eval": 0}
        return estimator
    X_prune = np.asarray(X_prune, dtype=np.float64)
    codes = estimator.encode(y_prune)
    per_member = []
    for m, member in enumerate(members):  # a loop per member tree
        Xm, ym = estimator.member_problem(m, X_prune, codes)
        wm = None
        if weights is not None:  # the rows of the member's problem, through their indices
            wm = weights[estimator.member_problem(m, np.arange(len(codes)), codes)[0]]
        info = _prune_single(member, Xm if len(Xm) else None, ym, wm)
        if not len(Xm):
            info["note"] = "no validation rows for this problem: tree left unchanged"
        per_member.append(info)
    estimator.pruning_ = {"method": "validation", "pruned": True,
                          "n_eval": int(len(X_prune)), "members": per_member}
    return estimator
