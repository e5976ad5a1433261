"""The benchmark's scikit-learn CART with a cross-validated ccp_alpha
(obliq_cli/algorithms/sklearn_tree.py), checked against scikit-learn's own GridSearchCV."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import check_estimator

from obliq_cli.algorithms.sklearn_tree import CostComplexityTreeClassifier, thinned


def test_thinned_keeps_both_ends_and_spaces_by_rank():
    alphas = np.array([0.0, 0.5, 0.1, 0.2, 0.3, 0.4, 0.1])
    assert list(thinned(alphas, 10)) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    assert list(thinned(alphas, 3)) == [0.0, 0.2, 0.5]  # ranks 0, 2.5 -> 2, 5
    assert list(thinned(alphas, 2)) == [0.0, 0.5]


def test_the_cv_scores_are_grid_search_cvs_and_the_largest_best_alpha_wins():
    X, y = load_breast_cancer(return_X_y=True)
    est = CostComplexityTreeClassifier(random_state=np.random.RandomState(4)).fit(X, y)
    seed = int(np.random.RandomState(4).randint(2**31 - 1))
    path = DecisionTreeClassifier(random_state=seed).cost_complexity_pruning_path(X, y)
    alphas = thinned(path.ccp_alphas, 20)
    assert np.array_equal(est.candidate_alphas_, alphas)
    grid = GridSearchCV(DecisionTreeClassifier(random_state=seed), {"ccp_alpha": alphas},
                        cv=StratifiedKFold(5, shuffle=True, random_state=seed)).fit(X, y)
    assert np.allclose(est.cv_accuracy_, grid.cv_results_["mean_test_score"], atol=1e-12)
    best = np.flatnonzero(np.isclose(est.cv_accuracy_, est.cv_accuracy_.max(), atol=1e-12))
    assert est.ccp_alpha_ == alphas[best[-1]]
    pruned = DecisionTreeClassifier(random_state=seed, ccp_alpha=est.ccp_alpha_).fit(X, y)
    assert np.array_equal(est.predict(X), pruned.predict(X))
    assert est.n_leaves_ == pruned.get_n_leaves() < DecisionTreeClassifier(
        random_state=seed).fit(X, y).get_n_leaves()
    assert est.depth_ == pruned.get_depth() and est.n_nodes_ == pruned.tree_.node_count


def test_a_class_smaller_than_the_folds_falls_back_to_plain_folds():
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:50, 50:53, 100:150]  # class 1: three rows, fewer than 5 folds
    est = CostComplexityTreeClassifier(random_state=0).fit(X[keep], y[keep])
    assert est.cv_accuracy_.max() > 0.9 and set(est.predict(X)) <= {0, 1, 2}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_it_passes_scikit_learns_estimator_checks():
    check_estimator(CostComplexityTreeClassifier())


def test_weights_reach_scikit_learn_s_trees():
    # integer weights are copies of rows; class_weight passes through to every fit
    from sklearn.datasets import load_iris
    from sklearn.utils.class_weight import compute_sample_weight

    from obliq_cli.algorithms.sklearn_tree import CostComplexityTreeClassifier

    X, y = load_iris(return_X_y=True)
    X, y = X[:120], y[:120]
    w = np.random.default_rng(1).integers(1, 3, len(y))
    weighted = CostComplexityTreeClassifier(cv=3, random_state=0).fit(X, y, sample_weight=w)
    assert weighted.tree_model_.tree_.weighted_n_node_samples[0] == w.sum()
    balanced = CostComplexityTreeClassifier(cv=3, random_state=0, class_weight="balanced")
    balanced.fit(X, y)
    assert balanced.tree_model_.class_weight == "balanced"
    np.testing.assert_allclose(balanced.tree_model_.tree_.weighted_n_node_samples[0],
                               compute_sample_weight("balanced", y).sum())
