"""ID3 with Fayyad-Irani boundary-point cuts."""

import numpy as np
import pytest
from conftest import rule_predictions
from sklearn.tree import DecisionTreeClassifier

from obliq_cli import make_estimator
from obliq_cli.algorithms.id3 import best_boundary_cut, boundary_cuts, information_gain
from obliq_cli.tree.axis_search import find_best_axis_split
from obliq_cli.tree.impurity import entropy_of_counts, entropy_split

H_3_1 = 0.8112781244591328  # -(3/4 log2 3/4 + 1/4 log2 1/4)
H_2_1 = 0.9182958340544896  # -(2/3 log2 2/3 + 1/3 log2 1/3)


def test_gain_by_hand():
    X = np.array([[1.0], [2], [3], [4], [5], [6]])
    y = np.array([0, 0, 1, 0, 1, 1])
    cuts = boundary_cuts(X, y, 2)
    # Boundary points lie between 2|3, 3|4 and 4|5 only (1|2 and 5|6 join one class).
    assert cuts.threshold.tolist() == [2.5, 3.5, 4.5]
    expected = [1 - 4 / 6 * H_3_1, 1 - H_2_1, 1 - 4 / 6 * H_3_1]
    assert np.allclose(cuts.gain, expected)
    assert best_boundary_cut(X, y, 2) == (0, 2.5, pytest.approx(1 - 4 / 6 * H_3_1))
    assert information_gain([[2, 0]], [[0, 2]])[0] == pytest.approx(1.0)
    assert information_gain([[1, 1]], [[1, 1]])[0] == pytest.approx(0.0)


def test_boundary_points_with_repeated_values():
    # Equal values of mixed classes make both neighbouring cuts boundary points.
    X = np.array([[1.0], [1], [2], [2], [3], [4]])
    assert boundary_cuts(X, np.array([0, 1, 0, 0, 0, 0]), 2).threshold.tolist() == [1.5]
    assert boundary_cuts(X, np.array([0, 0, 0, 0, 0, 1]), 2).threshold.tolist() == [3.5]
    # Values 1: {0, 0}, 2: {1, 0}, 3: {1}, 4: {1}: 3|4 joins one class, so no cut there.
    assert boundary_cuts(X, np.array([0, 0, 1, 0, 1, 1]), 2).threshold.tolist() == [1.5, 2.5]
    # A constant feature has no cut; a pure node has none either.
    assert best_boundary_cut(np.ones((4, 1)), np.array([0, 1, 0, 1]), 2) is None
    assert best_boundary_cut(X, np.zeros(6, int), 2) is None


def test_best_boundary_cut_is_the_best_cut_overall():
    # Fayyad & Irani's Theorem 1: no midpoint beats the best boundary point; the gain
    # also equals the impurity decrease of scikit-learn's entropy tree at the root.
    rng = np.random.default_rng(0)
    for trial in range(10):
        X = np.round(rng.normal(size=(80, 3)), 1)  # repeated values included
        y = rng.integers(0, 3, 80)
        feature, threshold, gain = best_boundary_cut(X, y, 3)
        node = entropy_of_counts(np.bincount(y, minlength=3))
        axis = find_best_axis_split(X, y, 3, entropy_split)
        assert gain == pytest.approx(node - axis.score, abs=1e-12)
        sk = DecisionTreeClassifier(criterion="entropy", max_depth=1,
                                    random_state=trial).fit(X, y).tree_
        n = sk.n_node_samples
        decrease = sk.impurity[0] - (n[1] * sk.impurity[1] + n[2] * sk.impurity[2]) / n[0]
        assert gain == pytest.approx(decrease, abs=1e-9)


def test_every_threshold_lies_at_a_class_boundary():
    rng = np.random.default_rng(1)
    X = np.round(rng.uniform(0, 1, size=(200, 2)), 2)
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] > 0.6)).astype(int)
    y[rng.uniform(size=200) < 0.1] ^= 1
    est = make_estimator("id3").fit(X, y)
    tree = est.tree_
    codes = est.encode(y)
    # Rows reaching each node: walk down level by level (vectorised over rows).
    reach = {0: np.arange(len(X))}
    for node in np.flatnonzero(~tree.is_leaf):
        rows = reach[node]
        x = X[rows, tree.feature[node]]
        t = tree.threshold[node]
        below, above = x[x <= t], x[x > t]
        lo, hi = below.max(), above.min()
        assert lo < t < hi and not np.any((x > lo) & (x < hi))  # consecutive values
        classes_lo = set(codes[rows][x == lo])
        classes_hi = set(codes[rows][x == hi])
        assert not (len(classes_lo) == 1 and classes_lo == classes_hi)
        reach[tree.children_left[node]] = rows[x <= t]
        reach[tree.children_right[node]] = rows[x > t]


def test_fits_separable_data_perfectly_and_rules_match_predictions():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, size=(300, 3))
    y = np.where(X[:, 0] + X[:, 1] > 1, "a", np.where(X[:, 2] > 0.5, "b", "c"))
    est = make_estimator("id3").fit(X, y)
    assert np.array_equal(est.predict(X), y)
    # Every exported rule (conjunction of conditions) holds exactly for the rows that
    # reach its leaf, and the leaf's class is what predict says for them.
    Z = rng.uniform(-0.5, 1.5, size=(1000, 3))
    assert np.all(rule_predictions(est, Z) == est.predict(Z))
    text = est.export_text()
    assert text.count("class ") == est.n_leaves_


def test_stops_when_rows_cannot_be_separated():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 2.0]])
    est = make_estimator("id3").fit(X, [0, 1, 1])
    assert est.n_leaves_ == 2  # the identical pair stays in one leaf
    assert est.tree_.threshold[0] == 0.5


def test_quinlan_1986_nominal_weather_data():
    from obliq_cli.algorithms.id3 import nominal_gains

    # Quinlan (1986), Table 1: outlook (sunny 0, overcast 1, rain 2), temperature (hot 0,
    # mild 1, cool 2), humidity (high 0, normal 1), windy (false 0, true 1); N / P.
    rows = ["0000N", "0001N", "1000P", "2100P", "2210P", "2211N", "1211P", "0100N", "0210P",
            "2110P", "0111P", "1101P", "1010P", "2101N"]
    X = np.array([[int(c) for c in r[:4]] for r in rows], float)
    y = np.array([r[4] for r in rows])
    gains = nominal_gains(X, (y == "P").astype(np.int64), 2, [3, 3, 2, 2])
    # §4: gain(outlook) = 0.246, temperature 0.029, humidity 0.151, windy 0.048 bits
    np.testing.assert_allclose(gains, [0.246, 0.029, 0.151, 0.048], atol=1e-3)
    est = make_estimator("id3", categorical_features=[0, 1, 2, 3]).fit(X, y)
    names = {0: ["sunny", "overcast", "rain"], 2: ["high", "normal"], 3: ["false", "true"]}
    text = est.export_text(["outlook", "temperature", "humidity", "windy"],
                           category_names=names)
    # Quinlan's Figure 2
    assert text.splitlines() == [
        "root [5, 9]",
        "|   outlook = sunny: [3, 2]",
        "|   |   humidity = high: class N [3, 0]",
        "|   |   humidity = normal: class P [0, 2]",
        "|   outlook = overcast: class P [0, 4]",
        "|   outlook = rain: [2, 3]",
        "|   |   windy = false: class P [0, 3]",
        "|   |   windy = true: class N [2, 0]",
    ]
    assert (rule_predictions(est, X) == y).all()
    # Treated as numbers (no categorical_features) the same data gives binary cuts.
    assert (make_estimator("id3").fit(X, y).tree_.n_branches <= 2).all()


def test_nominal_and_continuous_attributes_compete_by_gain():
    rng = np.random.default_rng(5)
    code = rng.integers(0, 4, 400).astype(float)
    x = rng.uniform(size=400)
    y = np.where(code == 3, 1, (x > 0.5).astype(int))
    est = make_estimator("id3", categorical_features=[1]).fit(np.c_[x, code], y)
    tree = est.tree_
    assert np.array_equal(est.predict(np.c_[x, code]), y)
    assert (tree.kind == 1).sum() >= 1  # the code column is split multiway somewhere
    Z = np.c_[rng.uniform(size=500), rng.integers(0, 4, 500)]
    assert (rule_predictions(est, Z) == est.predict(Z)).all()
    assert not est.__sklearn_tags__().input_tags.allow_nan
