"""CART-AP against scikit-learn and against hand-worked criteria."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from obliq_cli import make_estimator
from obliq_cli.tree.axis_search import find_best_axis_split
from obliq_cli.tree.impurity import entropy_split, gini_split, twoing_split


def tie_free_problem(seed, max_depth):
    """Data whose scikit-learn tree is the same for every random_state.

    scikit-learn breaks ties between features at random, so identical trees over ten
    random states mean no two candidate splits tie; values are float32-exact because
    scikit-learn searches in float32.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] * X[:, 1] + 0.3 * X[:, 2] + 0.5 * rng.normal(size=300)) > 0).astype(int)
    trees = [DecisionTreeClassifier(random_state=s, max_depth=max_depth).fit(X, y).tree_
             for s in range(10)]
    if not all(np.array_equal(t.threshold, trees[0].threshold) for t in trees):
        return None
    return X, y


TIE_FREE = [(0, 4), (1, 4)]  # (seed, max_depth) pairs found tie-free by the check above


@pytest.mark.parametrize("seed,max_depth", TIE_FREE)
def test_gini_tree_equals_scikit_learn(seed, max_depth):
    problem = tie_free_problem(seed, max_depth)
    assert problem is not None, "fixture no longer tie-free"
    X, y = problem
    ours = make_estimator("cart-ap", criterion="gini", max_depth=max_depth).fit(X, y)
    sk = DecisionTreeClassifier(random_state=0, max_depth=max_depth).fit(X, y)
    assert ours.n_leaves_ == sk.get_n_leaves()
    assert ours.depth_ == sk.get_depth()
    assert ours.n_nodes_ == sk.tree_.node_count
    # Both number nodes depth-first, left first: the arrays line up node by node.
    np.testing.assert_array_equal(ours.tree_.children_left, sk.tree_.children_left)
    split = sk.tree_.feature >= 0
    np.testing.assert_array_equal(ours.tree_.feature[split], sk.tree_.feature[split])
    np.testing.assert_allclose(ours.tree_.threshold[split], sk.tree_.threshold[split],
                               rtol=1e-6)
    X_new = np.random.default_rng(99).normal(size=(5000, 3))
    np.testing.assert_array_equal(ours.predict(X_new), sk.predict(X_new))


def test_unlimited_tree_matches_scikit_learn_on_one_feature():
    # With one feature there is no tie between features; within a feature both pick
    # the lowest threshold, so full trees agree.
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(500, 1)).astype(np.float32).astype(np.float64)
    y = (np.sin(12 * X[:, 0]) + 0.6 * rng.normal(size=500) > 0).astype(int)
    ours = make_estimator("cart-ap").fit(X, y)
    sk = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert (ours.n_leaves_, ours.depth_) == (sk.get_n_leaves(), sk.get_depth())
    grid = np.linspace(-0.1, 1.1, 20001)[:, None]
    np.testing.assert_array_equal(ours.predict(grid), sk.predict(grid))


def test_criteria_known_answers():
    # Left counts (3, 1), right counts (0, 4); n = 8.
    left, right = np.array([[3.0, 1.0]]), np.array([[0.0, 4.0]])
    # gini: (4 * (1 - 9/16 - 1/16) + 4 * 0) / 8 = 0.1875
    assert gini_split(left, right)[0] == pytest.approx(0.1875)
    # entropy: 4/8 * H(3/4, 1/4) = 0.5 * 0.811278...
    assert entropy_split(left, right)[0] == pytest.approx(0.5 * 0.8112781244591328)
    # twoing: pL pR / 4 (|3/4 - 0| + |1/4 - 1|)^2 = 0.25 / 4 * 1.5^2 = 0.140625
    assert twoing_split(left, right)[0] == pytest.approx(-0.140625)


def test_axis_search_hand_example_and_ties():
    # Feature 0 separates perfectly at 2.5; feature 1 is noise.
    X = np.array([[1.0, 5.0], [2.0, 1.0], [3.0, 4.0], [4.0, 2.0]])
    y = np.array([0, 0, 1, 1])
    best = find_best_axis_split(X, y, 2, gini_split)
    assert (best.feature, best.threshold, best.score) == (0, 2.5, 0.0)
    # Two identical columns: the lower feature index wins the tie.
    best = find_best_axis_split(np.column_stack([X[:, 0], X[:, 0]])[:, ::-1], y, 2, gini_split)
    assert best.feature == 0
    # Constant features give no split at all.
    assert find_best_axis_split(np.ones((4, 2)), y, 2, gini_split) is None


def test_repeated_values_give_thresholds_between_distinct_values():
    X = np.array([[1.0], [1.0], [1.0], [2.0], [2.0], [3.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    best = find_best_axis_split(X, y, 2, gini_split)
    assert best.threshold == 1.5 and best.score == 0.0


def test_string_labels_and_predict_proba():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array(["b", "b", "a", "a", "a"])
    est = make_estimator("cart-ap", max_depth=1).fit(X, y)
    assert list(est.classes_) == ["a", "b"]
    np.testing.assert_array_equal(est.predict([[0.5], [3.5]]), ["b", "a"])
    np.testing.assert_allclose(est.predict_proba([[0.5]]), [[0.0, 1.0]])
    assert est.score(X, y) == 1.0


# --- Missing values as scikit-learn's trees handle them ----------------------------------


def tie_free_problem_with_nan(seed, max_depth, fraction=0.15):
    """``tie_free_problem``'s data with ``fraction`` of the values missing, and whether
    scikit-learn's tree is the same for ten random states (no ties)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] * X[:, 1] + 0.3 * X[:, 2] + 0.5 * rng.normal(size=300)) > 0).astype(int)
    X[rng.uniform(size=X.shape) < fraction] = np.nan
    trees = [DecisionTreeClassifier(random_state=s, max_depth=max_depth).fit(X, y).tree_
             for s in range(10)]
    tie_free = all(np.array_equal(t.threshold, trees[0].threshold)
                   and np.array_equal(t.feature, trees[0].feature) for t in trees)
    return X, y, tie_free


@pytest.mark.parametrize("seed", [2, 4, 5])  # found tie-free by the check above
def test_gini_tree_with_missing_values_equals_scikit_learn(seed):
    X, y, tie_free = tie_free_problem_with_nan(seed, 4)
    assert tie_free, "fixture no longer tie-free"
    ours = make_estimator("cart-ap", criterion="gini", max_depth=4).fit(X, y)
    sk = DecisionTreeClassifier(random_state=0, max_depth=4).fit(X, y)
    assert ours.n_nodes_ == sk.tree_.node_count
    np.testing.assert_array_equal(ours.tree_.children_left, sk.tree_.children_left)
    split = sk.tree_.feature >= 0
    np.testing.assert_array_equal(ours.tree_.feature[split], sk.tree_.feature[split])
    np.testing.assert_allclose(ours.tree_.threshold[split], sk.tree_.threshold[split],
                               rtol=1e-6)
    np.testing.assert_array_equal(ours.tree_.value.sum(axis=1),
                                  sk.tree_.n_node_samples)
    # the learned (or, where a node saw none, the larger child's) branch for missing
    # values is scikit-learn's missing_go_to_left, node for node
    np.testing.assert_array_equal(ours.tree_.missing_branch()[split] == 0,
                                  sk.tree_.missing_go_to_left[split].astype(bool))
    rng = np.random.default_rng(99)
    X_new = rng.normal(size=(5000, 3))
    X_new[rng.uniform(size=X_new.shape) < 0.2] = np.nan
    np.testing.assert_array_equal(ours.predict(X_new), sk.predict(X_new))
    np.testing.assert_array_equal(ours.apply(X_new), sk.apply(X_new))


def test_missing_values_alone_on_the_right_by_hand():
    # x0 is known exactly for class 0 and missing exactly for class 1: the best split is
    # "every known value left, the missing ones right", threshold +inf.
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 1.0], [np.nan, 2.0], [np.nan, 1.0]])
    y = np.array([0, 0, 0, 1, 1])
    tree = make_estimator("cart-ap").fit(X, y).tree_
    assert tree.feature[0] == 0 and tree.threshold[0] == np.inf and tree.missing[0] == 1
    assert tree.n_leaves == 2
    np.testing.assert_array_equal(tree.predict(np.array([[1e9, 0], [np.nan, 0]])), [0, 1])
    sk = DecisionTreeClassifier().fit(X, y)
    assert sk.tree_.threshold[0] == np.inf
    # strict JSON: +inf is written as the largest float, the same test for finite values
    import json

    text = json.dumps(tree.to_dict(), allow_nan=False)
    back = type(tree).from_json(text)
    Z = np.array([[1e300, 0], [np.nan, 0], [-3.0, 5.0]])
    np.testing.assert_array_equal(back.predict_proba(Z), tree.predict_proba(Z))


def test_nan_is_declared_by_cart_ap_and_refused_by_oc1_ap():
    from obliq_cli.errors import DataError

    assert make_estimator("cart-ap").__sklearn_tags__().input_tags.allow_nan
    assert not make_estimator("oc1-ap").__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(DataError, match="NaN"):
        make_estimator("oc1-ap").fit([[np.nan], [1.0]], [0, 1])


def test_rules_with_missing_branches_equal_predictions():
    from conftest import rule_predictions

    X, y, _ = tie_free_problem_with_nan(2, None)
    est = make_estimator("cart-ap").fit(X, y)
    assert (est.tree_.missing >= 0).any()  # some splits learned a side for missing values
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(2000, 3))
    Z[rng.uniform(size=Z.shape) < 0.25] = np.nan
    assert (rule_predictions(est, Z) == est.predict(Z)).all()
