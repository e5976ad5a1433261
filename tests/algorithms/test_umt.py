"""UMT (Yildiz 2011): the sorted hinge sweep against the paper's double loop and an LP."""

import numpy as np
import pytest
from conftest import rule_predictions
from scipy.optimize import linprog

from obliq_cli import make_estimator
from obliq_cli.algorithms.umt import (
    best_margin_split,
    choose_margin,
    error_of_split,
    hinge_sweep,
    margin_grid,
    sign_rule_thresholds,
    stratified_quarter,
)
from obliq_cli.errors import ObliqError


def slack_at(x, s, C, w0):
    return np.maximum(0.0, C - s * x - s * w0).sum()


def paper_double_loop(x, y_sign, C) -> tuple[float, float]:
    """Fig. 1 lines 4-13 verbatim, O(N^2): (w0, summed slack) for one feature and C.

    The first candidate w0 = (C - x^j y^j)/y^j in data
    order with the least summed slack (strict ``<``) wins.
    """
    x = np.asarray(x, dtype=np.float64)
    y_sign = np.asarray(y_sign, dtype=np.float64)
    best_w0, min_eps = np.nan, np.inf
    for j in range(x.size):
        w0 = (C - x[j] * y_sign[j]) / y_sign[j]
        total = 0.0
        for k in range(x.size):
            eps = C - x[k] * y_sign[k] - w0 * y_sign[k]
            if eps > 0:
                total += eps
        if total < min_eps:
            min_eps, best_w0 = total, w0
    return float(best_w0), float(min_eps)


@pytest.mark.parametrize("C", [-2.0, -0.7, 0.0, 0.3, 1.5])
def test_sweep_matches_thepaper_double_loop(C):
    rng = np.random.default_rng(int(10 * C) + 50)
    for _ in range(8):
        n = 31
        x = rng.normal(size=n)
        s = np.where(rng.uniform(size=n) < rng.uniform(0.2, 0.8), 1.0, -1.0)
        slack, lo, hi = hinge_sweep(x[:, None], s, [C])
        w0, eps = paper_double_loop(x, s, C)
        assert slack[0, 0] == pytest.approx(eps, rel=1e-10, abs=1e-10)
        # Every tau in [lo, hi] (w0 = -tau) attains the minimum; the paper's w0 is in it.
        for tau in (lo[0, 0], hi[0, 0], (lo[0, 0] + hi[0, 0]) / 2):
            assert slack_at(x, s, C, -tau) == pytest.approx(eps, rel=1e-10, abs=1e-10)
        assert lo[0, 0] - 1e-12 <= -w0 <= hi[0, 0] + 1e-12
        # The paper's candidate set: no candidate beats the sweep.
        cands = (C - x * s) / s
        assert min(slack_at(x, s, C, w) for w in cands) == pytest.approx(eps, abs=1e-10)


def test_sweep_over_many_features_and_margins_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(40, 3))
    s = np.where(rng.uniform(size=40) < 0.5, 1.0, -1.0)
    Cs = margin_grid(-2, 2, 0.5)
    slack, lo, hi = hinge_sweep(Z, s, Cs)
    for i, C in enumerate(Cs):
        for j in range(3):
            one = hinge_sweep(Z[:, [j]], s, [C])
            assert slack[i, j] == pytest.approx(one[0][0, 0])
            assert (lo[i, j], hi[i, j]) == (one[1][0, 0], one[2][0, 0])


def test_minimum_slack_equals_the_linear_program_of_eq4():
    rng = np.random.default_rng(4)
    n = 25
    x = rng.normal(size=n)
    s = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
    for C in (-1.0, 0.0, 1.2):
        # variables [w0, eps_1..eps_n]: min sum eps, -s w0 - eps <= s x - C, eps >= 0
        c = np.r_[0.0, np.ones(n)]
        A = np.hstack([-s[:, None], -np.eye(n)])
        b = s * x - C
        res = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] + [(0, None)] * n)
        assert hinge_sweep(x[:, None], s, [C])[0][0, 0] == pytest.approx(res.fun, abs=1e-7)


def test_grid_and_error_of_split():
    grid = margin_grid(-2.0, 2.0, 0.1)
    assert grid.size == 41 and grid[0] == -2.0 and grid[-1] == 2.0 and 0.0 in grid
    # left 3/1, right 0/4: majorities 3 + 4 of 8 -> error 1/8
    assert error_of_split(np.array([3, 1]), np.array([0, 4])) == pytest.approx(0.125)


def test_stratified_quarter_holds_out_a_quarter_of_each_class():
    y = np.r_[np.zeros(40, int), np.ones(12, int)]
    held = stratified_quarter(y, np.random.default_rng(0))
    assert held[y == 0].sum() == 10 and held[y == 1].sum() == 3


def test_one_dimensional_separable_set_splits_between_the_classes():
    rng = np.random.default_rng(5)
    x = np.r_[rng.uniform(0, 1, 60), rng.uniform(3, 4, 60)]
    y = np.r_[np.zeros(60, int), np.ones(60, int)]
    m = make_estimator("umt", random_state=0).fit(x[:, None], y)
    assert m.n_nodes_ == 3
    t = m.tree_.threshold[0]
    assert x[y == 0].max() < t < x[y == 1].min()
    assert (m.predict(x[:, None]) == y).all()


def test_raw_space_threshold_and_reversed_labels():
    rng = np.random.default_rng(6)
    X = np.c_[rng.normal(size=200), rng.normal(size=200) * 100 + 1000]
    y = (X[:, 1] < 1000).astype(int)  # class 1 on the small side of feature 1
    m = make_estimator("umt", random_state=1).fit(X, y)
    assert m.tree_.feature[0] == 1
    assert (m.predict(X) == y).mean() > 0.97


def test_more_than_two_classes_is_refused():
    X = np.arange(9.0)[:, None]
    with pytest.raises(ObliqError, match="two classes"):
        make_estimator("umt").fit(X, np.arange(9) % 3)
    with pytest.raises(ObliqError, match="c_step"):
        make_estimator("umt", c_step=0).fit(X, np.arange(9) % 2)


def test_same_seed_same_tree_and_predictions_equal_rules():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    a = make_estimator("umt", random_state=11).fit(X, y)
    b = make_estimator("umt", random_state=11).fit(X, y)
    assert a.tree_.to_json() == b.tree_.to_json()
    assert (rule_predictions(a, X) == a.predict(X)).all()
    refit = make_estimator("umt", random_state=11, refit=True, sweep="eq4").fit(X, y)
    assert (refit.predict(X) == y).mean() > 0.9


def test_both_sides_splits_a_feature_with_class_one_low():
    # 10 rows of class 1 below 100 of class 0. Eq. 4 as printed expects class 1 above
    # the threshold; its slack then balances at a threshold beyond all the data. With
    # both sides the fit on -x finds the gap, stored back on x as the same partition.
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(0, 1, 10), rng.uniform(2, 3, 100)])
    y = np.array([1] * 10 + [0] * 100)
    X = x[:, None]
    args = (X, y, np.zeros(1), np.ones(1), margin_grid(0.5, 2, 0.1), np.ones(110, bool))
    args_eq4 = {"sweep": "eq4"}
    feature, threshold, _ = best_margin_split(*args, both_sides=True, **args_eq4)
    assert feature == 0 and 1.0 < threshold < 2.0
    assert ((X[:, 0] <= threshold) == (y == 1)).all()
    _, printed, _ = best_margin_split(*args, both_sides=False, **args_eq4)
    assert not 1.0 < printed < 2.0
    tree = make_estimator("umt", both_sides=True, sweep="eq4", random_state=0).fit(X, y)
    assert tree.n_leaves_ == 2 and (tree.predict(X) == y).all()


def test_sign_rule_threshold_by_hand():
    """The author's sweep on x = (-1, 0.5, 2), the first row positive (t = -1), C = 0:
    candidates w0 = (C - t x) / t are 1 (the positive row), -0.5 and -2. Sorted
    (-2, -0.5, 1); f starts at (1 - (-2)) = 3 at w0 = -2 (the one positive candidate
    above), keeps 3 up to -0.5 (slope 1 - 1), then rises: the first minimum is at
    w0 = -2, so x = -(-2 + -0.5) / 2 = 1.25. Eq. 4 instead is least on [-1, 0.5]."""
    tau = np.empty((1, 1))
    sign_rule_thresholds(np.array([[0.5, 2.0]]), np.array([[-1.0]]), np.array([0.0]), tau,
                         np.ones((1, 2)), np.ones((1, 1)))
    assert tau[0, 0] == 1.25
    _, lo, hi = hinge_sweep(np.array([[-1.0], [0.5], [2.0]]), np.array([-1.0, 1.0, 1.0]),
                            [0.0])
    assert (lo[0, 0], hi[0, 0]) == (-1.0, 0.5)
    # all candidates equal (a constant feature at C = 0): every row goes left
    sign_rule_thresholds(np.zeros((1, 2)), np.zeros((1, 1)), np.array([0.0]), tau,
                         np.ones((1, 2)), np.ones((1, 1)))
    assert tau[0, 0] == np.inf


def _sign_rule_as_written(x, t, C):
    """The author's loop transcribed plainly (sort, merge ties, two counters)."""
    s = np.sort((C - t * x) / t)
    xs, cnt = np.unique(s, return_counts=True)
    if xs.size == 1:
        return np.inf
    value, below, above = 0.0, 0, 0
    for j in range(xs.size - 1, 0, -1):
        if xs[j] > 0:
            above += cnt[j]
            value += (xs[j] - xs[0]) * cnt[j]
        else:
            break
    best, split = np.inf, np.inf
    for j in range(xs.size - 1):
        if value < best:
            best, split = value, -(xs[j] + xs[j + 1]) / 2
        if xs[j] < 0:
            below += cnt[j]
        else:
            above -= cnt[j]
        value += (below - above) * (xs[j + 1] - xs[j])
    return split


def test_sign_rule_merge_equals_the_sorted_loop():
    """The kernel's merge of the two classes' sorted values against a plain sort, on
    rounded values (ties within and across classes, candidates exactly 0)."""
    rng = np.random.default_rng(5)
    Z = np.round(rng.normal(size=(60, 3)) * 2) / 2
    t = np.where(rng.random(60) < 0.3, -1.0, 1.0)
    Cs = np.array([-1.0, -0.5, 0.0, 0.5, 1.5])
    tau = np.empty((Cs.size, 3))
    rest, pos = np.sort(Z[t > 0].T, axis=1), np.sort(Z[t < 0].T, axis=1)
    sign_rule_thresholds(rest, pos, Cs, tau, np.ones(rest.shape), np.ones(pos.shape))
    for m, C in enumerate(Cs):
        for f in range(3):
            assert tau[m, f] == _sign_rule_as_written(Z[:, f], t, C)


@pytest.mark.parametrize("by_validation", [False, True])
def test_choose_margin_with_three_classes_equals_brute_force(by_validation):
    """choose_margin against error_of_split over every (C, feature) pair, K = 3."""
    rng = np.random.default_rng(3)
    Xl, yl = rng.normal(size=(40, 3)), rng.integers(0, 3, 40)
    Xv, yv = rng.normal(size=(15, 3)), rng.integers(0, 3, 15)
    thr = rng.normal(scale=0.7, size=(6, 3))
    order = np.argsort(yl, kind="stable")
    offsets = np.searchsorted(yl[order], np.arange(4)).astype(np.int64)
    blocks = Xl[order].copy()
    for k in range(3):
        blocks[offsets[k]:offsets[k + 1]].sort(axis=0)

    def err(X, y, f, t):
        left = np.bincount(y[X[:, f] <= t], minlength=3)
        return error_of_split(left, np.bincount(y, minlength=3) - left)

    k, best_f = choose_margin(blocks, offsets, thr, np.ones(3, bool), Xv, yv, by_validation,
                              np.ones(15), Xl, yl, np.empty(0))
    if by_validation:
        scores = np.array([[err(Xv, yv, f, thr[c, f]) for f in range(3)] for c in range(6)])
        assert scores[k, best_f[k]] == scores.min()
        assert np.argmin(scores.ravel()) == k * 3 + best_f[k]  # first on ties
    else:
        learn = np.array([[err(Xl, yl, f, thr[c, f]) for f in range(3)] for c in range(6)])
        assert (best_f == learn.argmin(axis=1)).all()
        val = [err(Xv, yv, best_f[c], thr[c, best_f[c]]) for c in range(6)]
        assert k == int(np.argmin(val))


def test_sign_sweep_and_validation_choice_grow_valid_trees():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    for params in ({"sweep": "sign"}, {"feature_by": "validation"}):
        a = make_estimator("umt", random_state=11, **params).fit(X, y)
        b = make_estimator("umt", random_state=11, **params).fit(X, y)
        assert a.tree_.to_json() == b.tree_.to_json()
        assert (rule_predictions(a, X) == a.predict(X)).all()
        assert (a.predict(X) == y).mean() > 0.8
    with pytest.raises(ObliqError, match="sweep"):
        make_estimator("umt", sweep="isell").fit(X, y)


def test_no_cut_lowers_the_split_error_so_the_sign_sweep_stops_at_the_root():
    """APDT Problem 1 on a 20 x 20 grid of cell centres (module docstring, "Where UMT
    falls behind"): class 1 is the band 0.25 < x1 <= 0.75 above x2 = 0.4, 120 of 400
    cells. A side of a cut on x1 holds at most 40 % class 1 (the 10 band columns, 12 of
    20 cells each, among 15 columns); the side x2 > t at most 50 % (10 of each row's 20
    cells above 0.4). So class 0 stays the majority of both sides or ties, and
    error_of_split is the unsplit 0.3 for every axis cut: every (C, feature)
    ties, the first margin C = -2.0 wins, and the program's sign sweep puts its
    threshold below every row, so the root is a leaf. Eq. 4 puts that threshold inside
    the data and the tree grows on; an impurity split sees the pure side x2 <= 0.4."""
    from sklearn.tree import DecisionTreeClassifier

    from obliq_cli.data.apdt_problems import problem_labels

    g = (np.arange(20) + 0.5) / 20
    X = np.array([(a, b) for a in g for b in g])
    y = problem_labels(1, X)
    assert np.bincount(y).tolist() == [280, 120]
    for f in range(2):
        for t in g[:-1]:
            left = X[:, f] <= t
            err = error_of_split(np.bincount(y[left], minlength=2),
                                 np.bincount(y[~left], minlength=2))
            assert err == pytest.approx(0.3)
    learn = np.ones(400, bool)
    learn[::4] = False
    args = (X, y, X.mean(0), X.std(0), margin_grid(-2, 2, 0.1), learn)
    feature, threshold, C = best_margin_split(*args)
    assert C == -2.0 and threshold < X[:, feature].min()
    _, inside, C = best_margin_split(*args, sweep="eq4")
    assert C == -2.0 and 0 < inside < 1
    for seed in range(3):
        assert make_estimator("umt", random_state=seed).fit(X, y).n_leaves_ == 1
        grown = make_estimator("umt", sweep="eq4", random_state=seed).fit(X, y)
        assert grown.n_leaves_ > 4 and (grown.predict(X) == y).mean() > 0.99
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y).tree_
    assert stump.feature[0] == 1 and stump.threshold[0] == pytest.approx(0.4)
    assert stump.value[stump.children_left[0]].ravel()[1] == 0  # x2 <= 0.4: class 0 only
