"""Cost-complexity pruning: hand-worked sequences, scikit-learn's path, the k-SE rule."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

from obliq_cli import make_estimator
from obliq_cli.config import PrunerSpec
from obliq_cli.experiment.fit import grow_and_prune_rows
from obliq_cli.pruning.cost_complexity import (
    cost_complexity_path,
    prune_cost_complexity,
    select_k_se,
    subtree_errors,
)
from obliq_cli.registry import get_pruner
from obliq_cli.tree.structure import LEAF, Tree


def hand_tree():
    """A 7-node tree on x1 with N = 10 rows, counts chosen so the alphas are easy.

            root [6,4]  x <= 5
           /                  \\
      A [5,1] x <= 2        B [1,3] x <= 8
       /      \\              /      \\
    A1 [5,0] A2 [0,1]   B1 [1,2]  B2 [0,1]

    R = misclassified / 10: R(root) = .4, R(A) = .1, R(B) = .1, R(B1) = .1, others 0.
    g(B) = (.1 - .1) / 1 = 0      -> cut first: T(0) has 3 leaves
    g(A) = (.1 - 0) / 1 = .1      -> T_1 at alpha .1 (leaves A, B)
    g(root) after that = (.4 - .2) / (2 - 1) = .2 -> the root alone at alpha .2
    """
    left = np.array([1, 2, LEAF, LEAF, 5, LEAF, LEAF])
    right = np.array([4, 3, LEAF, LEAF, 6, LEAF, LEAF])
    feature = np.array([0, 0, LEAF, LEAF, 0, LEAF, LEAF])
    weights = np.where(feature[:, None] == 0, 1.0, 0.0)
    threshold = np.array([5.0, 2.0, 0, 0, 8.0, 0, 0])
    value = np.array([[6, 4], [5, 1], [5, 0], [0, 1], [1, 3], [1, 2], [0, 1]], dtype=float)
    return Tree(left, right, feature, weights, threshold, value)


def test_hand_worked_sequence_misclassification_risk():
    tree = hand_tree()
    path = cost_complexity_path(tree, keep_root=False)
    np.testing.assert_allclose(path.alphas, [0.0, 0.1, 0.2])
    np.testing.assert_array_equal(path.n_leaves, [3, 2, 1])
    np.testing.assert_array_equal(np.flatnonzero(path.collapsed[0]), [4])  # B cut at 0
    assert path.subtree(tree, 2).n_nodes == 1
    # OC1 never cuts the root: the sequence stops at the one-split tree.
    oc1 = cost_complexity_path(tree, keep_root=True)
    np.testing.assert_allclose(oc1.alphas, [0.0, 0.1])
    np.testing.assert_array_equal(oc1.n_leaves, [3, 2])


def test_pruning_set_errors_and_k_se_choice_by_hand():
    tree = hand_tree()
    path = cost_complexity_path(tree, keep_root=True)
    # Pruning rows (x, class): A1 region (x<=2): class 0, 0; A2 region (2<x<=5): class 0
    # (A2 predicts 1 -> wrong in T(0); A as a leaf predicts 0 -> right);
    # B region (x>5): class 1, 1, 0.
    X = np.array([[1.0], [1.5], [3.0], [6.0], [9.0], [7.0]])
    y = np.array([0, 0, 0, 1, 1, 0])
    # T(0) (leaves A1, A2, B): errors = A2 wrong (1) + B predicts 1, the 0 is wrong (1) = 2
    # T_1 (leaves A, B): errors = 0 + 1 = 1
    np.testing.assert_array_equal(subtree_errors(tree, path, X, y), [2, 1])
    assert select_k_se(np.array([2, 1]), 6, path.n_leaves, 0.0) == 1


def test_k_se_rule_prefers_fewer_leaves_within_k_standard_errors():
    errors = np.array([10, 8, 9, 12])  # of n = 100
    leaves = np.array([20, 12, 6, 2])
    assert select_k_se(errors, 100, leaves, 0.0) == 1  # the minimum itself
    # SE = sqrt(.08 * .92 / 100) = .02713; 1-SE bound .1071 admits 10 and 9 errors.
    assert select_k_se(errors, 100, leaves, 1.0) == 2


def tie_free(seed, max_depth):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] * X[:, 1] + 0.3 * X[:, 2] + 0.5 * rng.normal(size=300)) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("seed,max_depth", [(0, 4), (1, 4)])
def test_impurity_risk_alphas_equal_scikit_learn(seed, max_depth):
    X, y = tie_free(seed, max_depth)
    sk = DecisionTreeClassifier(random_state=0, max_depth=max_depth)
    sk_alphas = sk.cost_complexity_pruning_path(X, y).ccp_alphas
    est = make_estimator("cart-ap", max_depth=max_depth).fit(X, y)
    ours = cost_complexity_path(est.tree_, risk="impurity", keep_root=False).alphas
    # scikit-learn cuts one node per step, so tied nodes repeat an alpha; Breiman cuts
    # all of them at once. The distinct values must agree.
    np.testing.assert_allclose(ours, np.unique(sk_alphas.round(12)), rtol=1e-7, atol=1e-12)


def test_pruned_tree_equals_sklearn_ccp_alpha_tree():
    X, y = tie_free(0, 4)
    est = make_estimator("cart-ap", max_depth=4).fit(X, y)
    path = cost_complexity_path(est.tree_, risk="impurity", keep_root=False)
    alpha = (path.alphas[2] + path.alphas[3]) / 2
    sk = DecisionTreeClassifier(random_state=0, max_depth=4, ccp_alpha=alpha).fit(X, y)
    ours = path.subtree(est.tree_, path.index_for_alpha(alpha))
    assert ours.n_leaves == sk.get_n_leaves()
    X_new = np.random.default_rng(7).normal(size=(3000, 3))
    np.testing.assert_array_equal(est.classes_[ours.predict(X_new)], sk.predict(X_new))


def noisy_problem(seed=0, n=600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.uniform(size=n) < 0.2)).astype(int)
    return X, y


def test_pruner_on_pruning_set_shrinks_and_is_optimal_on_that_set():
    X, y = noisy_problem()
    grow, prune = slice(0, 500), slice(500, None)
    est = make_estimator("cart-ap").fit(X[grow], y[grow])
    full_leaves = est.n_leaves_
    pruned = get_pruner("cc")(est, X[grow], y[grow], X[prune], y[prune], random_state=0)
    info = pruned.pruning_
    assert pruned.n_leaves_ < full_leaves and pruned.n_leaves_ >= 2
    # The chosen subtree's pruning-set error is the least of the sequence (0-SE) ...
    assert info["errors"][info["chosen"]] == min(info["errors"])
    # ... and it is what the pruned tree scores on the pruning set.
    wrong = int((pruned.predict(X[prune]) != y[prune]).sum())
    assert wrong == info["errors"][info["chosen"]]
    assert pruned.unpruned_tree_.n_leaves == full_leaves


def test_one_se_never_keeps_more_leaves_than_zero_se():
    X, y = noisy_problem(1)
    sizes = {}
    for k in (0.0, 1.0):
        est = make_estimator("cart-ap").fit(X[:450], y[:450])
        sizes[k] = prune_cost_complexity(est, X[:450], y[:450], X[450:], y[450:],
                                         se_rule=k).n_leaves_
    assert sizes[1.0] <= sizes[0.0]


def test_cross_validated_pruning_without_pruning_set_is_seeded():
    X, y = noisy_problem(2, 400)
    results = []
    for _ in range(2):
        est = make_estimator("cart-ap").fit(X, y)
        out = prune_cost_complexity(est, X, y, None, None, random_state=3, cv_folds=5)
        results.append((out.n_leaves_, out.pruning_["errors"]))
    assert results[0] == results[1]
    assert results[0][0] < make_estimator("cart-ap").fit(X, y).n_leaves_
    assert est.pruning_["method"] == "5-fold CV"


def test_cc_cv_chooses_by_cross_validation_even_beside_a_pruning_set():
    # IND's cart0 (the OC1 paper's CART-AP): the subtree comes from V-fold CV on the
    # growing rows; a pruning set handed in is not read
    X, y = noisy_problem(4, 400)
    grown = make_estimator("cart-ap").fit(X[:300], y[:300])
    by_cv = prune_cost_complexity(clone(grown).fit(X[:300], y[:300]), X[:300], y[:300],
                                  None, None, random_state=5, cv_folds=5)
    out = get_pruner("cc-cv")(grown, X[:300], y[:300], X[300:], y[300:], random_state=5,
                              cv_folds=5)
    assert out.pruning_["method"] == "5-fold CV" and out.pruning_["n_eval"] == 300
    assert out.pruning_["errors"] == by_cv.pruning_["errors"]
    assert out.n_leaves_ == by_cv.n_leaves_ < grown.unpruned_tree_.n_leaves


def test_cc_cv_grows_on_the_rows_a_pruning_set_would_take():
    train, prune = np.arange(0, 90), np.arange(90, 100)
    grow, held = grow_and_prune_rows(PrunerSpec("cc-cv", {}), train, prune)
    np.testing.assert_array_equal(grow, np.arange(100))
    assert held.size == 0
    grow, held = grow_and_prune_rows(PrunerSpec("cc", {}), train, prune)
    assert grow is train and held is prune


def test_pure_grown_tree_and_single_leaf_are_left_alone():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    est = make_estimator("cart-ap").fit(X, y)
    out = prune_cost_complexity(est, X, y, X, y)
    assert out.n_leaves_ == 2  # the root split is never cut
    single = make_estimator("cart-ap").fit(X, np.zeros(4))
    assert prune_cost_complexity(single, X, y, X, y).n_leaves_ == 1
