"""C4.5 pessimistic pruning: U_CF, hand-worked trees, raising, invariants."""

import numpy as np
import pytest
from conftest import leaves_by_rules, rule_predictions
from scipy import stats

from obliq_cli import make_estimator
from obliq_cli.errors import ObliqError
from obliq_cli.pruning.pessimistic import (
    added_errors,
    c45_coefficient,
    estimated_errors,
    prune_pessimistic,
    upper_limit,
)
from obliq_cli.registry import get_pruner, pruner_entry
from obliq_cli.tree.structure import LEAF, OBLIQUE, Tree, node_class_counts


# ----------------------------------------------------------------------- U_CF
def test_coefficient_interpolates_the_c45_table():
    # CF = 0.25 lies a quarter of the way from 0.20 (z = 0.84) to 0.40 (z = 0.25).
    z = 0.84 + (0.25 - 0.84) * (0.25 - 0.20) / (0.40 - 0.20)
    assert c45_coefficient(0.25) == pytest.approx(z * z)
    assert c45_coefficient(0.10) == pytest.approx(1.28 ** 2)  # a table entry


def test_zero_errors_is_the_exact_binomial_limit():
    # (1 - U)^N = CF  <=>  U = 1 - CF^(1/N); Quinlan's §4.2 example values.
    for n, u in [(6, 0.206), (9, 0.143), (1, 0.750)]:
        assert upper_limit(n, 0, 0.25) == pytest.approx(u, abs=5e-4)
        assert upper_limit(n, 0, 0.25) == pytest.approx(stats.beta.ppf(0.75, 1, n))


def test_normal_approximation_by_hand():
    # N = 16, E = 1, CF = 0.25: Wilson-type limit with continuity correction (stats.c).
    c = c45_coefficient(0.25)
    h = 1.5
    u = (h + c / 2 + np.sqrt(c * (h * (1 - h / 16) + c / 4))) / (16 + c)
    assert estimated_errors(16, 1, 0.25) == pytest.approx(16 * u)
    assert added_errors(16, 1, 0.25) == pytest.approx(16 * u - 1)
    # E + 0.5 >= N: 0.67 (N - E) extra errors.
    assert added_errors(4, 3.6, 0.25) == pytest.approx(0.67 * 0.4)
    # Fractional E < 1 interpolates between E = 0 and E = 1.
    a0, a1 = added_errors(16, 0, 0.25), added_errors(16, 1, 0.25)
    assert added_errors(16, 0.5, 0.25) == pytest.approx(a0 + 0.5 * (a1 - a0))
    assert added_errors(0, 0, 0.25) == 0.0


@pytest.mark.parametrize("cf", [0.1, 0.25, 0.4])
def test_c45_limit_is_close_to_the_exact_binomial_limit(cf):
    n = np.array([10, 16, 20, 50, 100, 200, 1000, 40, 500])
    e = np.array([1, 1, 5, 3, 10, 60, 100, 20, 7])
    exact = stats.beta.ppf(1 - cf, e + 1, n - e)
    approx = upper_limit(n, e, cf)
    # Within 8 % (the normal approximation is roughest for one or two errors).
    assert np.all(np.abs(approx - exact) < 0.08 * exact + 2e-3)
    assert np.all(approx > e / n)  # always pessimistic


# ------------------------------------------------------------ hand-worked trees
def _three_leaf_tree():
    """root: x0 <= 0.5 ? leaf A : node B;  B: x1 <= 0.5 ? leaf C : leaf D."""
    left = np.array([1, LEAF, 3, LEAF, LEAF])
    right = np.array([2, LEAF, 4, LEAF, LEAF])
    feature = np.array([0, LEAF, 1, LEAF, LEAF])
    weights = np.zeros((5, 2))
    weights[0, 0] = weights[2, 1] = 1.0
    threshold = np.array([0.5, 0, 0.5, 0, 0])
    value = np.zeros((5, 2))
    return Tree(left, right, feature, weights, threshold, value)


def _fitted(X, y, tree):
    est = make_estimator("cart-ap").fit(X, y)
    tree.value = node_class_counts(tree, X, est.encode(y))[:, :2].astype(float)
    est.tree_ = tree
    return est


def _quinlan_data(a_rows_x1):
    """Quinlan §4.2 in binary form: leaf A holds 6 of class 0; under B, leaf C 9 of class
    0 and leaf D 1 of class 1. A's rows have x1 = ``a_rows_x1``."""
    X = np.array([[0.0, a_rows_x1]] * 6 + [[1.0, 0.0]] * 9 + [[1.0, 1.0]])
    y = np.array([0] * 15 + [1])
    return X, y


def test_subtree_replaced_by_a_leaf_by_hand():
    # B: leaves 9*U(0,9) + 1*U(0,1) = 1.285 + 0.750 = 2.035 < leaf 10*U(1,10) = 2.441: kept.
    # root: subtree 1.238 + 2.035 = 3.273; as a leaf 16*U(1,16) = 2.507 (<= 3.273 + 0.1);
    # raising B sends A's 6 rows (x1 = 1) to D: 1.285 + 7*U(1,7) = 3.652: the leaf wins.
    X, y = _quinlan_data(1.0)
    est = _fitted(X, y, _three_leaf_tree())
    assert estimated_errors(6, 0) + estimated_errors(9, 0) + estimated_errors(1, 0) == \
        pytest.approx(3.273, abs=1e-3)
    prune_pessimistic(est, X, y, None, None)
    assert est.tree_.n_nodes == 1
    assert est.tree_.value[0].tolist() == [15.0, 1.0]
    assert est.pruning_["estimated_errors"] == pytest.approx(float(estimated_errors(16, 1)))
    assert est.pruning_["n_raised"] == 0
    assert est.unpruned_tree_.n_leaves == 3


def test_raising_the_largest_branch_by_hand():
    # Now A's rows have x1 = 0: grafting B in the root's place sends them to C, which
    # holds 15 rows of class 0: 15*U(0,15) + 1*U(0,1) = 1.324 + 0.750 = 2.074, below the
    # leaf (2.507, not within 0.1) and the subtree (3.273): C4.5 raises B.
    X, y = _quinlan_data(0.0)
    est = _fitted(X, y, _three_leaf_tree())
    prune_pessimistic(est, X, y, None, None)
    t = est.tree_
    assert t.n_nodes == 3 and t.feature[0] == 1 and t.threshold[0] == 0.5
    assert t.value.tolist() == [[15, 1], [15, 0], [0, 1]]
    assert est.pruning_["n_raised"] == 1
    assert est.pruning_["estimated_errors"] == pytest.approx(
        float(estimated_errors(15, 0) + estimated_errors(1, 0)))
    assert np.array_equal(est.predict(X), y)
    # Without raising the same tree collapses to a leaf (2.507 <= 3.273 + 0.1).
    est2 = _fitted(X, y, _three_leaf_tree())
    prune_pessimistic(est2, X, y, None, None, subtree_raising=False)
    assert est2.tree_.n_nodes == 1


def test_raising_works_on_oblique_nodes():
    # The same shape with oblique hyperplanes (x0 + x1 <= 0.5 at the root).
    X, y = _quinlan_data(0.0)
    X = X @ np.array([[1.0, 0.0], [-1.0, 1.0]])  # columns: x0 - x1, x1
    tree = _three_leaf_tree()
    tree.feature = np.array([OBLIQUE, LEAF, OBLIQUE, LEAF, LEAF])
    tree.weights[0] = [1.0, 1.0]  # recovers the original x0
    tree.weights[2] = [0.0, 1.0] + np.array([1e-9, 0.0])  # nearly x1, still oblique
    est = _fitted(X, y, tree)
    prune_pessimistic(est, X, y, None, None)
    assert est.tree_.n_nodes == 3 and est.pruning_["n_raised"] == 1
    assert np.array_equal(est.predict(X), y)


# ---------------------------------------------------------------- invariants
@pytest.mark.parametrize("algo,params", [("cart-ap", {}), ("cart-lc", {"max_cycles": 5})])
def test_invariants_on_noisy_data(algo, params):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=300) > 0, "a", "b")
    est = make_estimator(algo, **params).fit(X, y)
    grown = est.tree_
    get_pruner("pessimistic")(est, X, y, X[:50], y[:50])
    t = est.tree_
    assert est.unpruned_tree_ is grown
    assert 1 <= t.n_leaves < grown.n_leaves  # noisy data: C4.5 prunes something
    assert np.all(t.children_left[~t.is_leaf] > np.flatnonzero(~t.is_leaf))  # preorder
    recount = node_class_counts(t, est.tree_input(X), est.encode(y))[:, :2]
    assert np.array_equal(t.value, recount)
    assert np.all(t.value.sum(axis=1) > 0)  # no node is left without training rows
    assert np.array_equal(leaves_by_rules(t, X), t.apply(X))
    assert np.array_equal(rule_predictions(est, X), est.predict(X))
    # Lower confidence prunes at least as hard, on this data.
    est2 = make_estimator(algo, **params).fit(X, y)
    get_pruner("pessimistic")(est2, X, y, None, None, confidence=0.05)
    assert est2.tree_.n_leaves <= t.n_leaves


def test_never_more_leaves_and_a_pure_tree_is_kept():
    rng = np.random.default_rng(5)
    for seed in range(4):
        X = rng.uniform(size=(120, 3))
        y = (X[:, 0] > 0.5).astype(int) if seed == 0 else rng.integers(0, 3, 120)
        est = make_estimator("cart-ap").fit(X, y)
        n_before = est.n_leaves_
        prune_pessimistic(est, X, y, None, None)
        assert est.n_leaves_ <= n_before
        if seed == 0:  # one clean split: nothing to prune
            assert est.n_leaves_ == n_before == 2


def test_registration_and_bad_parameters():
    entry = pruner_entry("pessimistic")
    assert entry.params == {"confidence": 0.25, "subtree_raising": True}
    assert entry.extra.get("uses_prune_set") is False
    X, y = _quinlan_data(1.0)
    for bad in (0, 1, 1.5, -0.2, "0.25", True):
        est = _fitted(X, y, _three_leaf_tree())
        with pytest.raises(ObliqError, match="confidence"):
            prune_pessimistic(est, X, y, None, None, confidence=bad)
    with pytest.raises(ObliqError, match="subtree_raising"):
        prune_pessimistic(_fitted(X, y, _three_leaf_tree()), X, y, None, None,
                          subtree_raising="yes")


# ------------------------------------------------ multiway trees, fractional cases
from obliq_cli.tree.builder import Split, SplitFinder, build_tree  # noqa: E402
from obliq_cli.tree.structure import MISSING_DISTRIBUTE  # noqa: E402


class _CodeThenX1(SplitFinder):
    """Root: multiway on the code column 0 (codes 0..2), C4.5's distribution of unknown
    codes; below: x1 <= 0.5."""

    def split(self, node):
        if node.is_root:
            return Split(feature=0, categories=3, missing=MISSING_DISTRIBUTE)
        return Split(threshold=0.5, feature=1, missing=MISSING_DISTRIBUTE)


def test_a_multiway_tree_with_fractional_cases_by_hand():
    # Codes 0, 1, 2 hold 4, 1 and 10 cases (code 2: 9 of class 0 at x1 = 0, one of class
    # 1 at x1 = 1); one more class-0 case (x1 = 0) has its code unknown and reaches the
    # branches with weights 4/15, 1/15, 10/15.
    X = np.array([[0, 0.0]] * 4 + [[1, 0.0]] + [[2, 0.0]] * 9 + [[2, 1.0], [np.nan, 0.0]])
    y = np.array([0] * 14 + [1, 0])
    est = make_estimator("c45").fit(X, y)
    est.tree_ = tree = build_tree(X, y, 2, _CodeThenX1())
    assert tree.n_leaves == 4
    code2 = tree.children(0)[2]
    np.testing.assert_allclose(tree.value[code2], [9 + 10 / 15, 1])
    # code 2: subtree U(9 2/3, 0) + U(1, 0) = 2.041 beats the leaf U(10 2/3, 1) = 2.452
    sub2 = estimated_errors(9 + 10 / 15, 0) + estimated_errors(1, 0)
    assert sub2 < estimated_errors(10 + 10 / 15, 1) - 0.1
    # root: subtree U(4 4/15, 0) + U(1 1/15, 0) + 2.041 = 4.001; leaf U(16, 1) = 2.507;
    # raising the largest branch (code 2, 10 of 15 known) with all 16 cases: x1 <= 0.5
    # gets 15 of class 0 (the unknown-code case is whole again), x1 > 0.5 the class-1
    # case: U(15, 0) + U(1, 0) = 2.074, below the leaf by more than 0.1: raised.
    root_tree = estimated_errors(4 + 4 / 15, 0) + estimated_errors(1 + 1 / 15, 0) + sub2
    raised = estimated_errors(15, 0) + estimated_errors(1, 0)
    leaf = estimated_errors(16, 1)
    assert raised <= root_tree + 0.1 and leaf > raised + 0.1
    # the raised node itself: its largest branch with all cases is U(16, 1) = the leaf,
    # above 2.074 + 0.1: it stays.
    prune_pessimistic(est, X, y, None, None)
    t = est.tree_
    assert est.pruning_["n_raised"] == 1 and est.pruning_["n_collapsed"] == 0
    assert est.pruning_["estimated_errors"] == pytest.approx(float(raised))
    assert t.n_nodes == 3 and t.feature[0] == 1 and t.kind[0] == 0
    assert t.value.tolist() == [[15, 1], [15, 0], [0, 1]]


def test_golf_tree_with_an_unknown_outlook_survives_pruning_by_hand():
    from conftest import GOLF_Y, golf_unknown

    X = golf_unknown()
    est = make_estimator("c45", categorical_features=[0, 3]).fit(X, GOLF_Y)
    grown = est.tree_
    w = 5 / 13
    # sunny: U(2, 0) + U(3 + w, w) against the leaf U(5 + w, 2 + w), and raising the
    # larger humidity branch (> 75) gives that same leaf count: the subtree stays.
    sunny = estimated_errors(2, 0) + estimated_errors(3 + w, w)
    assert sunny + 0.1 < estimated_errors(5 + w, 2 + w)
    # rain: U(2 + w, w) + U(3, 0) against U(5 + w, 2): stays.
    rain = estimated_errors(2 + w, w) + estimated_errors(3, 0)
    assert rain + 0.1 < estimated_errors(5 + w, 2)
    total = sunny + estimated_errors(3 + 3 / 13, 0) + rain
    # root: the largest branch (sunny and rain tie at 5 known: the later, rain) with all
    # 14 cases splits on windy: true 3/3, false 6/2 (every windy is known).
    raise_rain = estimated_errors(6, 3) + estimated_errors(8, 2)
    assert total + 0.1 < raise_rain and total + 0.1 < estimated_errors(14, 5)
    prune_pessimistic(est, X, GOLF_Y, None, None)
    assert est.pruning_["estimated_errors"] == pytest.approx(float(total))
    assert est.pruning_["n_raised"] == 0 and est.pruning_["n_collapsed"] == 0
    assert est.tree_.to_dict() == grown.to_dict()
