"""LDT: Gaussian boundary, hill-climbed class grouping."""

import numpy as np
import pytest
from scipy.stats import norm

from obliq_cli import make_estimator
from obliq_cli.algorithms.ldt import (
    _FeatureStats,
    _NodeStats,
    gaussian_boundary,
    hill_climb,
    hill_climb_columns,
    initial_partition,
)


def test_equal_variances_give_the_linear_boundary():
    assert gaussian_boundary(0.0, 1.0, 0.5, 2.0, 1.0, 0.5) == pytest.approx(1.0)
    # 0.75 N(0,1) = 0.25 N(2,1)  <=>  x = 1 + log(3) / 2
    assert gaussian_boundary(0.0, 1.0, 0.75, 2.0, 1.0, 0.25) == pytest.approx(
        1 + np.log(3) / 2)


def test_unequal_variances_give_the_root_between_the_means():
    # N(0,1) = N(3,4): x^2/2 - (x-3)^2/8 = log 2  <=>  3x^2 + 6x - 9 - 8 log 2 = 0
    expected = (-6 + np.sqrt(36 + 12 * (9 + 8 * np.log(2)))) / 6
    x = gaussian_boundary(0.0, 1.0, 0.5, 3.0, 4.0, 0.5)
    assert x == pytest.approx(expected)
    assert 0 < x < 3
    assert norm.pdf(x, 0, 1) == pytest.approx(norm.pdf(x, 3, 2))
    # order of the groups does not matter
    assert gaussian_boundary(3.0, 4.0, 0.5, 0.0, 1.0, 0.5) == pytest.approx(expected)


def test_boundary_from_data_statistics():
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0, 1, 300), rng.normal(4, 2, 100)]
    y = np.r_[np.zeros(300, int), np.ones(100, int)]
    stats = _FeatureStats(x, y, 2)
    t = stats.thresholds(np.array([[True, False]]))[0]
    m0, m1, v0, v1 = x[:300].mean(), x[300:].mean(), x[:300].var(), x[300:].var()
    assert 0.75 * norm.pdf(t, m0, np.sqrt(v0)) == pytest.approx(
        0.25 * norm.pdf(t, m1, np.sqrt(v1)))
    assert m0 < t < m1


def test_hill_climbing_never_decreases_the_gain():
    rng = np.random.default_rng(1)
    k = 6
    y = rng.integers(0, k, 600)
    x = y * 1.0 + rng.normal(0, 0.8, 600)
    stats = _FeatureStats(x, y, k)
    present = np.ones(k, dtype=bool)
    for seed in range(10):
        start = initial_partition(present, np.random.default_rng(seed))
        part, t, score, trace = hill_climb(stats, start, present)
        assert all(b < a for a, b in zip(trace, trace[1:]))  # entropy falls = gain rises
        # a local optimum: no single flip improves
        flips = np.repeat(part[None], k, axis=0)
        flips[np.arange(k), np.arange(k)] ^= True
        assert stats.score(flips)[1].min() >= score - 1e-12


def test_columns_climbed_together_climb_as_each_alone():
    # the node's columns advance in lockstep, one evaluation per pass; each column's
    # partition, threshold, score and trace must be those of its own climb, bit for bit
    rng = np.random.default_rng(3)
    k, n = 7, 500
    y = rng.integers(0, k, n)
    X = np.column_stack([y * 1.0 + rng.normal(0, s, n) for s in (0.5, 1.5, 4.0)]
                        + [np.round(rng.normal(size=n), 1)])
    present = np.ones(k, dtype=bool)
    start = initial_partition(present, np.random.default_rng(0))
    parts, t, s, traces = hill_climb_columns(_NodeStats(X, y, k), start, present)
    for f in range(X.shape[1]):
        part, t1, s1, trace = hill_climb(_FeatureStats(X[:, f], y, k), start, present)
        assert np.array_equal(parts[f], part) and t[f] == t1 and s[f] == s1
        assert traces[f] == trace
    assert len({len(tr) for tr in traces}) > 1  # the columns stop after different passes


def test_ldt_separates_blobs_and_is_reproducible():
    rng = np.random.default_rng(2)
    centers = np.array([[0, 0], [4, 0], [0, 4], [4, 4]])
    y = rng.integers(0, 4, 400)
    X = centers[y] + rng.normal(0, 0.5, (400, 2))
    a = make_estimator("ldt", random_state=3).fit(X, y)
    b = make_estimator("ldt", random_state=3).fit(X, y)
    assert a.tree_.to_json() == b.tree_.to_json()
    assert (a.predict(X) == y).mean() > 0.98
    assert set(a.tree_.feature[a.tree_.feature >= 0]) == {0, 1}
