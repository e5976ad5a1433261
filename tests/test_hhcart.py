"""HHCART(A)/(D): Householder matrices, the reflected search, small-sample cases."""

import numpy as np
import pytest

from obliq_cli import load_dataset, make_estimator
from obliq_cli.algorithms import hhcart
from obliq_cli.algorithms.hhcart import (
    class_eigenvectors,
    find_householder_split,
    householder_matrix,
    parallel_to_axis,
)
from obliq_cli.errors import ObliqError
from obliq_cli.tree.axis_search import find_best_axis_split
from obliq_cli.tree.impurity import split_criterion

TWOING = split_criterion("twoing")


@pytest.mark.parametrize("seed", range(4))
def test_householder_matrix_is_orthogonal_symmetric_and_maps_d_to_e1(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(size=5)
    d /= np.linalg.norm(d)
    H = householder_matrix(d)
    np.testing.assert_allclose(H @ H.T, np.eye(5), atol=1e-12)
    np.testing.assert_allclose(H, H.T)
    np.testing.assert_allclose(H @ d, np.eye(5)[0], atol=1e-12)
    np.testing.assert_allclose(H[:, 0], d, atol=1e-12)  # reflected axis 1 is d itself
    np.testing.assert_array_equal(householder_matrix(np.eye(5)[0]), np.eye(5))


def test_parallel_to_axis_uses_tau_and_either_sign():
    assert parallel_to_axis(np.array([0.0, -1.0, 0.0]), 0.05)
    d = np.array([0.04, 0.999, 0.0])
    d /= np.linalg.norm(d)
    assert parallel_to_axis(d, 0.05) and not parallel_to_axis(d, 0.01)
    assert not parallel_to_axis(np.array([1.0, 1.0]) / np.sqrt(2), 0.05)


def rotated_strips(n=400, angle=np.pi / 6, seed=0):
    """Two long thin classes parallel to direction (cos a, sin a), one each side of a
    line through the origin: their dominant eigenvector is parallel to the boundary."""
    rng = np.random.default_rng(seed)
    along = rng.uniform(-5, 5, n)
    across = rng.uniform(0.2, 1.0, n) * np.where(np.arange(n) % 2 == 0, -1, 1)
    d = np.array([np.cos(angle), np.sin(angle)])
    normal = np.array([-d[1], d[0]])
    X = along[:, None] * d + across[:, None] * normal
    return X, (across > 0).astype(int)


@pytest.mark.parametrize("algorithm", ["hhcart-a", "hhcart-d"])
def test_one_oblique_split_where_cart_needs_a_staircase(algorithm):
    X, y = rotated_strips()
    hh = make_estimator(algorithm).fit(X, y)
    assert hh.n_leaves_ == 2 and (hh.predict(X) == y).all()
    assert hh.tree_.feature[0] == -2  # oblique
    w = hh.tree_.weights[0] / np.linalg.norm(hh.tree_.weights[0])
    assert abs(w @ np.array([np.sin(np.pi / 6), -np.cos(np.pi / 6)])) > 0.99  # the normal
    cart = make_estimator("cart-ap", criterion="twoing").fit(X, y)
    assert cart.n_leaves_ > 6


@pytest.mark.parametrize("mode", ["A", "D"])
def test_split_equals_a_search_over_explicitly_reflected_data(mode):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 3)) @ rng.normal(size=(3, 3))
    y = (X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.5, 150) > 0).astype(int) + (X[:, 0] > 1)
    split = find_householder_split(X, y, 3, TWOING, mode, 0.05)
    # Independent route: build every H, reflect X, search each space; keep the first best.
    best = (find_best_axis_split(X, y, 3, TWOING), np.eye(3))
    for k in range(3):
        for d in class_eigenvectors(X[y == k], mode).T:
            if parallel_to_axis(d, 0.05):
                continue
            H = householder_matrix(d)
            found = find_best_axis_split(X @ H, y, 3, TWOING)
            if found.score < best[0].score:
                best = (found, H)
    found, H = best
    assert split.score == pytest.approx(found.score, abs=1e-12)
    expected = (X @ H)[:, found.feature] <= found.threshold
    np.testing.assert_array_equal(split.projection(X) <= split.threshold, expected)


def test_large_tau_turns_hhcart_into_cart_with_twoing():
    # ||e - d|| <= sqrt(2) for the nearest signed axis, so tau = 1.5 skips every
    # eigenvector and only axis-parallel splits remain.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    hh = make_estimator("hhcart-a", tau=1.5, min_samples_split=2).fit(X, y)
    cart = make_estimator("cart-ap", criterion="twoing").fit(X, y)
    np.testing.assert_array_equal(hh.tree_.feature, cart.tree_.feature)
    np.testing.assert_allclose(hh.tree_.threshold, cart.tree_.threshold)


def test_all_eigenvectors_can_only_help_the_dominant_one():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 3))
    y = rng.integers(0, 3, 200)
    a = find_householder_split(X, y, 3, TWOING, "A", 0.05)
    d = find_householder_split(X, y, 3, TWOING, "D", 0.05)
    assert a.score <= d.score  # HHCART(A)'s candidates include HHCART(D)'s


def test_small_nodes_rank_deficient_and_single_point_classes():
    rng = np.random.default_rng(2)
    # A class on a line in 3-D (rank-1 covariance) and a one-point class.
    line = np.outer(rng.uniform(0, 1, 30), [1.0, 2.0, -1.0])
    blob = rng.normal(3, 1, size=(30, 3))
    X = np.vstack([line, blob, [[9.0, 9.0, 9.0]]])
    y = np.array([0] * 30 + [1] * 30 + [2])
    est = make_estimator("hhcart-a").fit(X, y)
    assert (est.predict(X) == y).mean() > 0.95
    assert class_eigenvectors(X[y == 2], "A").shape == (3, 0)
    assert class_eigenvectors(np.ones((4, 3)), "D").shape == (3, 0)  # identical points
    # n <= 2p: only the axis-parallel split is tried.
    small = find_householder_split(X[:6], np.array([0, 1] * 3), 2, TWOING, "A", 0.05)
    assert small is None or small.feature >= 0


def test_minparent_two_and_pure_nodes_stop():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    est = make_estimator("hhcart-d").fit(X[:2], [0, 1])  # MinParent = 2: no split
    assert est.n_leaves_ == 1
    est = make_estimator("hhcart-d").fit(X, [0, 0, 0, 0])
    assert est.n_leaves_ == 1


def test_bad_parameters_are_one_line_errors():
    X, y = rotated_strips(n=40)
    with pytest.raises(ObliqError, match="tau"):
        make_estimator("hhcart-a", tau=-1).fit(X, y)
    with pytest.raises(ObliqError, match="criterion"):
        make_estimator("hhcart-d", criterion="gain").fit(X, y)


@pytest.mark.parametrize("algorithm", ["hhcart-a", "hhcart-d"])
def test_the_tree_does_not_depend_on_the_eigensolvers_signs(monkeypatch, algorithm):
    # LAPACK builds differ in the sign of the eigenvectors they return; every sign is
    # canonical before reflecting, so an eigensolver returning -v grows the same tree.
    X, y, _ = load_dataset("iris")
    plain = make_estimator(algorithm, random_state=0).fit(X, y)
    original = np.linalg.eigh
    flips = np.random.default_rng(7)

    def eigh_with_random_signs(a):
        lam, vec = original(a)
        return lam, vec * flips.choice([-1.0, 1.0], size=vec.shape[1])

    monkeypatch.setattr(hhcart.np.linalg, "eigh", eigh_with_random_signs)
    flipped = make_estimator(algorithm, random_state=0).fit(X, y)
    a, b = plain.tree_, flipped.tree_
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_allclose(a.weights, b.weights, atol=1e-12)
    np.testing.assert_allclose(a.threshold, b.threshold, atol=1e-12)
