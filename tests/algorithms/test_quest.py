"""QUEST with linear splits: LDA direction, LDA split point, superclasses, degenerate nodes,
qualitative columns, exported rules, determinism."""

import numpy as np
import pytest
from conftest import rule_predictions
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from obliq_cli import load_dataset, make_estimator
from obliq_cli.algorithms.quest import (
    find_quest_split,
    lda_split_point,
    quest_direction,
    two_means_1d,
)
from obliq_cli.tree.structure import LEAF


def cosine(a, b):
    return abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))


@pytest.mark.parametrize("seed", range(4))
def test_two_class_direction_is_sklearns_lda_direction(seed):
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(5, 5))
    X = rng.normal(size=(150, 5)) @ mix + rng.normal(size=5) * 10  # correlated, offset
    score = X @ rng.normal(size=5) + rng.normal(size=150)
    y = (score > np.quantile(score, 0.4)).astype(int)  # unequal class sizes
    a, in_b = quest_direction(X, y)
    coef = LinearDiscriminantAnalysis().fit(X, y).coef_[0]
    assert cosine(a, coef) > 1 - 1e-9
    # Oriented so that superclass A (class 0 here) projects lower.
    np.testing.assert_array_equal(in_b, y == 1)
    assert (X[y == 0] @ a).mean() < (X[y == 1] @ a).mean()


def test_split_point_is_the_hand_computed_lda_boundary_with_unequal_priors():
    # A = {0, 1, 2} (mean 1), B = {4, 6} (mean 5); pooled s^2 = (2 + 2) / (5 - 2) = 4/3;
    # priors 3/5, 2/5: d = 3 + (4/3) log(2/3) / (1 - 5) = 3 - log(2/3) / 3 = 3.1352.
    X = np.array([[0.0], [1.0], [2.0], [4.0], [6.0]])
    y = np.array([0, 0, 0, 1, 1])
    expected = 3.0 - np.log(2.0 / 3.0) / 3.0
    assert lda_split_point(X[:, 0], y == 1) == pytest.approx(expected, rel=1e-12)
    split = find_quest_split(X, y)
    assert split.weights[0] > 0
    assert split.threshold / split.weights[0] == pytest.approx(expected, rel=1e-12)
    # The larger prior of A moves the boundary toward B, past the midpoint 3.
    tree = make_estimator("quest").fit(X, y).tree_
    assert tree.threshold[0] / tree.weights[0, 0] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_array_equal(tree.value[tree.children_left[0]], [3, 0])


def test_split_point_falls_back_to_the_midpoint_when_a_side_would_be_empty():
    # A = {-2, 2} x 10 (mean 0, SS 80), B = {3}: s^2 = 80/19, and
    # d = 1.5 + (80/19) log(1/20) / (0 - 3) = 5.70 > max z = 3, so the midpoint 1.5.
    z = np.array([-2.0, 2.0] * 10 + [3.0])
    in_b = np.arange(21) == 20
    raw = 1.5 + (80 / 19) * np.log(1 / 20) / -3.0
    assert raw > 3.0
    assert lda_split_point(z, in_b) == 1.5
    # Equal means: no split.
    assert lda_split_point(np.array([0.0, 1.0, 0.5, 0.5]), np.array([0, 0, 1, 1], bool)) is None


def test_rotated_gaussian_classes_take_one_split():
    rng = np.random.default_rng(3)
    angle = np.deg2rad(35)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    # Long along the first rotated axis, classes 10 sd apart along the second.
    base = rng.normal(size=(600, 2)) * [4.0, 0.5]
    y = np.arange(600) % 2
    base[:, 1] += np.where(y == 1, 2.5, -2.5)
    X = base @ rot.T
    est = make_estimator("quest").fit(X, y)
    assert est.n_leaves_ == 2
    assert (est.predict(X) == y).all()
    assert cosine(est.tree_.weights[0], rot[:, 1]) > 0.99  # the separating normal


def test_two_means_starts_from_the_extremes_and_iterates():
    # Start: centres 0 and 10; 4.9 goes low, 5.2 high. Centres 1.225 and 7.6 then
    # move 4.9 high; centres 0 and 6.7 are stable.
    upper = two_means_1d(np.array([0.0, 0.0, 0.0, 4.9, 5.2, 10.0]))
    np.testing.assert_array_equal(upper, [False, False, False, True, True, True])
    np.testing.assert_array_equal(two_means_1d(np.array([10.0, 0.0, 1.0])), [True, False, False])
    assert two_means_1d(np.array([2.0, 2.0, 2.0])) is None


def test_superclasses_of_six_classes_follow_the_iterated_two_means():
    # Class means 0, 0, 0, 4.9, 5.2, 10 on one feature (the hand example above): the
    # first assignment would put class 3 with classes 0-2, the fixed point does not.
    rng = np.random.default_rng(4)
    y = np.arange(120) % 6
    X = np.array([0.0, 0.0, 0.0, 4.9, 5.2, 10.0])[y][:, None]
    X = X + rng.normal(scale=0.05, size=(120, 1))  # class means move by ~0.01
    _, in_b = quest_direction(X, y)
    np.testing.assert_array_equal(in_b, y >= 3)


def three_classes(seed=0, n=90):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    centres = np.array([[0.0, 0.0], [1.0, 0.5], [10.0, 4.0]])
    X = centres[y] + rng.normal(scale=0.2, size=(n, 2))
    return X, y


def test_three_classes_the_two_close_means_form_a_superclass():
    X, y = three_classes()
    a, in_b = quest_direction(X, y)
    np.testing.assert_array_equal(in_b, y == 2)
    # The direction is the LDA direction between the two superclasses.
    coef = LinearDiscriminantAnalysis().fit(X, in_b).coef_[0]
    assert cosine(a, coef) > 1 - 1e-9
    tree = make_estimator("quest").fit(X, y).tree_
    np.testing.assert_array_equal(tree.value[tree.children_left[0]], [30, 30, 0])
    np.testing.assert_array_equal(tree.value[tree.children_right[0]], [0, 0, 30])


def test_singular_covariance_and_fewer_rows_than_features_do_not_crash():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(60, 3))
    # Constant column 1, column 3 duplicates column 0, column 4 = column 0 + column 2.
    X = np.column_stack([Z[:, 0], np.full(60, 7.0), Z[:, 2], Z[:, 0], Z[:, 0] + Z[:, 2],
                         Z[:, 1]])
    y = (Z[:, 0] - Z[:, 1] + 0.3 * rng.normal(size=60) > 0).astype(int)
    est = make_estimator("quest").fit(X, y)
    internal = est.tree_.children_left != LEAF
    assert internal.any() and (est.tree_.weights[internal, 1] == 0).all()
    assert (est.predict(X) == y).all()  # grown to purity (distinct rows)
    # Fewer rows than features.
    X = rng.normal(size=(6, 20))
    y = np.array([0, 1, 0, 1, 2, 2])
    est = make_estimator("quest").fit(X, y)
    assert (est.predict(X) == y).all()
    # All rows identical: no direction, the node is a leaf.
    est = make_estimator("quest").fit(np.ones((4, 3)), [0, 1, 0, 1])
    assert est.n_leaves_ == 1


def test_a_deciding_qualitative_column_gives_one_split():
    rng = np.random.default_rng(7)
    n = 200
    level = rng.integers(0, 5, n)
    y = np.isin(level, [1, 3]).astype(int)
    X = np.column_stack([rng.normal(size=n), level.astype(float), rng.normal(size=n)])
    est = make_estimator("quest", categorical_features=[1]).fit(X, y)
    assert est.n_leaves_ == 2
    assert (est.predict(X) == y).all()
    # Unseen rows follow the levels.
    X_new = np.column_stack([rng.normal(size=5), [0, 1, 2, 3, 4], rng.normal(size=5)])
    np.testing.assert_array_equal(est.predict(X_new), [0, 1, 0, 1, 0])


def test_predictions_equal_the_exported_rules_and_fits_are_deterministic():
    X, y, info = load_dataset("australian")
    cat = info["categorical"]
    est = make_estimator("quest", categorical_features=cat, random_state=1).fit(X, y)
    assert est.n_leaves_ > 2 and est.coding_ is not None
    np.testing.assert_array_equal(rule_predictions(est, X), est.predict(X))
    again = make_estimator("quest", categorical_features=cat, random_state=2).fit(X, y)
    for name in ("children_left", "children_right", "feature", "weights", "threshold",
                 "value"):
        np.testing.assert_array_equal(getattr(est.tree_, name), getattr(again.tree_, name))
