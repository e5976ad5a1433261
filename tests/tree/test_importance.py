"""Feature importances, a node's hyperplane and the share of oblique splits: hand-worked
trees, scikit-learn's CART, and the routing of real oblique trees."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from obliq_cli import make_estimator
from obliq_cli.errors import ObliqError
from obliq_cli.kernels.linalg import rowwise_dot
from obliq_cli.tree.importance import feature_importances, impurity_decrease, split_shares
from obliq_cli.tree.impurity import gini_of_counts
from obliq_cli.tree.structure import LEAF, NOMINAL, OBLIQUE, Tree, weighs_several


def hand_tree() -> Tree:
    """x0 <= 0.5 at the root ([6, 4]); its right child [2, 4] splits on x0 - 3 x1 <= 0;
    every leaf is pure."""
    weights = np.zeros((5, 3))
    weights[0, 0] = 1.0
    weights[2] = [1.0, -3.0, 0.0]
    return Tree(np.array([1, LEAF, 3, LEAF, LEAF]), np.array([2, LEAF, 4, LEAF, LEAF]),
                np.array([0, LEAF, OBLIQUE, LEAF, LEAF]), weights,
                np.array([0.5, 0, 0.0, 0, 0]),
                np.array([[6.0, 4], [4, 0], [2, 4], [2, 0], [0, 4]]))


def test_importances_of_a_hand_worked_oblique_tree():
    tree = hand_tree()
    # gini: root 10 x 0.48 = 4.8; node 2: 6 x (1 - 1/9 - 4/9) = 8/3; leaves pure
    np.testing.assert_allclose(impurity_decrease(tree, gini_of_counts),
                               [4.8 - 8 / 3, 0, 8 / 3, 0, 0])
    spread = np.array([2.0, 0.5, 7.0])
    # node 2 shares by |w_j| s_j: 1 x 2 = 2 and 3 x 0.5 = 1.5 -> 4/7, 3/7; x2 weighs 0
    np.testing.assert_allclose(split_shares(tree.weights, spread)[2], [4 / 7, 3 / 7, 0])
    # x0: (32/15 + 8/3 x 4/7) / 4.8 = 16/21; x1: (8/3 x 3/7) / 4.8 = 5/21
    np.testing.assert_allclose(feature_importances(tree, gini_of_counts, spread),
                               [16 / 21, 5 / 21, 0])
    # |w| alone would give x1 the larger share of node 2: 1/4 against 3/4
    np.testing.assert_allclose(feature_importances(tree, gini_of_counts, np.ones(3)),
                               [(32 / 15 + 8 / 3 / 4) / 4.8, 8 / 3 * 3 / 4 / 4.8, 0])


def test_importances_do_not_change_when_a_column_is_rescaled():
    """x1 -> 1000 x1: the same split is x0 - 0.003 x1 <= 0, and x1's spread is 1000 times
    larger; the shares stay."""
    tree, spread = hand_tree(), np.array([2.0, 0.5, 7.0])
    scaled = Tree(tree.children_left, tree.children_right, tree.feature,
                  tree.weights * [1.0, 1e-3, 1.0], tree.threshold, tree.value)
    np.testing.assert_allclose(
        feature_importances(scaled, gini_of_counts, spread * [1.0, 1e3, 1.0]),
        feature_importances(tree, gini_of_counts, spread))


def test_a_split_on_constant_columns_shares_by_its_weights_and_a_leaf_has_none():
    shares = split_shares(np.array([[2.0, -6.0], [0.0, 0.0]]), np.zeros(2))
    np.testing.assert_allclose(shares, [[0.25, 0.75], [0, 0]])
    leaf = Tree(np.array([LEAF]), np.array([LEAF]), np.array([LEAF]), np.zeros((1, 2)),
                np.zeros(1), np.array([[3.0, 2.0]]))
    np.testing.assert_array_equal(feature_importances(leaf, gini_of_counts, np.ones(2)),
                                  [0, 0])


def tie_free(seed=0, n=300):
    """Continuous float32-exact features (scikit-learn searches in float32) where no two
    candidate splits tie (test_cart's check: the same tree for ten random states)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] * X[:, 1] + 0.4 * X[:, 2] + 0.5 * rng.normal(size=n)) > 0).astype(int)
    return X, y


# (criterion, seed, depth) whose scikit-learn tree is the same for ten random states
@pytest.mark.parametrize("criterion,seed,depth", [("gini", 0, 5), ("gini", 6, 4),
                                                  ("entropy", 3, 4), ("entropy", 4, 4)])
def test_an_axis_parallel_tree_has_scikit_learns_importances(criterion, seed, depth):
    X, y = tie_free(seed)
    trees = [DecisionTreeClassifier(criterion=criterion, max_depth=depth, random_state=s)
             .fit(X, y) for s in range(10)]
    assert all(np.array_equal(t.tree_.threshold, trees[0].tree_.threshold) for t in trees)
    ours = make_estimator("cart-ap", criterion=criterion, max_depth=depth).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.children_left, trees[0].tree_.children_left)
    np.testing.assert_allclose(ours.feature_importances_, trees[0].feature_importances_,
                               rtol=1e-12, atol=1e-15)
    assert ours.feature_importances_.sum() == pytest.approx(1.0)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).permutation(y.size)[:300]
    return X[rows], y[rows]


@pytest.fixture(scope="module")
def oc1_tree(cancer):
    X, y = cancer
    return make_estimator("oc1", random_state=0, n_restarts=2).fit(X, y)


def route_by_hyperplanes(estimator, X) -> np.ndarray:
    """The leaf of every row, sending it left at each node iff ``w . x <= t`` with the
    estimator's public ``hyperplane`` (summed in column order). A loop over nodes."""
    tree = estimator.tree_
    node = np.zeros(X.shape[0], dtype=np.int64)
    for current in np.flatnonzero(~tree.is_leaf):  # preorder: parents first
        at = node == current
        if at.any():
            w, t = estimator.hyperplane(current)
            left = rowwise_dot(np.ascontiguousarray(X[at]), np.tile(w, (at.sum(), 1))) <= t
            node[at] = np.where(left, tree.children_left[current],
                                tree.children_right[current])
    return node


def test_the_hyperplanes_route_rows_as_the_tree_does(oc1_tree, cancer):
    X, _ = cancer
    assert oc1_tree.n_oblique_ > 0
    new = np.random.default_rng(1).normal(X.mean(axis=0), X.std(axis=0), size=(2000, 30))
    for rows in (X, new):
        np.testing.assert_array_equal(route_by_hyperplanes(oc1_tree, rows),
                                      oc1_tree.apply(rows))
    # numpy's own product agrees away from the threshold (it may sum in another order)
    w, t = oc1_tree.hyperplane(0)
    margin = new @ w - t
    clear = np.abs(margin) > 1e-9 * (np.abs(new) @ np.abs(w) + abs(t))
    goes_left = oc1_tree.apply(new) < oc1_tree.tree_.children_right[0]
    np.testing.assert_array_equal((margin <= 0)[clear], goes_left[clear])


def test_a_hyperplane_is_given_in_the_units_of_the_input():
    """A column of magnitude 1e40 is grown on scaled by 2**-133 (tree.conditioning); the
    public hyperplane weighs the column as given, exactly."""
    X, y = tie_free(3, 200)
    big = X.copy()
    big[:, 1] *= 1e40
    est = make_estimator("oc1", random_state=0, n_restarts=2).fit(big, y)
    assert est.input_exponents_[1] != 0
    node = int(np.flatnonzero(est.tree_.oblique_nodes())[0])
    w, _ = est.hyperplane(node)
    stored = est.tree_.weights[node]
    assert w[1] == np.ldexp(stored[1], int(est.input_exponents_[1]))
    assert (w[[0, 2, 3]] == stored[[0, 2, 3]]).all()
    np.testing.assert_array_equal(route_by_hyperplanes(est, big), est.apply(big))


def test_a_leaf_or_a_multiway_node_has_no_hyperplane():
    tree = hand_tree()
    w, t = tree.hyperplane(2)
    assert w.tolist() == [1.0, -3.0, 0.0] and t == 0.0
    w[0] = 99.0
    assert tree.weights[2, 0] == 1.0  # a copy
    with pytest.raises(ObliqError, match="node 1 is a leaf"):
        tree.hyperplane(1)
    with pytest.raises(ObliqError, match="node 7 is not a node"):
        tree.hyperplane(7)
    multiway = Tree(np.array([1, LEAF, LEAF]), np.array([2, LEAF, LEAF]),
                    np.array([0, LEAF, LEAF]), np.array([[1.0], [0], [0]]), np.zeros(3),
                    np.array([[2.0, 2], [2, 0], [0, 2]]), np.array([NOMINAL, 0, 0], np.int8))
    with pytest.raises(ObliqError, match="multiway test"):
        multiway.hyperplane(0)
    assert multiway.oblique_nodes().tolist() == [False] * 3


def test_oblique_nodes_count_input_columns():
    tree = hand_tree()
    assert tree.oblique_nodes().tolist() == [False, False, True, False, False]
    # columns 0 and 1 as dummies of one qualitative column: not oblique
    assert not tree.oblique_nodes(columns=[0, 0, 1]).any()
    assert weighs_several(np.array([[0, 2.0, 0], [1, 1, 0]])).tolist() == [False, True]


def test_importances_before_fit_of_a_wrapper_and_of_a_network(cancer):
    X, y = cancer
    est = make_estimator("oc1", random_state=0)
    assert not hasattr(est, "feature_importances_")
    with pytest.raises(NotFittedError):
        est.feature_importances_  # noqa: B018
    X3, y3 = X[:150, :5], np.arange(150) % 3
    ovo = make_estimator("umt-ovo", random_state=0).fit(X3, y3)
    members = [m.feature_importances_ for m in ovo.estimators_]
    np.testing.assert_allclose(ovo.feature_importances_, np.mean(members, axis=0))
    assert ovo.feature_importances_.sum() == pytest.approx(1.0)
    assert ovo.n_oblique_ == sum(m.n_oblique_ for m in ovo.estimators_)
    from obliq_cli.pruning.network import NetworkClassifier, network_from_tree

    grown = make_estimator("oc1", random_state=0, n_restarts=1).fit(X[:, :4], y)
    network = NetworkClassifier(grown, network_from_tree(grown.tree_))
    assert not hasattr(network, "feature_importances_")
    with pytest.raises(AttributeError, match="network-pruned"):
        network.feature_importances_  # noqa: B018
    assert network.n_oblique_ == grown.n_oblique_  # the unpruned network uses every plane


def test_a_stored_tree_keeps_its_importances(oc1_tree):
    import json

    from obliq_cli.tree.serialize import check_estimator_dict

    data = json.loads(json.dumps(oc1_tree.export_json()))
    again = make_estimator("oc1").load_tree(data)
    np.testing.assert_array_equal(again.feature_importances_, oc1_tree.feature_importances_)
    assert again.n_oblique_ == oc1_tree.n_oblique_
    del data["input_std"]  # a file written before the spread was kept
    older = make_estimator("oc1").load_tree(data)
    with pytest.raises(AttributeError, match="without input_std"):
        older.feature_importances_  # noqa: B018
    assert older.n_oblique_ == oc1_tree.n_oblique_
    for bad, message in [([1.0], "must be a list of 30 numbers"),
                         ([0.5] * 29 + [-1.0], r"input_std\[29\]: -1.0 is not a standard")]:
        with pytest.raises(ObliqError, match=message):
            check_estimator_dict({**data, "input_std": bad}, data["classes"])


def test_the_text_export_takes_the_largest_terms(oc1_tree):
    full = oc1_tree.export_text().splitlines()
    short = oc1_tree.export_text(terms=2).splitlines()
    assert len(full) == len(short) and not any("more)" in line for line in full)
    oblique = [line for line in short if "more)" in line]
    assert len(oblique) == 2 * oc1_tree.n_oblique_  # each split's <= and > lines
    assert all(line.count("*") <= 2 for line in oblique)
