"""Minimal cost-complexity pruning (Breiman, Friedman, Olshen & Stone 1984, ch. 3).

The weakest-link sequence: with R(t) the risk of node t as a leaf and T_t the branch
below it, ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; every node with the least
g is cut at once (§3.3), giving T_1 > T_2 > ... and increasing alphas. R is the
resubstitution misclassification rate (errors / N of the growing data), as Breiman and
Murthy's OC1 (``prune.c``) define it; ``risk='impurity'`` uses ``n_t / N * i(t)`` instead,
which is scikit-learn's ``cost_complexity_pruning_path``.

The subtree is chosen on a separate pruning set (OC1: the last ``prune_portion`` of
the training data) or, with no pruning set, by V-fold cross-validation on the growing
data (Breiman §3.4.2, geometric-mean alphas ``sqrt(alpha_k alpha_{k+1})``); then the
k-SE rule (§3.4.3) picks the tree with the fewest leaves whose estimated error is at
most ``r_min + k * SE`` with ``SE = sqrt(r_min (1 - r_min) / N)``. ``se_rule=0`` is OC1's
default (0-SE), ``se_rule=1`` Breiman's 1-SE rule. OC1 never cuts the root
(``keep_root=True``); Breiman's sequence ends at the root alone (``keep_root=False``).

Weights (``pruning.weights``): Breiman et al. weigh the cases by priors and costs
(§4.3-4.4, §8.x: R(t) as the weighted misclassification of the cases in t), so R(t) is
read from the grown tree's weighted class counts, the pruning rows' errors are their
weights summed, and the k-SE rule's N is their total weight (for integer weights: the
count of the copied rows; for "balanced" weights it stays the row count). The CV folds
are drawn over the rows of positive weight and each fold's tree is grown with the
growing rows' weights (class weights included, not recomputed per fold), so integer
weights equal copied rows on a pruning set, and zero weights equal removed rows either
way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from ..errors import ObliqError
from ..parameters import Integral, Interval, Real, StrOptions, pruner_parameters
from ..registry import register_pruner
from ..tree.impurity import CRITERIA
from ..tree.structure import LEAF, Tree, node_class_counts
from .weights import drop_weightless, part_weights


@dataclass(frozen=True)
class PruningPath:
    """The weakest-link sequence of a grown tree.

    alphas[k] is the least complexity parameter at which subtree k is optimal;
    collapsed[k] is the boolean mask of nodes of the *grown* tree that are leaves in
    subtree k because they were cut (original leaves are not marked);
    n_leaves[k] counts subtree k's leaves.
    """

    alphas: np.ndarray
    collapsed: np.ndarray  # shape [n_subtrees, n_nodes], bool
    n_leaves: np.ndarray

    def subtree(self, tree: Tree, k: int) -> Tree:
        return tree.collapse(np.flatnonzero(self.collapsed[k]))

    def index_for_alpha(self, alpha: float) -> int:
        """Index of T(alpha): the last subtree whose alpha is <= ``alpha``."""
        return int(np.searchsorted(self.alphas, alpha, side="right") - 1)


def node_risk(tree: Tree, risk: str = "misclassification", criterion: str = "gini"):
    """R(t) of every node as a leaf, as a fraction of the rows at the root."""
    counts = tree.value
    n = counts.sum(axis=1)
    total = n[0]
    if risk == "misclassification":
        return (n - counts.max(axis=1)) / total
    if risk == "impurity":
        found = CRITERIA.get(criterion)
        if found is None or found.node_impurity is None or criterion == "misclassification":
            raise ObliqError(f"cc pruner: risk 'impurity' needs criterion gini or entropy, "
                             f"got {criterion!r}")
        return n / total * found.node_impurity(counts)
    raise ObliqError(f"cc pruner: unknown risk {risk!r} (choose 'misclassification' or 'impurity')")


def cost_complexity_path(
    tree: Tree, risk: str = "misclassification", criterion: str = "gini", keep_root: bool = True
) -> PruningPath:
    """The weakest-link sequence (Breiman et al. 1984, §3.3) of a grown tree.

    The first subtree is T(0): the grown tree less the branches that do not lower R.
    Nodes whose g ties the minimum within a relative 1e-10 are cut together, so
    round-off does not split one step into several.
    """
    n_nodes = tree.n_nodes
    r_node = node_risk(tree, risk, criterion)
    end = tree._subtree_end()
    starts = np.arange(n_nodes)
    is_leaf = tree.is_leaf.copy()
    active = np.ones(n_nodes, dtype=bool)
    cuttable = ~tree.is_leaf
    if keep_root:
        cuttable[0] = False
    zero = 1e-12  # risks are fractions of N: below this a branch lowers R by nothing
    alphas: list[float] = []
    masks: list[np.ndarray] = []
    leaves: list[int] = []

    def record(alpha):
        alphas.append(alpha)
        masks.append(is_leaf & active & ~tree.is_leaf)
        leaves.append(int((is_leaf & active).sum()))

    while True:
        leaf_now = is_leaf & active
        # Sums over preorder ranges give every branch's risk and leaf count at once.
        risk_cum = np.concatenate([[0.0], np.cumsum(np.where(leaf_now, r_node, 0.0))])
        leaf_cum = np.concatenate([[0], np.cumsum(leaf_now)])
        r_branch = risk_cum[end] - risk_cum[starts]
        n_branch = leaf_cum[end] - leaf_cum[starts]
        candidates = cuttable & active & ~is_leaf
        if not candidates.any():
            break
        g = np.full(n_nodes, np.inf)
        g[candidates] = (r_node[candidates] - r_branch[candidates]) / (n_branch[candidates] - 1)
        g_min = float(g.min())
        if not alphas and g_min > zero:
            record(0.0)  # T(0): every remaining split lowers R
        for node in np.flatnonzero(g <= g_min + 1e-10 * abs(g_min) + zero * (g_min <= zero)):
            if active[node]:
                active[node + 1 : end[node]] = False
                is_leaf[node] = True
        if not alphas:
            continue  # still removing the branches that do not lower R
        if np.isclose(g_min, alphas[-1], rtol=1e-10, atol=0.0):
            alphas.pop(), masks.pop(), leaves.pop()  # round-off split one step in two
        record(g_min)
    if not alphas:
        record(0.0)
    return PruningPath(np.asarray(alphas), np.vstack(masks), np.asarray(leaves))


def subtree_errors(tree: Tree, path: PruningPath, X, y_codes, sample_weight=None) -> np.ndarray:
    """Misclassified rows of (X, y) for every subtree of the path, from one pass (their
    weights summed with ``sample_weight``)."""
    counts = node_class_counts(tree, X, y_codes, sample_weight=sample_weight)
    reach = counts.sum(axis=1)
    majority = tree.leaf_classes()
    wrong_if_leaf = reach - counts[np.arange(tree.n_nodes), majority]
    leaf_in_grown = tree.is_leaf
    end = tree._subtree_end()
    # int64, or float64 where rows with unknown values were spread over branches
    errors = np.empty(len(path.alphas), dtype=counts.dtype)
    for k, collapsed in enumerate(path.collapsed):
        # Leaves of subtree k: cut nodes, and grown leaves not below a cut node.
        removed = np.zeros(tree.n_nodes + 1, dtype=np.int64)
        cut = np.flatnonzero(collapsed)
        np.add.at(removed, cut + 1, 1)
        np.add.at(removed, end[cut], -1)
        below_cut = np.cumsum(removed)[:-1] > 0
        leaves = collapsed | (leaf_in_grown & ~below_cut)
        errors[k] = wrong_if_leaf[leaves].sum()
    return errors


def select_k_se(errors: np.ndarray, n: float, n_leaves: np.ndarray, se_rule: float) -> int:
    """Index of the fewest-leaf subtree with error rate <= r_min + se_rule * SE (§3.4.3);
    ``n`` the number (or total weight) of the rows the errors were counted on."""
    rates = errors / max(n, 1)
    r_min = rates.min()
    se = np.sqrt(max(r_min * (1.0 - r_min), 0.0) / max(n, 1))
    ok = np.flatnonzero(rates <= r_min + se_rule * se + 1e-12)
    return int(ok[np.argmin(n_leaves[ok])])


def cv_subtree_errors(estimator, path: PruningPath, X, y, cv_folds, rng, risk, criterion,
                      keep_root, weights=None) -> np.ndarray:
    """Errors of each subtree of ``path`` estimated by V-fold CV (Breiman §3.4.2).

    ``weights``: the rows' weights after ``class_weight`` (``part_weights``; the rows are
    those of positive weight). Each fold's tree is grown with them and its ``class_weight``
    off, so a fold weighs its rows as the whole tree did ("balanced" is not recomputed on
    the fold), and the held-out errors sum them."""
    n = X.shape[0]
    if cv_folds < 2 or cv_folds > n:
        raise ObliqError(f"cc pruner: cv_folds must be between 2 and {n} (got {cv_folds})")
    alphas = path.alphas
    # Geometric means of consecutive alphas represent each interval [alpha_k, alpha_k+1).
    probe = np.sqrt(alphas * np.append(alphas[1:], np.inf))
    probe[-1] = alphas[-1] if len(alphas) > 1 else 0.0
    folds = np.array_split(rng.permutation(n), cv_folds)
    errors = np.zeros(len(alphas), dtype=np.int64 if weights is None else np.float64)
    for held in folds:
        grow = np.setdiff1d(np.arange(n), held, assume_unique=True)
        fold_est = clone(estimator)
        if "random_state" in fold_est.get_params():
            fold_est.set_params(random_state=np.random.default_rng(rng.integers(2**63)))
        if "class_weight" in fold_est.get_params():
            fold_est.set_params(class_weight=None)  # already in ``weights``
        if weights is None:
            fold_est.fit(X[grow], y[grow])
        else:
            fold_est.fit(X[grow], y[grow], sample_weight=weights[grow])
        fold_tree = fold_est.tree_
        fold_path = cost_complexity_path(fold_tree, risk, criterion, keep_root)
        fold_err = subtree_errors(fold_tree, fold_path, fold_est.tree_input(X[held]),
                                  fold_est.encode(y[held]),
                                  None if weights is None else weights[held])
        idx = np.searchsorted(fold_path.alphas, probe, side="right") - 1
        errors = errors + fold_err[np.clip(idx, 0, None)]  # float when spread (NaN)
    return errors


def check_rows(params: dict, n_grow: int, n_prune: int) -> tuple[str, str] | None:
    """``(parameter, "must be ... (got ...)")`` when the smallest growing part
    (``n_grow`` rows, ``n_prune`` held out beside it) cannot take ``params``: V-fold CV
    runs only without a pruning set, on the growing rows, one fold per row at most.
    Asked by the runner before a run, so a bad ``cv_folds`` is one error line, not a
    failure in every task."""
    cv_folds = params.get("cv_folds", 10)
    if n_prune == 0 and cv_folds > n_grow:
        return "cv_folds", (f"must be at most the {n_grow} rows of the smallest growing "
                            f"part (got {cv_folds})")
    return None


CC_DEFAULTS = {"se_rule": 0.0, "risk": "misclassification", "cv_folds": 10, "keep_root": True}
CC_CONSTRAINTS = {
    # SE <= 0.5 / sqrt(N): with k = 1000 the bound passes 1 (the root) for N < 250 000
    "se_rule": [Interval(Real, 0, 1000, closed="both")],
    "risk": [StrOptions({"misclassification", "impurity"})],
    # each fold grows a tree again; at most the growing rows (``check_rows``, before a run)
    "cv_folds": [Interval(Integral, 2, 1000, closed="both")],
    "keep_root": ["boolean"],
}


@register_pruner(
    "cc",
    "Cost-complexity pruning (Breiman et al. 1984; OC1 prune.c): weakest-link sequence, "
    "subtree chosen on the pruning set (or by V-fold CV) with the k-SE rule",
    params=CC_DEFAULTS,
    check_rows=check_rows,
)
@pruner_parameters("cc", CC_CONSTRAINTS)
def prune_cost_complexity(
    estimator, X_grow, y_grow, X_prune, y_prune, *, random_state=None,
    se_rule: float = 0.0, risk: str = "misclassification", cv_folds: int = 10,
    keep_root: bool = True, sample_weight=None, prune_weight=None,
):
    """Replace ``estimator.tree_`` by the subtree the k-SE rule picks; returns it.

    ``sample_weight`` / ``prune_weight``: the growing / pruning rows' weights before
    ``class_weight`` (``pruning.weights``). Records ``estimator.pruning_`` (alphas,
    leaves, errors, chosen index, method) and keeps the grown tree as
    ``estimator.unpruned_tree_``.
    """
    tree = estimator.tree_
    criterion = getattr(estimator, "criterion", "gini")
    criterion = criterion if criterion in ("gini", "entropy") else "gini"
    path = cost_complexity_path(tree, risk, criterion, keep_root)
    if X_prune is not None and len(X_prune) > 0:
        weights = part_weights(estimator, y_prune, prune_weight)
        if weights is not None:
            weights, X_prune, y_prune = drop_weightless(weights, np.asarray(X_prune),
                                                        np.asarray(y_prune))
    if X_prune is not None and len(X_prune) > 0:
        errors = subtree_errors(tree, path, estimator.tree_input(X_prune),
                                estimator.encode(y_prune), weights)
        n_eval = len(X_prune) if weights is None else float(weights.sum())
        method = "pruning set"
    else:
        rng = np.random.default_rng(random_state)
        X_grow, y_grow = np.asarray(X_grow, dtype=np.float64), np.asarray(y_grow)
        weights = part_weights(estimator, y_grow, sample_weight)
        weights, X_grow, y_grow = drop_weightless(weights, X_grow, y_grow)
        errors = cv_subtree_errors(estimator, path, X_grow, y_grow, int(cv_folds), rng, risk,
                                   criterion, keep_root, weights)
        n_eval = len(X_grow) if weights is None else float(weights.sum())
        method = f"{cv_folds}-fold CV"
    chosen = select_k_se(errors, n_eval, path.n_leaves, se_rule)
    estimator.unpruned_tree_ = tree
    estimator.tree_ = path.subtree(tree, chosen)
    estimator.pruning_ = {
        "method": method, "alphas": path.alphas.tolist(), "n_leaves": path.n_leaves.tolist(),
        "errors": errors.tolist(), "n_eval": n_eval, "chosen": chosen, "se_rule": se_rule,
    }
    return estimator


@register_pruner(
    "cc-cv",
    "Cost-complexity pruning with the subtree always chosen by V-fold CV on the whole "
    "training part (Breiman et al. 1984 §3.4.2; IND's cart styles); grows on any prune rows",
    params=CC_DEFAULTS,
    uses_prune_set=False,
    check_rows=check_rows,
)
@pruner_parameters("cc-cv", CC_CONSTRAINTS)
def prune_cost_complexity_cv(
    estimator, X_grow, y_grow, X_prune=None, y_prune=None, *, random_state=None,
    se_rule: float = 0.0, risk: str = "misclassification", cv_folds: int = 10,
    keep_root: bool = True, sample_weight=None, prune_weight=None,
):
    """``cc`` that never reads a pruning set: the k-SE subtree is chosen by ``cv_folds``-fold
    CV on the growing rows, and (``uses_prune_set=False``) the runner grows the tree on
    the rows a protocol's ``prune_fraction`` holds out, as for a tree without a pruner.

    This is how CART itself (Breiman et al. 1984, §3.4.2) and IND 2.1's "cart" styles
    choose the subtree, so an experiment can run it beside OC1's pruning on a held-out
    10 % (the OC1 paper's Table 1 does: OC1, OC1-AP and CART-LC on 10 %, CART-AP by
    10-fold CV). ``X_prune``, ``y_prune`` and ``prune_weight`` are ignored."""
    return prune_cost_complexity(estimator, X_grow, y_grow, None, None,
                                 random_state=random_state, se_rule=se_rule, risk=risk,
                                 cv_folds=cv_folds, keep_root=keep_root,
                                 sample_weight=sample_weight)


# Leaves are marked by LEAF in children arrays; re-exported for pruners built on this one.
__all__ = ["LEAF", "PruningPath", "cost_complexity_path", "prune_cost_complexity",
           "prune_cost_complexity_cv", "select_k_se", "subtree_errors"]
