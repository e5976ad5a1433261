"""CART-LC: the exact delta search, oblique recovery, backward elimination."""

import numpy as np

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
