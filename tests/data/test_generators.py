"""The exact generators: class counts, labelling rules and known distributional facts."""

import numpy as np
import pytest

from obliq_cli.data import generators as g


def test_balance_scale_is_every_combination_with_uci_counts():
    X, y = g.balance_scale()
    assert X.shape == (625, 4) and np.unique(X, axis=0).shape[0] == 625
    labels, counts = np.unique(y, return_counts=True)
    assert dict(zip(labels, counts)) == {"B": 49, "L": 288, "R": 288}
    # (LW, LD, RW, RD) = (2, 3, 1, 5): 6 > 5 tips left; (1, 1, 1, 1) balances.
    row = np.flatnonzero((X == [2, 3, 1, 5]).all(axis=1))[0]
    assert y[row] == "L"
    assert y[np.flatnonzero((X == 1).all(axis=1))[0]] == "B"


def test_waveform_class_means_follow_the_base_waves():
    X, y = g.waveform21(30000, seed=1)
    i = np.arange(1, 22)
    h = {1: np.maximum(6 - np.abs(i - 11), 0), 2: np.maximum(6 - np.abs(i - 15), 0),
         3: np.maximum(6 - np.abs(i - 7), 0)}
    # E[u] = 1/2, so each class mean is the average of its two waves.
    for cls, (a, b) in {"1": (1, 2), "2": (1, 3), "3": (2, 3)}.items():
        np.testing.assert_allclose(X[y == cls].mean(axis=0), (h[a] + h[b]) / 2, atol=0.1)
    counts = np.unique(y, return_counts=True)[1]
    assert np.allclose(counts / 30000, 1 / 3, atol=0.02)


def test_twonorm_and_ringnorm_moments():
    X, y = g.twonorm(20000, seed=2)
    a = 2 / np.sqrt(20)
    np.testing.assert_allclose(X[y == "1"].mean(axis=0), a, atol=0.05)
    np.testing.assert_allclose(X[y == "2"].mean(axis=0), -a, atol=0.05)
    X, y = g.ringnorm(20000, seed=3)
    np.testing.assert_allclose(X[y == "1"].var(axis=0), 4, rtol=0.08)
    np.testing.assert_allclose(X[y == "2"].mean(axis=0), 1 / np.sqrt(20), atol=0.05)


def unrotate(X):
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    return X @ np.array([[c, -s], [s, c]])


def test_checkerboards_follow_the_papers_rule_before_rotation():
    X, y = g.checkerboard_2x2(3000, seed=4)
    P = unrotate(X)
    assert (np.abs(P) <= 1 + 1e-12).all()
    same_side = np.sign(P[:, 0] + P[:, 1]) == np.sign(P[:, 0] - P[:, 1])
    np.testing.assert_array_equal(y == "+1", same_side)
    X, y = g.checkerboard_4x4(3000, seed=5)
    P = unrotate(X)
    assert P.min() >= -1e-12 and P.max() <= 4 + 1e-12
    even = (np.floor(P[:, 0]) + np.floor(P[:, 1])) % 2 == 0  # (i+1)+(j+1) even
    np.testing.assert_array_equal(y == "+1", even)
    # The rotation is anticlockwise by pi/6: the point (1, 0) goes to (cos, sin).
    np.testing.assert_allclose(np.array([[1.0, 0.0]]) @ np.array(
        [[np.cos(np.pi / 6), np.sin(np.pi / 6)], [-np.sin(np.pi / 6), np.cos(np.pi / 6)]]),
        [[np.sqrt(3) / 2, 0.5]])


def test_synthetic_10d_sign_patterns():
    X, y = g.synthetic_10d(5000, seed=6)
    sides = np.sign(np.hstack([X, np.ones((5000, 1))]) @ g.GDT_10D_PLANES.T)
    patterns = {(1, 1, 1), (-1, -1, 1), (-1, 1, -1), (1, -1, -1)}
    positive = np.array([tuple(s) in patterns for s in sides.astype(int)])
    np.testing.assert_array_equal(y == "+1", positive)
    assert 0.4 < positive.mean() < 0.6


@pytest.mark.parametrize("name", sorted(g.GENERATORS))
def test_generators_are_seeded(name):
    func = g.GENERATORS[name]
    kwargs = {} if name == "balance_scale" else {"n": 100, "seed": 7}
    X1, y1 = func(**kwargs)
    X2, y2 = func(**kwargs)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


def test_rotation_and_labels_are_sums_in_a_fixed_order_not_blas():
    # element-wise products added left to right, as no BLAS kernel is bound to: the
    # rotated rows must be these bits on every CPU (FMA kernels round differently)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(500, 2))
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    expected = np.column_stack([X[:, 0] * c + X[:, 1] * -s, X[:, 0] * s + X[:, 1] * c])
    np.testing.assert_array_equal(g._rotate(X, np.pi / 6), expected)
    X10, y10 = g.synthetic_10d(400, seed=2)
    aug = np.hstack([X10, np.ones((400, 1))])
    sides = np.zeros((400, 3))
    for j in range(11):
        sides += aug[:, j:j + 1] * g.GDT_10D_PLANES[:, j]
    assert (y10 == np.where(np.prod(np.sign(sides), axis=1) > 0, "+1", "-1")).all()


def test_ls10_is_split_by_the_two_half_sums():
    X, y = g.ls10(3000, seed=8)
    assert X.shape == (3000, 10) and X.min() >= 0.0 and X.max() < 1.0
    # the paper's rule, x1 + ... + x5 < x6 + ... + x10, written out term by term
    first = X[:, 0] + X[:, 1] + X[:, 2] + X[:, 3] + X[:, 4]
    last = X[:, 5] + X[:, 6] + X[:, 7] + X[:, 8] + X[:, 9]
    np.testing.assert_array_equal(y == "1", first < last)
    assert set(np.unique(y)) == {"1", "2"}
    # symmetric halves: about as many of each class; the uniform marginals hold
    assert abs((y == "1").mean() - 0.5) < 0.03
    np.testing.assert_allclose(X.mean(axis=0), 0.5, atol=0.03)
