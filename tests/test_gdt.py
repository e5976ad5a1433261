"""Geometric Decision Tree: the paper's theorems, the eigen-solution, small samples."""

import numpy as np
import pytest
import scipy.linalg

from obliq_cli import load_dataset, make_estimator
from obliq_cli.algorithms.gdt import (
    _augmented_scatter,
    angle_bisectors,
    clustering_hyperplanes,
    most_favoured_direction,
)


def test_generalized_eigen_solution_matches_scipy_eig():
    rng = np.random.default_rng(0)
    for _ in range(5):
        M1, M2 = rng.normal(size=(2, 6, 6))
        num, den = M1 @ M1.T + 0.1 * np.eye(6), M2 @ M2.T + 0.1 * np.eye(6)
        w = most_favoured_direction(num, den)
        values, vectors = scipy.linalg.eig(num, den)
        top = vectors[:, np.argmax(values.real)].real
        cosine = abs(w @ top) / (np.linalg.norm(w) * np.linalg.norm(top))
        assert cosine == pytest.approx(1.0, abs=1e-8)
        assert (w @ num @ w) / (w @ den @ w) == pytest.approx(values.real.max(), rel=1e-9)


def test_equal_covariances_give_the_fisher_direction():
    # Theorem 2: B is A shifted, so both classes have the same sample covariance.
    rng = np.random.default_rng(1)
    A = rng.normal(size=(200, 3)) @ np.array([[2.0, 0.3, 0], [0, 1.0, 0.5], [0, 0, 0.7]])
    B = A + np.array([1.5, -0.5, 1.0])
    w1, w2 = clustering_hyperplanes(A, B)
    np.testing.assert_allclose(abs(w1[:-1] @ w2[:-1]), 1.0, atol=1e-8)  # parallel
    sigma = np.cov(A.T, bias=True)
    fisher = np.linalg.solve(sigma, A.mean(0) - B.mean(0))
    split = [w for w in angle_bisectors(w1, w2) if np.linalg.norm(w[:-1]) > 0.5][0]
    cosine = abs(split[:-1] @ fisher) / (np.linalg.norm(split[:-1]) * np.linalg.norm(fisher))
    assert cosine == pytest.approx(1.0, abs=1e-8)


def test_equal_means_put_both_clustering_hyperplanes_through_the_mean():
    # Theorem 3: same mean, different covariances.
    rng = np.random.default_rng(2)
    A = rng.normal(size=(300, 3)) * [3.0, 1.0, 0.5]
    B = rng.normal(size=(250, 3)) * [0.5, 2.0, 1.0]
    A += 1.0 - A.mean(0)
    B += 1.0 - B.mean(0)
    for w in clustering_hyperplanes(A, B):
        assert w[:-1] @ np.ones(3) + w[-1] == pytest.approx(0.0, abs=1e-9)


def test_fewer_points_than_features_take_the_null_space_path():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(3, 8)), rng.normal(size=(4, 8)) + 1.0
    G = _augmented_scatter(A)
    assert np.linalg.matrix_rank(G) < 9
    w1, w2 = clustering_hyperplanes(A, B)
    assert w1 is not None and w2 is not None
    # w1 lies in G's null space: it passes through every row of A exactly.
    np.testing.assert_allclose(np.hstack([A, np.ones((3, 1))]) @ w1, 0.0, atol=1e-9)
    X = np.vstack([A, B])
    y = np.array([0] * 3 + [1] * 4)
    est = make_estimator("gdt").fit(X, y)
    assert est.score(X, y) == 1.0


def test_two_by_two_checkerboard_grows_four_leaves_at_depth_two():
    X, y, _ = load_dataset("checker2x2")
    est = make_estimator("gdt", epsilon1=0.1).fit(X, y)
    assert (est.n_leaves_, est.depth_) == (4, 2)
    assert est.score(X, y) > 0.97


def gdt_stops(counts, parent, eta_of_root=False, n_train=1000):
    """Whether GDT's finder stops a child with class ``counts`` of a parent with
    ``parent`` counts (epsilon1 = 0.1, epsilon2 = 0.9), fitted on ``n_train`` rows."""
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import Node

    finder = GDTSplitFinder(0.1, 0.9, eta_of_root)
    finder.prepare(np.zeros((n_train, 1)), np.zeros(n_train, dtype=np.int64), len(counts),
                   np.random.default_rng(0))
    counts = np.asarray(counts, dtype=np.int64)
    return finder.stops(Node(np.arange(counts.sum()), counts, 1, np.asarray(parent)))


def test_multiclass_rules_reduce_to_algorithm_one_for_two_classes():
    parent = np.array([60, 40])
    assert gdt_stops([50, 4], parent)       # minority 4/54 < 0.1
    assert not gdt_stops([50, 10], parent)  # 10/60 >= 0.1
    assert gdt_stops([3, 40], parent)       # eta1 < .1, eta2 >= .9
    # Three classes: the parent's majority (class 0) is rare in the child, which is mixed.
    assert not gdt_stops([1, 20, 19], [50, 30, 20])
    assert gdt_stops([1, 38, 1], [50, 30, 20])


def test_the_root_is_never_stopped_by_the_eta_rules():
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import Node

    finder = GDTSplitFinder(0.1, 0.9, False)
    finder.prepare(np.zeros((54, 1)), np.zeros(54, dtype=np.int64), 2,
                   np.random.default_rng(0))
    assert not finder.stops(Node(np.arange(54), np.array([50, 4])))  # root: no parent
    assert gdt_stops([50, 4], [60, 40])  # the same counts below a parent stop


def test_multiclass_gdt_on_wine_is_accurate_and_small():
    X, y, _ = load_dataset("wine")
    est = make_estimator("gdt").fit(X[::2], y[::2])
    assert est.score(X[1::2], y[1::2]) > 0.85 and est.n_leaves_ <= 8


def test_eta_of_root_divides_by_the_training_rows():
    parent = np.array([600, 400])
    # A child of 100 rows with 30 minority rows: 30% of the node, 3% of 1000 rows.
    assert not gdt_stops([70, 30], parent)
    assert gdt_stops([70, 30], parent, eta_of_root=True, n_train=1000)
    X, y, _ = load_dataset("pima")
    node = make_estimator("gdt", eta_of="node").fit(X, y)
    root = make_estimator("gdt", eta_of="root").fit(X, y)
    assert root.n_leaves_ < node.n_leaves_ / 5
