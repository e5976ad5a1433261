"""Row weights in APDT (Shah & Sastry 1999) and UMT (Yildiz 2011): each pattern counts
with its weight in APDT's eq. (1) and its nonseparable counts, each row's slack of UMT's
eq. 4 is multiplied by its weight (libsvm's per-row C) and its split errors count weight.
Zero weights equal removed rows, equal weights are no weights to the bit, "balanced"
equals its reweighted rows, and integer weights equal copied rows where the method's
random row order allows it (UMT's margin search on a node's rows; the algorithms'
docstrings say where it cannot)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.utils.class_weight import compute_sample_weight

from obliq_cli import registry
from obliq_cli.algorithms.apdt import nonseparable
from obliq_cli.algorithms.umt import best_margin_split, hinge_sweep, margin_grid
from obliq_cli.kernels.apdt import perceptron, perceptron_iterations

X, Y = load_iris(return_X_y=True)
Y2 = (Y == 1).astype(int)  # versicolor against the rest: imbalanced, not separable
WEIGHTS = np.random.default_rng(0).integers(0, 4, len(Y))
NAMES = ["apdt", "umt", "umt-ovo", "umt-ovr"]
PARAMS = {"apdt": {"alopex_iterations": 30}}


def _fit(name, X_, y_, **fit):
    return registry.make_estimator(name, random_state=0, **PARAMS.get(name, {})).fit(
        X_, y_, **fit)


def _trees(est):
    return [m.tree_ for m in est.estimators_] if hasattr(est, "estimators_") else [est.tree_]


def _same(a, b, rtol=0.0) -> None:
    ta, tb = _trees(a), _trees(b)
    assert len(ta) == len(tb)
    for p, q in zip(ta, tb):
        assert p.n_nodes == q.n_nodes
        np.testing.assert_array_equal(p.children_left, q.children_left)
        np.testing.assert_allclose(p.threshold, q.threshold, rtol=rtol, atol=rtol)
        np.testing.assert_allclose(p.weights, q.weights, rtol=rtol, atol=rtol)
        np.testing.assert_allclose(p.value, q.value, rtol=1e-12)


def _labels(name):
    return Y2 if name in ("apdt", "umt") else Y


# ------------------------------------------------------------------ both
@pytest.mark.parametrize("name", NAMES)
def test_zero_weights_equal_removed_rows(name):
    y = _labels(name)
    w = np.where(WEIGHTS == 0, 0.0, 1.0) * (1 + (np.arange(len(y)) % 2))
    kept = w > 0
    _same(_fit(name, X, y, sample_weight=w), _fit(name, X[kept], y[kept],
                                                  sample_weight=w[kept]))


@pytest.mark.parametrize("name", NAMES)
def test_equal_weights_are_no_weights_to_the_bit(name):
    y = _labels(name)
    _same(_fit(name, X, y, sample_weight=np.ones(len(y))), _fit(name, X, y))
    _same(_fit(name, X, y, sample_weight=np.full(len(y), 2.5)), _fit(name, X, y))


@pytest.mark.parametrize("name", ["apdt", "umt"])
def test_balanced_class_weight_is_its_sample_weight(name):
    y = _labels(name)
    a = registry.make_estimator(name, random_state=0, class_weight="balanced",
                                **PARAMS.get(name, {})).fit(X, y)
    _same(a, _fit(name, X, y, sample_weight=compute_sample_weight("balanced", y)))


@pytest.mark.parametrize("name", ["apdt", "umt"])
def test_weights_change_the_tree(name):
    # the minority class weighs 5: the weighted tree is not the unweighted one
    y = _labels(name)
    a, b = _fit(name, X, y), _fit(name, X, y, sample_weight=np.where(y == 1, 5.0, 1.0))
    ta, tb = a.tree_, b.tree_
    assert ta.n_nodes != tb.n_nodes or not np.array_equal(ta.threshold, tb.threshold) \
        or not np.allclose(ta.value / ta.value.sum(1, keepdims=True),
                           tb.value / tb.value.sum(1, keepdims=True))


# ------------------------------------------------------------------ UMT
def _brute_slack(z, y_sign, C, w):
    """min over the breakpoints of sum_t w_t max(0, C - y_t (z_t - tau)), by hand."""
    taus = np.r_[z[y_sign > 0] - C, z[y_sign < 0] + C]
    return min(float(np.sum(w * np.maximum(0.0, C - y_sign * (z - t)))) for t in taus)


def test_umt_weighted_hinge_slack_is_eq4_with_weighted_rows():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(13, 2))
    y_sign = np.where(rng.random(13) < 0.4, -1.0, 1.0)
    w = rng.random(13) + 0.1
    Cs = np.array([-0.5, 0.0, 0.7])
    slack, lo, hi = hinge_sweep(Z, y_sign, Cs, w)
    for m, C in enumerate(Cs):
        for f in range(2):
            assert slack[m, f] == pytest.approx(_brute_slack(Z[:, f], y_sign, C, w),
                                                rel=1e-12, abs=1e-12)
            # the weighted slack at either end of the minimisers is the minimum
            for t in (lo[m, f], hi[m, f]):
                at = np.sum(w * np.maximum(0.0, C - y_sign * (Z[:, f] - t)))
                assert at == pytest.approx(slack[m, f], rel=1e-9, abs=1e-12)
    # weights of 1 are no weights, to the bit
    for a, b in zip(hinge_sweep(Z, y_sign, Cs, np.ones(13)), hinge_sweep(Z, y_sign, Cs)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sweep", ["sign", "eq4"])
@pytest.mark.parametrize("both_sides", [False, True])
@pytest.mark.parametrize("refit", [False, True])
def test_umt_margin_split_of_integer_weights_is_that_of_copied_rows(sweep, both_sides,
                                                                     refit):
    # a node's search (thresholds, split errors on learn and validation rows) with
    # integer weights is its search over the copied rows, the held-out rows copied too
    rng = np.random.default_rng(5)
    Xn, y = X[::3], Y2[::3]
    w = rng.integers(1, 4, len(y))
    learn = rng.random(len(y)) < 0.75
    mu, sd = X.mean(axis=0), X.std(axis=0)
    Cs = margin_grid(-2.0, 2.0, 0.1)
    args = (Cs,)
    kw = {"refit": refit, "both_sides": both_sides, "sweep": sweep}
    weighted = best_margin_split(Xn, y, mu, sd, *args, learn, weights=w.astype(float), **kw)
    copied = best_margin_split(np.repeat(Xn, w, axis=0), np.repeat(y, w), mu, sd, *args,
                               np.repeat(learn, w), **kw)
    assert weighted[0] == copied[0] and weighted[2] == copied[2]
    assert weighted[1] == pytest.approx(copied[1], rel=1e-12, abs=1e-12)


def test_umt_integer_weights_equal_copied_rows_where_no_quarter_is_held_out():
    # every class under 4 rows, copies too: no validation quarter at any node, so the
    # tree of integer weights is the tree of copied rows
    Xs = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.0], [3.0, 0.0], [4.0, 1.5]])
    ys = np.array([0, 1, 0, 1, 1])
    w = np.array([2, 1, 1, 1, 1])
    for sweep in ("sign", "eq4"):
        for normalize in (False, True):
            a, b = (registry.make_estimator("umt", sweep=sweep, normalize=normalize,
                                            random_state=0) for _ in range(2))
            a.fit(Xs, ys, sample_weight=w.astype(float))
            b.fit(np.repeat(Xs, w, axis=0), np.repeat(ys, w))
            assert a.tree_.n_nodes > 1
            if not normalize:
                _same(a, b)
                continue
            # z-scored, the weighted moments round apart from the copies' (w x summed
            # once, not x twice), and the sign sweep's candidate exactly 0 (module
            # docstring) can then move a threshold between the same rows
            np.testing.assert_array_equal(a.tree_.children_left, b.tree_.children_left)
            np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
            np.testing.assert_array_equal(a.apply(Xs), b.apply(Xs))
            if sweep == "eq4":  # a midpoint of the minimisers: moved by rounding only
                np.testing.assert_allclose(a.tree_.threshold, b.tree_.threshold,
                                           rtol=1e-12)


# ------------------------------------------------------------------ APDT
def test_apdt_nonseparable_weight_is_the_flagged_patterns_weight():
    # XOR: not separable; the Perceptron runs on the rows (unweighted), and nsp is the
    # summed weight of the patterns its run flags (rho rule) or misclassifies
    Z = np.array([[1, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    s = np.array([1.0, 1.0, -1.0, -1.0])
    c = np.array([1.0, 2.0, 3.0, 4.0])
    rows = np.arange(4)
    n_iter = perceptron_iterations(4, 300, False)
    w, counts, _, _ = perceptron(Z, s, rows, n_iter, False, np.ones(4))
    flagged = counts >= 0.6 * counts.max()
    nsp, plane = nonseparable(Z, s, 0.6, perceptron_iteration="pattern", weights=c)
    assert plane is None and nsp == pytest.approx(c[flagged].sum())
    assert nonseparable(Z, s, 0.6)[0] == int(flagged.sum())
    wrong = ~(s * (Z @ w) > 0)
    assert nonseparable(Z, s, separability="final_errors", weights=c)[0] == \
        pytest.approx(c[wrong].sum())
    # weights of 1 are the unweighted count
    for reading in ("updates", "final_errors", "pocket_errors"):
        assert nonseparable(Z, s, separability=reading, weights=np.ones(4))[0] == \
            nonseparable(Z, s, separability=reading)[0]


def test_apdt_separable_set_is_separable_whatever_the_weights():
    Z = np.array([[1, 0, 0], [1, 0.2, 0.1], [1, 1, 1], [1, 0.9, 0.8]])
    s = np.array([-1.0, -1.0, 1.0, 1.0])
    nsp, plane = nonseparable(Z, s, weights=np.array([5.0, 0.5, 1.0, 3.0]))
    assert nsp == 0 and plane is not None and (s * (Z @ plane) > 0).all()
