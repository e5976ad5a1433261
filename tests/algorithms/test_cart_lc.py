"""CART-LC: the exact delta search, oblique recovery, backward elimination."""

import numpy as np
import pytest

from obliq_cli import make_estimator
from obliq_cli.algorithms.cart_lc import best_shift
from obliq_cli.tree.impurity import gini_split


def brute_force(slack, d, onehot, deltas):
    scores = []
    for delta in deltas:
        left = slack - delta * d <= 0
        if left.all() or not left.any():
            scores.append(np.inf)
            continue
        scores.append(gini_split(onehot[left].sum(0, keepdims=True),
                                 onehot[~left].sum(0, keepdims=True))[0])
    return np.array(scores)


@pytest.mark.slow
def test_delta_search_is_exact_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = 40
        slack = rng.normal(size=n)
        d = rng.normal(size=n)
        d[rng.uniform(size=n) < 0.1] = 0.0  # rows the shift cannot move
        onehot = np.eye(3)[rng.integers(0, 3, n)]
        delta, score = best_shift(slack, d, onehot, gini_split)
        # Every split a delta can make is found at some midpoint between the u values.
        u = np.sort(slack[d != 0] / d[d != 0])
        grid = np.concatenate([[u[0] - 1], (u[:-1] + u[1:]) / 2, [u[-1] + 1]])
        best_brute = brute_force(slack, d, onehot, grid).min()
        assert score == best_brute
        assert brute_force(slack, d, onehot, [delta])[0] == score


@pytest.mark.slow
def test_an_oblique_boundary_takes_one_split():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(400, 2))
    y = (X[:, 0] + 2 * X[:, 1] > 0.1).astype(int)
    lc = make_estimator("cart-lc").fit(X, y)
    ap = make_estimator("cart-ap").fit(X, y)
    assert lc.n_leaves_ <= 3 and ap.n_leaves_ > 10
    w = lc.tree_.weights[0]
    assert abs(w[1] / w[0] - 2.0) < 0.25  # the boundary's direction


def test_backward_elimination_drops_a_useless_feature():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(600, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    root = make_estimator("cart-lc", beta=0.2).fit(X, y).tree_.weights[0]
    assert root[2] == 0.0 and root[0] != 0.0 and root[1] != 0.0


def test_threshold_refit_matches_the_axis_parallel_search():
    # The compiled refit of c is the axis-parallel search on the projected column: same
    # threshold (midpoint rule, lowest on ties) and, up to rounding, the same score.
    from obliq_cli.algorithms.cart_lc import _Search
    from obliq_cli.tree.axis_search import find_best_axis_split

    rng = np.random.default_rng(3)
    for trial in range(10):
        Z = np.round(rng.normal(size=(60, 3)), 1 if trial % 2 else 6)  # ties, none
        y = rng.integers(0, 3, 60)
        search = _Search(Z, y, 3, gini_split, 1e-4, 10)
        for f in range(3):
            beta = np.eye(3)[f]
            axis = find_best_axis_split(Z[:, [f]], y, 3, gini_split)
            t, s = search.refit_threshold(beta)
            assert t == axis.threshold
            assert abs(s - axis.score) < 1e-12
    constant = _Search(np.ones((5, 2)), np.array([0, 1, 0, 1, 1]), 2, gini_split, 1e-4, 10)
    assert constant.refit_threshold(np.array([1.0, 0.0])) == (None, np.inf)
