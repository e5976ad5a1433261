"""HHCART(A)/(D): Householder matrices, the reflected search, small-sample cases."""

import numpy as np
import pytest

from obliq_cli import load_dataset, make_estimator
from obliq_cli.algorithms import hhcart
from obliq_cli.algorithms.hhcart import (
    class_eigenvectors,
    find_householder_split,
    householder_matrix,
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


def assert_grows_twoing_cart(hh, X, y):
    """hh's tree has CART-AP's (twoing) features and thresholds: only axis-parallel
    splits were left to it."""
    cart = make_estimator("cart-ap", criterion="twoing").fit(X, y)
    np.testing.assert_array_equal(hh.tree_.feature, cart.tree_.feature)
    np.testing.assert_allclose(hh.tree_.threshold, cart.tree_.threshold)


def parallel_to_axis(d: np.ndarray, tau: float) -> bool:
    """Whether ||e - d|| <= tau for a basis vector e or its negative (§3.1), for one
    vector: the reference of hhcart.parallel_to_axes."""
    j = int(np.argmax(np.abs(d)))
    e = np.zeros_like(d)
    e[j] = np.sign(d[j]) if d[j] != 0 else 1.0
    return float(np.linalg.norm(e - d)) <= tau


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
    assert_grows_twoing_cart(hh, X, y)


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


def test_at_most_two_rows_per_feature_only_the_axis_parallel_split_is_tried(monkeypatch):
    # n <= 2p (oblique_rows_per_feature = 2): no class's eigenvectors are computed and the
    # split is the axis-parallel search's own; one row more and both classes' are.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 3))
    y = np.array([0, 1, 0, 1, 0, 1, 1])
    seen = []
    original = hhcart.class_eigenvectors

    def spy(rows, *args, **kwargs):
        seen.append(len(rows))
        return original(rows, *args, **kwargs)

    monkeypatch.setattr(hhcart, "class_eigenvectors", spy)
    small = find_householder_split(X[:6], y[:6], 2, TWOING, "A", 0.05)
    axis = find_best_axis_split(X[:6], y[:6], 2, TWOING)
    assert seen == []
    assert small.weights is None and small.feature == axis.feature >= 0
    assert (small.threshold, small.score) == (axis.threshold, axis.score)
    find_householder_split(X, y, 2, TWOING, "A", 0.05)
    assert sorted(seen) == [3, 4]  # 3 rows of class 0, 4 of class 1


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


# The readings of docs/ablations/hhcart.md: each option against a hand-checkable answer.

def explicit_search(X, y, n_classes, mode, *, min_rows=2, skip_null=False, with_ap=True):
    """Independent route: every H of every qualifying class, X reflected and searched,
    the first best kept (h_ap first when it competes)."""
    best = (find_best_axis_split(X, y, n_classes, TWOING), np.eye(X.shape[1])) if with_ap \
        else (None, None)
    for k in range(n_classes):
        for d in class_eigenvectors(X[y == k], mode, min_rows, skip_null).T:
            if parallel_to_axis(d, 0.05):
                continue
            H = householder_matrix(d)
            found = find_best_axis_split(X @ H, y, n_classes, TWOING)
            if best[0] is None or found.score < best[0].score:
                best = (found, H)
    return best


def test_two_row_class_gives_the_direction_between_its_points_unless_min_rows_is_three():
    pair = np.array([[1.0, 1.0, 0.0], [4.0, 5.0, 0.0]])
    d = class_eigenvectors(pair, "D")[:, 0]
    np.testing.assert_allclose(d, [0.6, 0.8, 0.0], atol=1e-12)  # (3, 4, 0) / 5
    assert class_eigenvectors(pair, "A", min_rows=3).shape == (3, 0)
    four = np.vstack([pair, [[0.0, 2.0, 1.0], [2.0, 0.0, 3.0]]])  # p + 1 = 4 rows
    assert class_eigenvectors(four[:3], "D", min_rows=4).shape == (3, 0)
    assert class_eigenvectors(four, "D", min_rows=4).shape == (3, 1)


def test_full_rank_reading_leaves_out_classes_with_at_most_p_rows():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3)) @ rng.normal(size=(3, 3))
    y = (X @ [1.0, 1.0, -1.0] > 0).astype(int)
    y[np.argsort(X[:, 0])[:3]] = 2  # a third class of p = 3 rows
    for mode in "AD":
        split = find_householder_split(X, y, 3, TWOING, mode, 0.05, min_class_rows="full_rank")
        found, H = explicit_search(X, y, 3, mode, min_rows=4)
        assert split.score == pytest.approx(found.score, abs=1e-12)
        expected = (X @ H)[:, found.feature] <= found.threshold
        np.testing.assert_array_equal(split.projection(X) <= split.threshold, expected)
    # No class can qualify: only h_ap remains, so the tree is CART's with twoing.
    hh = make_estimator("hhcart-d", min_class_rows=10_000, min_samples_split=2).fit(X, y)
    assert_grows_twoing_cart(hh, X, y)


def test_skip_null_keeps_only_the_eigenvectors_of_nonzero_eigenvalues():
    rng = np.random.default_rng(3)
    line = np.outer(rng.uniform(-1, 1, 20), [1.0, 2.0, -2.0])  # rank-1 covariance
    assert class_eigenvectors(line, "A").shape == (3, 3)
    kept = class_eigenvectors(line, "A", skip_null=True)
    assert kept.shape == (3, 1)
    # the line direction, its first largest component positive
    np.testing.assert_allclose(kept[:, 0], [1 / 3, 2 / 3, -2 / 3], atol=1e-12)
    # HHCART(D)'s dominant eigenvector is never a null one.
    np.testing.assert_array_equal(class_eigenvectors(line, "D", skip_null=True),
                                  class_eigenvectors(line, "D"))


def test_without_h_ap_the_split_is_the_best_reflected_one():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 3)) @ rng.normal(size=(3, 3))
    y = (X[:, 1] > 0.2).astype(int)  # an axis-parallel boundary
    X[:, 2] += 0.01 * rng.normal(size=120)
    for mode in "AD":
        split = find_householder_split(X, y, 2, TWOING, mode, 0.05, axis_parallel=False)
        found, H = explicit_search(X, y, 2, mode, with_ap=False)
        assert split.score == pytest.approx(found.score, abs=1e-12)
        assert split.score >= find_best_axis_split(X, y, 2, TWOING).score
    # With every class left out, §3.1's axis-parallel split is still made.
    plain = find_householder_split(X, y, 2, TWOING, "D", 0.05)
    none = find_householder_split(X, y, 2, TWOING, "D", 0.05, min_class_rows=1000,
                                  axis_parallel=False)
    assert none.feature == find_best_axis_split(X, y, 2, TWOING).feature
    assert plain.score <= none.score


def test_small_nodes_get_reflected_splits_when_the_row_rule_is_off():
    # 4 rows, 2 features: n <= 2p, so by default only axis-parallel splits, none of which
    # separates the classes; class 0 lies along (1, 1), and the reflected axis
    # perpendicular to it separates them.
    X = np.array([[0.0, 1.0], [1.0, 2.0], [1.0, 0.0], [2.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    gated = find_householder_split(X, y, 2, TWOING, "D", 0.05)
    assert gated.feature >= 0
    left = X[:, gated.feature] <= gated.threshold
    assert len(set(y[left])) == 2 or len(set(y[~left])) == 2
    free = find_householder_split(X, y, 2, TWOING, "D", 0.05, min_oblique_ratio=0.0)
    left = free.projection(X) <= free.threshold
    assert len(set(y[left])) == 1 and len(set(y[~left])) == 1 and free.feature < 0
    est = make_estimator("hhcart-d", oblique_rows_per_feature=0).fit(X, y)
    assert est.n_leaves_ == 2


def test_eigenvector_sign_readings():
    pair = np.array([[1.0, 5.0, 0.0], [4.0, 1.0, 0.0]])  # along (3, -4, 0) / 5
    np.testing.assert_allclose(class_eigenvectors(pair, "D")[:, 0], [-0.6, 0.8, 0.0])
    np.testing.assert_allclose(class_eigenvectors(pair, "D", sign="first_positive")[:, 0],
                               [0.6, -0.8, 0.0])
    both = class_eigenvectors(pair, "D", sign="both")
    np.testing.assert_allclose(both, [[-0.6, 0.6], [0.8, -0.8], [0.0, 0.0]])
    # The sign matters: H(d) and H(-d) both send d's line to axis 1, but their other
    # axes are other bases of d's complement, so they search other directions.
    d = np.array([2.0, -1.0, 2.0]) / 3
    np.testing.assert_allclose(householder_matrix(-d)[:, 0], -d, atol=1e-12)
    assert not np.allclose(np.abs(householder_matrix(d)[:, 1:]),
                           np.abs(householder_matrix(-d)[:, 1:]))
    # Both signs search a superset of either one's candidates.
    rng = np.random.default_rng(9)
    X = rng.normal(size=(150, 4)) @ rng.normal(size=(4, 4))
    y = (X @ [1.0, -1.0, 0.5, 2.0] + rng.normal(0, 1, 150) > 0).astype(int) + (X[:, 0] > 1)
    scores = {sign: find_householder_split(X, y, 3, TWOING, "D", 0.05, eigenvector_sign=sign)
              .score for sign in ("largest_positive", "first_positive", "both")}
    assert scores["both"] <= min(scores["largest_positive"], scores["first_positive"])


@pytest.mark.parametrize("params", [{"min_class_rows": 1}, {"min_class_rows": "rank"},
                                    {"null_eigenvectors": "drop"}, {"axis_parallel": "no"},
                                    {"eigenvector_sign": "negative"},
                                    {"oblique_rows_per_feature": -1}])
def test_bad_reading_values_are_one_line_errors(params):
    X, y = rotated_strips(n=40)
    with pytest.raises(ObliqError, match=next(iter(params))):
        make_estimator("hhcart-a", **params).fit(X, y)


@pytest.mark.slow
def test_sklearn_estimator_checks_pass_with_the_readings_of_the_ablation():
    from sklearn.utils.estimator_checks import check_estimator

    from obliq_cli import expected_failed_checks

    for name, params in (("hhcart-a", {"min_class_rows": "full_rank",
                                       "null_eigenvectors": "skip", "axis_parallel": False,
                                       "oblique_rows_per_feature": 0}),
                         ("hhcart-d", {"min_class_rows": 3, "eigenvector_sign": "both"}),
                         ("hhcart-d", {"eigenvector_sign": "first_positive"})):
        check_estimator(make_estimator(name, **params),
                        expected_failed_checks=expected_failed_checks(name))
