"""OC1, OC1-AP, OC1-LC: the sweep kernel, the search, and the three estimators."""

import numpy as np
import pytest
from conftest import json_from_python, rule_predictions

from obliq_cli import make_estimator
from obliq_cli.algorithms.oc1 import (
    best_step,
    cart_lc_climb,
    positive_quadrant_shift,
    to_original,
)
from obliq_cli.errors import ObliqError
from obliq_cli.registry import algorithm_entry
from obliq_cli.tree.axis_search import find_best_axis_split
from obliq_cli.tree.builder import Node, split_whole
from obliq_cli.tree.impurity import split_criterion

CRITERIA = ["twoing", "gini", "entropy"]


def split_node(name, X, y, is_root=False, **params):
    """One node's split by algorithm ``name``'s finder: the rows as a child node at depth
    1 (or as the root)."""
    finder = make_estimator(name, random_state=0, **params)._make_split_finder()
    counts = np.bincount(y, minlength=2)
    like = None if is_root else Node(np.arange(len(y)), counts, 1, counts + 1)
    return split_whole(finder, X, y, 2, np.random.default_rng(0), like=like)


def partition_score(left, y, k, criterion):
    """The criterion of one partition, counted directly (no sweep)."""
    lc = np.bincount(y[left], minlength=k)[None, :]
    rc = np.bincount(y[~left], minlength=k)[None, :]
    return float(split_criterion(criterion)(lc, rc)[0])


def brute_force(V, D, y, k, criterion, deltas):
    """Score of {V + delta D <= 0} for every delta, one partition at a time."""
    return np.array([partition_score(V + t * D <= 0, y, k, criterion) for t in deltas])


def every_delta(V, D, exact=True):
    """Every candidate, the midpoints between distinct candidates and both ends."""
    c = np.unique(-V[D != 0] / D[D != 0])
    mids = (c[:-1] + c[1:]) / 2
    ends = [c[0] - 1.0, c[-1] + 1.0]
    return np.concatenate([c, mids, ends]) if exact else np.concatenate([mids, ends])


# ----------------------------------------------------------------------- kernel
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("k", [2, 3])
def test_kernel_equals_brute_force_on_continuous_data(criterion, k):
    rng = np.random.default_rng(0)
    for trial in range(15):
        n = 25
        V = rng.normal(size=n)
        D = rng.normal(size=n)  # both signs
        D[rng.uniform(size=n) < 0.2] = 0.0  # points this step cannot move
        y = rng.integers(0, k, n)
        delta, score = best_step(V, D, y, k, split_criterion(criterion),
                                 rng if trial % 2 else None)
        brute = brute_force(V, D, y, k, criterion, every_delta(V, D)).min()
        assert score == pytest.approx(brute, abs=1e-12)
        # The returned step really makes a partition with that score.
        assert partition_score(V + delta * D <= 0, y, k, criterion) == pytest.approx(
            brute, abs=1e-12)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_kernel_handles_tied_candidates(criterion):
    # Small integers: many candidates coincide, with D of both signs and zeros.
    rng = np.random.default_rng(1)
    for _ in range(15):
        n = 30
        V = rng.integers(-3, 4, n).astype(float)
        D = rng.integers(-2, 3, n).astype(float)
        y = rng.integers(0, 3, n)
        delta, score = best_step(V, D, y, 3, split_criterion(criterion))
        # Every partition an open interval (or an end) makes is considered.
        brute = brute_force(V, D, y, 3, criterion, every_delta(V, D, exact=False))
        assert score == pytest.approx(brute.min(), abs=1e-12)
        assert partition_score(V + delta * D <= 0, y, 3, criterion) == pytest.approx(
            score, abs=1e-12)


def test_kernel_nothing_moves():
    V = np.array([-1.0, 2.0, 3.0])
    assert best_step(V, np.zeros(3), np.array([0, 1, 1]), 2,
                     split_criterion("gini")) == (0.0, np.inf)


def test_kernel_hand_worked_example():
    # Points at x = 1, 2, 3, 4 with classes 0, 0, 1, 1; hyperplane x - t <= 0 as
    # V = x - 0 (t = 0) and D = -1: V + delta D = x - delta <= 0 puts x <= delta left.
    # The perfect cut lies between 2 and 3, so delta = 2.5 (midpoint of candidates).
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([0, 0, 1, 1])
    delta, score = best_step(x, -np.ones(4), y, 2, split_criterion("gini"))
    assert delta == 2.5 and score == 0.0
    delta, score = best_step(x, -np.ones(4), y, 2, split_criterion("twoing"))
    assert delta == 2.5 and score == pytest.approx(-0.25)  # -(1/2)(1/2)/4 * 2^2


# -------------------------------------------------------------- normalisation
def test_positive_quadrant_shift_keeps_the_partition():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4)) * [1, 5, 0.1, 1] + [0, 0, 0, 10]
    shift = positive_quadrant_shift(X)
    Xs = X - shift
    assert (Xs >= 0).all()
    assert shift[3] == 0.0 and (shift[:3] < 0).all()  # only negative columns move
    assert Xs[:, :3].min(axis=0) == pytest.approx(0.0)
    for _ in range(20):
        a = rng.uniform(-1, 1, 5)
        w, t = to_original(a, shift)
        np.testing.assert_array_equal(Xs @ a[:4] + a[4] <= 0, X @ w <= t)


def test_normalize_flag_gives_valid_splits_both_ways():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)) - 2.0  # all negative: the shift matters
    y = (X @ [1.0, -1.0, 0.5] > -1.0).astype(int)
    for normalize in (True, False):
        split = split_node("oc1", X, y, normalize=normalize, n_restarts=3)
        left = split.projection(X) <= split.threshold
        assert split.score == pytest.approx(partition_score(left, y, 2, "twoing"), abs=1e-12)


# ------------------------------------------------------------------ estimators
def rotated_data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    margin = X[:, 0] + 2 * X[:, 1] - 1.0
    keep = np.abs(margin) > 0.1
    return X[keep], (margin[keep] > 0).astype(int)


@pytest.mark.parametrize("name", ["oc1", "oc1-lc"])
def test_one_oblique_split_separates_rotated_data(name):
    X, y = rotated_data()
    est = make_estimator(name, random_state=0).fit(X, y)
    ap = make_estimator("cart-ap").fit(X, y)
    assert est.n_leaves_ == 2 and est.score(X, y) == 1.0
    assert est.tree_.feature[0] == -2  # OBLIQUE
    assert ap.n_leaves_ > 4


def test_same_seed_same_tree_other_seeds_differ():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int)

    def fit(seed):
        return make_estimator("oc1", n_restarts=4, random_state=seed).fit(X, y).tree_

    a, b = fit(7), fit(7)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.children_left, b.children_left)
    trees = [fit(s) for s in range(4)]
    assert any(t.n_nodes != trees[0].n_nodes or not np.array_equal(t.weights, trees[0].weights)
               for t in trees[1:])


@pytest.mark.parametrize("name", ["oc1", "oc1-lc"])
def test_small_node_gets_an_axis_parallel_split(name):
    # x1 + x2 <= 1 separates the classes; no single feature does (values interleave).
    X = np.array([[0.0, 0.9], [0.9, 0.0], [0.6, 0.6], [1.0, 0.3], [0.3, 1.0]])
    y = np.array([0, 0, 1, 1, 1])
    # n = 2d = 4 rows: too small for an oblique split (TOO_SMALL_FOR_OBLIQUE_SPLIT).
    split = split_node(name, X[:4], y[:4])
    assert split.feature >= 0
    if name == "oc1-lc":
        return  # the deterministic CART-LC climb gets stuck on these five points
    # n = 2d + 1 = 5 rows: the oblique search runs and finds the perfect line.
    split = split_node(name, X, y)
    assert split.feature == -2
    left = split.projection(X) <= split.threshold
    assert (left == (y == 0)).all() or (left == (y == 1)).all()


def test_oc1_lc_exempts_the_root_from_the_size_rule():
    # Four points, d = 2: as a child node they are too few for an oblique split; as
    # the root the program's CART-LC mode climbs anyway and finds x1 + x2 <= 1.
    X = np.array([[0.0, 0.9], [0.9, 0.0], [0.6, 0.6], [1.0, 0.3]])
    y = np.array([0, 0, 1, 1])
    assert split_node("oc1-lc", X, y).feature >= 0
    est = make_estimator("oc1-lc").fit(X, y)
    assert est.tree_.feature[0] == -2 and est.n_leaves_ == 2 and est.score(X, y) == 1.0
    assert make_estimator("oc1").fit(X, y).tree_.feature[0] >= 0  # OC1 keeps the rule


def test_oblique_search_runs_above_two_d_rows():
    X, y = rotated_data(2)
    split = split_node("oc1", X, y)
    assert split.feature == -2
    axis = find_best_axis_split(X, y, 2, split_criterion("twoing"))
    assert split.score < axis.score


def test_pure_node_is_never_split():
    X = np.random.default_rng(6).normal(size=(50, 3))
    est = make_estimator("oc1", random_state=0).fit(X, np.ones(50))
    assert est.n_leaves_ == 1
    X, y = rotated_data(3, 200)
    tree = make_estimator("oc1", random_state=0).fit(X, y).tree_
    internal = ~tree.is_leaf
    assert ((tree.value[internal] > 0).sum(axis=1) >= 2).all()  # only impure nodes split


def test_oc1_ap_twoing_equals_cart_ap_twoing():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 5))  # continuous: no ties
    y = rng.integers(0, 3, 300)
    a = make_estimator("oc1-ap").fit(X, y).tree_
    b = make_estimator("cart-ap", criterion="twoing").fit(X, y).tree_
    for field in ("children_left", "children_right", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("name", ["oc1", "oc1-lc", "oc1-ap"])
def test_predictions_equal_exported_rules(name):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 4))
    y = rng.integers(0, 3, 200)
    est = make_estimator(name, n_restarts=3, random_state=0) if name == "oc1" else (
        make_estimator(name))
    est.fit(X, y)
    X_new = rng.normal(size=(300, 4))
    np.testing.assert_array_equal(rule_predictions(est, X_new), est.predict(X_new))


def test_lc_climb_never_worsens_the_start():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 3))
    y = (X @ [1.0, 2.0, -1.0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    crit = split_criterion("twoing")
    axis = find_best_axis_split(X, y, 2, crit)
    start = np.zeros(4)
    start[axis.feature], start[3] = 1.0, -axis.threshold
    a, score = cart_lc_climb(X, y, 2, crit, start)
    assert score <= axis.score
    assert score == pytest.approx(partition_score(X @ a[:3] + a[3] <= 0, y, 2, "twoing"))


def test_registry_descriptions():
    assert "not breiman" in algorithm_entry("oc1-lc").summary.lower()
    assert "cart-lc mode" in algorithm_entry("oc1-lc").summary.lower()
    assert make_estimator("oc1").get_params()["criterion"] == "twoing"
    assert make_estimator("oc1-ap").get_params()["criterion"] == "twoing"


@pytest.mark.parametrize("name, params", [
    ("oc1", {"n_restarts": 0}),
    ("oc1", {"criterion": "foo"}),
    ("oc1", {"n_jumps": -1}),
    ("oc1", {"max_stagnant": 1.5}),
    ("oc1", {"normalize": "yes"}),
    ("oc1-ap", {"criterion": "foo"}),
    ("oc1-lc", {"max_cycles": 0}),
    ("oc1-lc", {"criterion": "gain"}),
])
def test_bad_parameters(name, params):
    X, y = rotated_data(4, 50)
    with pytest.raises(ObliqError) as err:
        make_estimator(name, **params).fit(X, y)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------ compiled = Python
_TREES_SCRIPT = """
import json, sys
import numpy as np
from obliq_cli import make_estimator
rng = np.random.default_rng(4)
X = np.round(rng.normal(size=(70, 3)), 1)  # rounded: tied candidates too
y = (X[:, 0] + X[:, 1] - 0.5 * X[:, 2] + rng.normal(0, 0.5, 70) > 0).astype(int)
y[:10] = 2
out = {}
for name, params in [("oc1", {"n_restarts": 3, "random_state": 5}), ("oc1-lc", {}),
                     ("cart-lc", {})]:
    tree = make_estimator(name, **params).fit(X, y).tree_
    out[name] = [np.asarray(tree.children_left).tolist(),
                 np.asarray(tree.weights).tolist(),
                 np.asarray(tree.threshold).tolist()]
json.dump(out, sys.stdout)
"""


@pytest.mark.slow
def test_compiled_and_pure_python_kernels_grow_identical_trees():
    # NUMBA_DISABLE_JIT=1 runs the same kernels as plain Python (the debugging path):
    # same draws from the Generator, same arithmetic, so the same trees bit for bit.
    compiled = json_from_python(_TREES_SCRIPT)
    python = json_from_python(_TREES_SCRIPT, compiled=False)
    assert set(compiled) == {"oc1", "oc1-lc", "cart-lc"}
    assert any(any(sum(v != 0 for v in w) > 1 for w in tree[1])
               for tree in compiled.values())  # some split really is oblique
    assert compiled == python


@pytest.mark.parametrize("weighted", [False, True])
def test_the_tree_is_the_same_for_every_thread_count(monkeypatch, weighted):
    """n_threads spreads each step's restarts over threads; the draws are taken first in
    the one-thread order, so every thread count grows the same tree (here every node of
    at least 30 rows climbs threaded, and the threaded climb is seen to run)."""
    import pickle

    from obliq_cli.algorithms import oc1

    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(300, 4)), 1)
    y = (X[:, 0] + 0.6 * X[:, 1] - 0.4 * X[:, 2] ** 2 + rng.normal(0, 0.4, 300) > 0).astype(int)
    y[X[:, 3] > 1.0] = 2  # three classes, ties in every column
    weights = rng.integers(1, 4, 300).astype(float) if weighted else None
    monkeypatch.setattr(oc1, "THREADED_ROWS", 30)
    threaded = []
    original = oc1._NodeSearch._climb_threaded

    def counted(self, A, threads):
        threaded.append(threads.n)
        return original(self, A, threads)

    monkeypatch.setattr(oc1._NodeSearch, "_climb_threaded", counted)
    trees = []
    for n_threads in (1, 2, 3):
        est = make_estimator("oc1", random_state=3, n_restarts=5, n_threads=n_threads)
        trees.append(pickle.dumps(est.fit(X, y, sample_weight=weights).tree_))
    assert threaded and set(threaded) == {2, 3}  # one thread never takes the threaded path
    assert trees[0] == trees[1] == trees[2]


def test_default_threads_follow_fit_threads(monkeypatch):
    """n_threads=None asks obliq_cli.fit_threads; an explicit count is used as given."""
    from obliq_cli import fit_threads
    from obliq_cli.algorithms import base

    seen = []
    monkeypatch.setattr(base, "FitThreads", lambda n: seen.append(n) or fit_threads.FitThreads(1))
    monkeypatch.setattr(base, "resolve_threads", lambda n: 5 if n is None else n)
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    make_estimator("oc1", random_state=0).fit(X, y)
    make_estimator("oc1", random_state=0, n_threads=2).fit(X, y)
    assert seen == [5, 2]
