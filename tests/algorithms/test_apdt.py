"""APDT (Shah & Sastry 1999): Perceptron separability, eq. (1), Alopex, growTree, problems."""

import numpy as np
import pytest
from conftest import json_from_python, rule_predictions

from obliq_cli import make_estimator
from obliq_cli.algorithms import apdt
from obliq_cli.algorithms.apdt import nonseparable
from obliq_cli.data.apdt_problems import apdt_problem, problem_labels
from obliq_cli.errors import ObliqError
from obliq_cli.kernels import apdt as kapdt


def augmented(X):
    return np.hstack([np.ones((X.shape[0], 1)), X])


# ------------------------------------------------ references the package does not need
def perceptron_counts(Z: np.ndarray, s: np.ndarray, n_iter: int | None = None):
    """``(w, counts)``: the cyclic Perceptron's final weights and per-pattern update counts.

    ``Z`` holds augmented patterns (rows, in presentation order), ``s`` labels +-1;
    ``n_iter`` defaults to max(300, len(Z)) presented patterns (§III).
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    s = np.ascontiguousarray(s, dtype=np.float64)
    if n_iter is None:
        n_iter = max(apdt.PERCEPTRON_MIN_ITERATIONS, Z.shape[0])
    if Z.shape[0] == 0:
        return np.zeros(Z.shape[1]), np.zeros(0, dtype=np.int64)
    w, counts, _, _ = kapdt.perceptron(Z, s, np.arange(Z.shape[0]), int(n_iter), False,
                                      np.ones(Z.shape[0]))
    return w, counts


def eq1_score(n_left, n_right, nsp_left, nsp_right, M: float = 4.0):
    """APDT's F(W, S^t) of eq. (1) (``kernels.apdt.separability_score``) for numbers or
    arrays, broadcast."""
    args = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64)
                                 for a in (n_left, n_right, nsp_left, nsp_right)))
    out = np.array([kapdt.separability_score(*v, float(M))
                    for v in zip(*(a.ravel() for a in args))])
    return out.reshape(args[0].shape) if args[0].ndim else float(out[0])


def alopex(E, w0, rng: np.random.Generator, n_iter: int = 500, delta: float = 0.05,
           temperature0: float = 1000.0, window: int = 10, stop_at: float | None = None,
           temperature: str = "mean"):
    """Minimise any ``E`` with Alopex (§II-B, eqs. 2-5); returns ``(w_best, E_best, trace)``.

    W(0) = ``w0``, W(1) = W(0) + delta x(0) with x(0) uniform on {-1, +1}^n, then
    W(2), ..., W(n_iter) by eqs. (2)-(4) (Table I, step 4); ``trace`` holds E(W(k)).
    A Python loop around a Python ``E``: the reference the compiled
    ``kernels.apdt.alopex_split`` of APDT's nodes is checked against (same update rule,
    same random draws). ``temperature``:
    "mean" or "printed" (``APDTClassifier``'s reading of eq. (5)).
    """
    scale = apdt._temperature_scale(temperature, delta)
    w = np.array(w0, dtype=np.float64)
    d = w.size
    trace = np.empty(n_iter + 1)
    dE = np.zeros(n_iter + 1)  # dE[k] = E(W(k)) - E(W(k-1)); dE[0] = 0
    e_prev = trace[0] = float(E(w))
    best_w, best_e = w.copy(), e_prev
    if stop_at is not None and best_e <= stop_at:
        return best_w, best_e, trace[:1]
    x = np.where(rng.random(d) < 0.5, -1.0, 1.0)
    T = float(temperature0)
    last = 0
    for k in range(1, n_iter + 1):
        if k >= 2:  # p(k-1) from dE(k-1) and T(k-1) gives x(k-1); W(k) = W(k-1) + delta x
            T = kapdt.next_direction(x, rng.random(d), dE, k - 1, T, window, scale)
        w = w + delta * x
        e = float(E(w))
        trace[k] = e
        dE[k] = e - e_prev
        e_prev = e
        last = k
        if e < best_e:
            best_w, best_e = w.copy(), e
            if stop_at is not None and best_e <= stop_at:
                break
    return best_w, best_e, trace[:last + 1]


def reference_perceptron(Z, s, n_iter):
    """The textbook cyclic Perceptron, one pattern per iteration, plain Python."""
    w = np.zeros(Z.shape[1])
    counts = np.zeros(Z.shape[0], dtype=int)
    for it in range(n_iter):
        i = it % Z.shape[0]
        if s[i] * float(Z[i] @ w) <= 0:
            w = w + s[i] * Z[i]
            counts[i] += 1
    return w, counts


def separable_with_gap(n, gap, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(4 * n, 2))
    margin = X[:, 0] + 2 * X[:, 1] - 1.4
    X = X[np.abs(margin) > gap][:n]
    return X, (X[:, 0] + 2 * X[:, 1] > 1.4).astype(int)


# ---------------------------------------------------------------- perceptron
def test_perceptron_matches_the_plain_loop():
    rng = np.random.default_rng(0)
    for trial in range(30):
        n = int(rng.integers(2, 60))
        Z = augmented(rng.uniform(size=(n, 2)))
        s = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
        if trial % 2:
            s = np.where(Z[:, 1] > Z[:, 2], 1.0, -1.0)
        w, counts = perceptron_counts(Z, s, 300)
        w_ref, counts_ref = reference_perceptron(Z, s, 300)
        np.testing.assert_array_equal(counts, counts_ref)
        np.testing.assert_allclose(w, w_ref)


def test_separable_set_has_no_nonseparable_pattern_and_returns_its_hyperplane():
    X, y = separable_with_gap(150, 0.15, 1)
    Z, s = augmented(X), np.where(y == 1, 1.0, -1.0)
    nsp, w = nonseparable(Z, s)
    assert nsp == 0
    assert np.all(s * (Z @ w) > 0)


def test_xor_has_nonseparable_patterns():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(200, 2))
    s = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    nsp, w = nonseparable(augmented(X), s)
    assert nsp > 0 and w is None
    # The four XOR corners: every pattern keeps updating, all are nonseparable.
    Z = augmented(np.array([[0.0, 0], [1, 1], [0, 1], [1, 0]]))
    nsp, _ = nonseparable(Z, np.array([1.0, 1, -1, -1]))
    assert nsp >= 2


def test_single_class_and_empty_sets_are_separable():
    Z = augmented(np.random.default_rng(3).uniform(size=(10, 2)))
    assert nonseparable(Z, np.ones(10)) == (0, None)
    assert nonseparable(Z[:0], np.ones(0)) == (0, None)


# ------------------------------------------------------------------ eq. (1)
def test_split_score_takes_the_values_of_the_three_cases_below_eq_1():
    n_l, n_r, M = 30, 70, 4
    R = 1 / (2 * 100)
    # Only t_l separable: F = (n_tr / n_t)(R / M); only t_r: (n_tl / n_t)(R / M).
    assert eq1_score(n_l, n_r, 0, 5, M) == pytest.approx(0.7 * R / M)
    assert eq1_score(n_l, n_r, 5, 0, M) == pytest.approx(0.3 * R / M)
    # Both separable: the global minimum 0.
    assert eq1_score(n_l, n_r, 0, 0, M) == 0.0
    # Neither: ((nsp_l + nsp_r)/n)(1/2 - (n_l/n)(n_r/n)) = 0.08 * 0.29.
    assert eq1_score(n_l, n_r, 3, 5, M) == pytest.approx(0.08 * 0.29)


def test_term_a_is_always_below_term_b():
    # "R in term A ensures that the value of term A is always smaller than that of B".
    n = 50
    n_l = np.arange(1, n)
    a = np.maximum(eq1_score(n_l, n - n_l, 0, 7, 4), eq1_score(n_l, n - n_l, 7, 0, 4))
    b = eq1_score(n_l, n - n_l, 1, 1, 4)  # the smallest B: one nonseparable each
    assert a.max() < b.min()


def test_a_split_sending_everything_one_way_scores_as_term_b():
    # Empty child: I = 0, so F = nsp / (2 n), the worst value of the product factor.
    assert eq1_score(0, 40, 0, 6, 4) == pytest.approx(6 / 40 * 0.5)


# ------------------------------------------------------------------- alopex
def test_alopex_decreases_a_smooth_convex_function():
    c = np.array([1.0, -0.5, 0.7])

    def E(w):
        return float(np.sum((w - c) ** 2))

    w, e, trace = alopex(E, np.zeros(3), np.random.default_rng(4), n_iter=500)
    assert trace[0] == pytest.approx(E(np.zeros(3)))
    assert e == pytest.approx(trace.min()) and e == pytest.approx(E(w))
    assert e < 0.01 * trace[0]
    assert np.abs(w - c).max() < 0.1  # within two steps of the minimiser


def test_alopex_stops_when_the_target_is_reached():
    w, e, trace = alopex(lambda w: float(max(abs(w[0]) - 0.1, 0.0)), np.array([0.5]),
                         np.random.default_rng(5), n_iter=500, stop_at=0.0)
    assert e == 0.0 and trace.size < 500


class ReferenceNodeScore:
    """F(W, S^t) of eq. (1) from the public pieces, in Python; keeps the best W that
    sends rows both ways (strictly better only, so the first of equal ones)."""

    def __init__(self, Z, s):
        self.Z, self.s, self.best = Z, s, (np.inf, None)

    def __call__(self, W):
        left = self.Z @ W <= 0
        n_left = int(left.sum())
        nsp_l = nonseparable(self.Z[left], self.s[left])[0] if n_left else 0
        nsp_r = nonseparable(self.Z[~left], self.s[~left])[0] if n_left < left.size else 0
        value = eq1_score(n_left, left.size - n_left, nsp_l, nsp_r, 4)
        if 0 < n_left < left.size and value < self.best[0]:
            self.best = (value, W.copy())
        return value


@pytest.mark.parametrize("seed", range(6))
def test_compiled_node_search_is_alopex_over_eq_1(seed):
    # The compiled search (partition cache, block of draws) against the Python Alopex
    # over a Python F: same best hyperplane, and the rng left at the same place.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    X = rng.uniform(-1, 1, size=(n, 3))
    s = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    if seed % 2:  # two separable children are easy to find: Alopex stops early (F = 0)
        s = np.where(X[:, 0] > 0.2, 1.0, -1.0)
    Z = augmented(X)
    finder = make_estimator("apdt", alopex_iterations=200)._make_split_finder()
    ours_rng, ref_rng = np.random.default_rng(seed + 10), np.random.default_rng(seed + 10)
    finder.rng = ours_rng
    ours = finder._search_node(Z, s)
    w0 = apdt._initial_hyperplane(Z, s, ref_rng)
    score = ReferenceNodeScore(Z, s)
    _, best, trace = alopex(score, w0, ref_rng, n_iter=200, stop_at=0.0)
    assert (trace.size < 201) == (best == 0.0)
    assert score.best[1] is not None and ours is not None
    np.testing.assert_array_equal(ours, score.best[1])
    assert ours_rng.random() == ref_rng.random()


# ------------------------------------------------------------------ the tree
def test_linearly_separable_set_gives_one_split():
    X, y = separable_with_gap(200, 0.15, 6)
    model = make_estimator("apdt", random_state=0).fit(X, y)
    assert model.tree_.n_internal == 1 and model.n_leaves_ == 2
    assert (model.predict(X) == y).all()


def test_problem_1_is_learned_accurately():
    X, y = apdt_problem(1, seed=0)
    model = make_estimator("apdt", random_state=1).fit(X[:1000], y[:1000])
    assert (model.predict(X[:1000]) == y[:1000]).all()  # grown to separable leaves
    assert (model.predict(X[1000:]) == y[1000:]).mean() > 0.95


def test_a_child_the_parent_found_separable_is_split_by_the_look_ahead_plane():
    """growTree's step 7 through the typed node state: a child handed NodeState(stage,
    True, W) is split by W itself; one handed separable=False is grown by Alopex."""
    from obliq_cli.algorithms.apdt import NodeState
    from obliq_cli.tree.builder import build_tree

    class Recording(apdt.APDTSplitFinder):
        def split(self, node):
            split = super().split(node)
            self.seen.append((node.state, split))
            return split

    X, y = apdt_problem(2, n=400, seed=3)
    model = make_estimator("apdt", random_state=0)
    finder = model._make_split_finder()
    finder.__class__ = Recording
    finder.seen = []
    build_tree(X, y, 2, finder, rng=np.random.default_rng(0))
    states = [state for state, _ in finder.seen]
    assert states[0] is None and all(isinstance(s, NodeState) for s in states[1:])
    planes = [(s, split) for s, split in finder.seen[1:] if s.separable]
    assert planes and any(s.separable is False for s in states[1:])
    for state, split in planes:
        # the plane found on the normalised patterns, mapped back to the raw ones
        np.testing.assert_array_equal(split.weights, state.plane[1:] / finder.scale)
        assert split.threshold == -state.plane[0]


def test_same_seed_gives_the_same_tree_and_other_seeds_differ():
    X, y = apdt_problem(3, n=300, seed=2)
    a = make_estimator("apdt", random_state=7).fit(X, y).tree_.to_dict()
    b = make_estimator("apdt", random_state=7).fit(X, y).tree_.to_dict()
    c = make_estimator("apdt", random_state=8).fit(X, y).tree_.to_dict()
    assert a == b
    assert a != c


def test_predictions_equal_the_exported_rules():
    X, y = apdt_problem(2, n=400, seed=3)
    model = make_estimator("apdt", random_state=0).fit(X, y)
    tree = model.tree_
    assert (tree.feature[~tree.is_leaf] == -2).all()
    np.testing.assert_array_equal(rule_predictions(model, X), model.predict(X))
    # value holds the class counts of the growing rows at every node
    np.testing.assert_array_equal(tree.value[0], np.bincount(y, minlength=2))
    restored = make_estimator("apdt").load_tree(model.export_json())
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))


def test_max_normalisation_makes_the_tree_scale_free():
    X, y = apdt_problem(1, n=300, seed=4)
    scale = np.array([1000.0, 0.01])
    a = make_estimator("apdt", normalize="max", random_state=3).fit(X, y)
    b = make_estimator("apdt", normalize="max", random_state=3).fit(X * scale, y)
    assert a.tree_.n_nodes == b.tree_.n_nodes
    np.testing.assert_array_equal(a.predict(X), b.predict(X * scale))
    np.testing.assert_allclose(b.tree_.weights * scale, a.tree_.weights, rtol=1e-9, atol=1e-12)


def test_by_default_attributes_in_other_units_grow_the_same_tree():
    # On raw attributes whose ranges differ by 10^5 APDT fell to the majority
    # rate. Dividing by the training maxima (the default, §II-B / §III-B2) makes the
    # search see the same patterns whatever the units: bit for bit when they differ by
    # powers of two (2^17 ~ 1.3e5, about the range of adult's fnlwgt).
    X, y = apdt_problem(2, n=900, seed=2)
    units = np.array([2.0**17, 1.0])
    train, test = slice(0, 600), slice(600, None)
    majority = max(y[test].mean(), 1 - y[test].mean())
    for seed in range(3):
        square = make_estimator("apdt", random_state=seed).fit(X[train], y[train])
        wide = make_estimator("apdt", random_state=seed).fit(X[train] * units, y[train])
        for field in ("children_left", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(wide.tree_, field),
                                          getattr(square.tree_, field))
        np.testing.assert_array_equal(wide.tree_.weights * units, square.tree_.weights)
        np.testing.assert_array_equal(wide.predict(X[test] * units), square.predict(X[test]))
        assert square.score(X[test], y[test]) > 0.95
        raw = make_estimator("apdt", normalize=None, random_state=seed).fit(
            X[train] * units, y[train])
        assert raw.score(X[test] * units, y[test]) < majority + 0.1
        assert raw.n_leaves_ > 5 * square.n_leaves_


def test_three_classes_need_the_ovr_extension():
    rng = np.random.default_rng(9)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = np.repeat([0, 1, 2], 40)
    X = centres[y] + rng.normal(scale=0.4, size=(120, 2))
    with pytest.raises(ObliqError, match="2 classes"):
        make_estimator("apdt").fit(X, y)
    model = make_estimator("apdt", multiclass="ovr", random_state=0).fit(X, y)
    assert (model.predict(X) == y).mean() == 1.0
    assert model.tree_.value.shape[1] == 3


@pytest.mark.parametrize("params", [{"rho": 0}, {"M": 0.5}, {"alopex_iterations": 0},
                                    {"delta": -1}, {"normalize": "std"},
                                    {"multiclass": "ovo"}, {"temperature_window": 2.5}])
def test_bad_parameters_are_one_line_errors(params):
    with pytest.raises(ObliqError) as err:
        make_estimator("apdt", **params).validate_params()
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------- problems
def test_problems_are_reproducible_uniform_and_labelled_as_documented():
    for k in (1, 2, 3):
        X, y = apdt_problem(k)
        assert X.shape == (1500, 2) and y.shape == (1500,)
        assert X.min() >= 0 and X.max() <= 1
        X2, y2 = apdt_problem(k)
        np.testing.assert_array_equal(X, X2)
        np.testing.assert_array_equal(y, y2)
        assert 0.2 < y.mean() < 0.8
    pts = np.array([[0.5, 0.9], [0.1, 0.9], [0.5, 0.3], [0.9, 0.9]])
    np.testing.assert_array_equal(problem_labels(1, pts), [1, 0, 0, 0])
    # Problem 2: above the W through (0, .75), (.25, .35), (.5, .7), (.75, .3), (1, .8).
    pts = np.array([[0.25, 0.36], [0.25, 0.34], [0.5, 0.71], [0.5, 0.69], [0.75, 0.31],
                    [0.1, 0.6]])
    np.testing.assert_array_equal(problem_labels(2, pts), [1, 0, 1, 0, 1, 1])
    pts = np.array([[0.5, 0.5], [0.7, 0.7], [0.79, 0.0]])
    np.testing.assert_array_equal(problem_labels(3, pts), [1, 0, 1])
    with pytest.raises(ValueError):
        apdt_problem(4)


_APDT_TREE = """
import json, sys
import numpy as np
from obliq_cli import load_dataset, make_estimator
X, y, _ = load_dataset("apdt_problem1")
n, params = json.loads(sys.argv[1])
tree = make_estimator("apdt", random_state=0, **params).fit(X[:n], y[:n]).tree_
json.dump([np.asarray(tree.children_left).tolist(), np.asarray(tree.weights).tolist(),
           np.asarray(tree.threshold).tolist()], sys.stdout)
"""


@pytest.mark.slow
def test_compiled_and_pure_python_kernels_grow_the_same_tree():
    # APDT has one code path, compiled; NUMBA_DISABLE_JIT=1 (for debugging) runs the
    # same kernels as Python with the same draws, so the tree is the same bit for bit.
    import json

    # Each reading of a Perceptron iteration; the interpreted "pass" reading is slow, so
    # it runs on fewer rows and Alopex iterations.
    for case in ([150, {"perceptron_iteration": "pattern"}],
                 [100, {"perceptron_iteration": "pass", "alopex_iterations": 40}],
                 [100, {"perceptron_iteration": "settled", "alopex_iterations": 40}]):
        compiled = json_from_python(_APDT_TREE, json.dumps(case))
        assert len(compiled[0]) > 3  # a tree with several splits
        assert compiled == json_from_python(_APDT_TREE, json.dumps(case), compiled=False)


# ------------------------------------------------ the readings of docs/ablations/apdt.md
def reference_errors_at_cycle_ends(Z, s, n_iter):
    """Plain Python: the errors of the cyclic Perceptron's hyperplane at every cycle's
    end and at the end, and the final hyperplane's errors."""
    w = np.zeros(Z.shape[1])
    seen = []
    for it in range(n_iter):
        i = it % Z.shape[0]
        if s[i] * float(Z[i] @ w) <= 0:
            w = w + s[i] * Z[i]
        if (it + 1) % Z.shape[0] == 0:
            seen.append(int(np.sum(s * (Z @ w) <= 0)))
    final = int(np.sum(s * (Z @ w) <= 0))
    return min(seen + [final]), final


def test_pass_reading_runs_max_300_n_cycles_and_finds_a_thin_margin():
    # A separable set whose margin one cycle (the "pattern" reading's 300 presentations
    # of 300 patterns) does not find: the "pass" reading runs 300 cycles and does.
    X, y = separable_with_gap(300, 0.002, 11)
    Z, s = augmented(X), np.where(y == 1, 1.0, -1.0)
    nsp_pattern, w_pattern = nonseparable(Z, s, perceptron_iteration="pattern")
    nsp_pass, w_pass = nonseparable(Z, s, perceptron_iteration="pass")
    nsp_default, w_default = nonseparable(Z, s)  # the default is §II's "pattern"
    assert nsp_default == nsp_pattern and w_default is None
    assert nsp_pattern > 0 and w_pattern is None
    assert nsp_pass == 0 and np.all(s * (Z @ w_pass) > 0)
    # "pass" is "pattern" with max(300, n) * n presentations
    assert kapdt.perceptron_iterations(300, 300, True) == 300 * 300
    assert kapdt.perceptron_iterations(400, 300, False) == 400
    xor = augmented(np.random.default_rng(12).uniform(-1, 1, size=(40, 2)))
    s_xor = np.where(xor[:, 1] * xor[:, 2] > 0, 1.0, -1.0)
    w, counts = perceptron_counts(xor, s_xor, 300 * 40)
    expected = int(np.sum(counts >= 0.6 * counts.max()))
    assert nonseparable(xor, s_xor, perceptron_iteration="pass")[0] == expected
    assert nonseparable(xor, s_xor, perceptron_iteration="pattern",
                        perceptron_min_iterations=300 * 40)[0] == expected


@pytest.mark.parametrize("seed", range(4))
def test_error_readings_count_the_misclassified_patterns(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 50))
    Z = augmented(rng.uniform(-1, 1, size=(n, 2)))
    s = np.where(Z[:, 1] * Z[:, 2] + 0.2 > 0, 1.0, -1.0)
    for iteration, n_iter in (("pattern", max(300, n)), ("pass", max(300, n) * n)):
        pocket, final = reference_errors_at_cycle_ends(Z, s, n_iter)
        assert nonseparable(Z, s, separability="final_errors",
                            perceptron_iteration=iteration)[0] == final
        assert nonseparable(Z, s, separability="pocket_errors",
                            perceptron_iteration=iteration)[0] == pocket <= final
    # A separable set is separable under every reading, with its separating hyperplane.
    X, y = separable_with_gap(150, 0.15, 1)
    Zs, ss = augmented(X), np.where(y == 1, 1.0, -1.0)
    for reading in ("updates", "final_errors", "pocket_errors"):
        nsp, w = nonseparable(Zs, ss, separability=reading)
        assert nsp == 0 and np.all(ss * (Zs @ w) > 0)


def test_printed_temperature_is_delta_times_the_window_mean():
    dE = np.array([0.0, 1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 0.5])
    for reading, factor in (("mean", 1.0), ("printed", 0.05)):
        x = np.ones(2)
        T = kapdt.next_direction(x, np.zeros(2), dE, 10, 1000.0, 10,
                                 apdt._temperature_scale(reading, 0.05))
        assert T == pytest.approx(factor * np.mean(np.abs(dE[:10])))
        # u = 0 < p keeps every direction: dE(10) = -10 < 0 makes p > 1/2
        np.testing.assert_array_equal(x, np.ones(2))
    # between window ends the temperature is carried over
    assert kapdt.next_direction(np.ones(2), np.zeros(2), dE, 11, 7.0, 10, 0.05) == 7.0


@pytest.mark.parametrize("readings", [
    {"perceptron_iteration": "pass"}, {"separability": "pocket_errors"},
    {"separability": "final_errors"}, {"temperature": "printed"}])
def test_compiled_node_search_follows_each_reading(readings):
    # As test_compiled_node_search_is_alopex_over_eq_1, under each reading.
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(60, 3))
    s = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(60) > 0, 1.0, -1.0)
    Z = augmented(X)
    finder = make_estimator("apdt", alopex_iterations=100, **readings)._make_split_finder()
    ours_rng, ref_rng = np.random.default_rng(13), np.random.default_rng(13)
    finder.rng = ours_rng
    ours = finder._search_node(Z, s)
    perceptron = {k: v for k, v in readings.items() if k != "temperature"}

    class Score(ReferenceNodeScore):
        def __call__(self, W):
            left = self.Z @ W <= 0
            n_left = int(left.sum())
            nsp = [nonseparable(self.Z[side], self.s[side], **perceptron)[0]
                   if side.any() else 0 for side in (left, ~left)]
            value = eq1_score(n_left, left.size - n_left, nsp[0], nsp[1], 4)
            if 0 < n_left < left.size and value < self.best[0]:
                self.best = (value, W.copy())
            return value

    w0 = apdt._initial_hyperplane(Z, s, ref_rng)
    score = Score(Z, s)
    alopex(score, w0, ref_rng, n_iter=100, stop_at=0.0,
           temperature=readings.get("temperature", "mean"))
    np.testing.assert_array_equal(ours, score.best[1])
    assert ours_rng.random() == ref_rng.random()


@pytest.mark.slow
def test_scikit_learn_checks_pass_under_the_readings():
    from sklearn.utils.estimator_checks import check_estimator

    from obliq_cli import expected_failed_checks

    check_estimator(make_estimator("apdt", alopex_iterations=30, perceptron_iteration="pass",
                                   separability="pocket_errors", temperature="printed"),
                    expected_failed_checks=expected_failed_checks("apdt"))


@pytest.mark.parametrize("params", [{"perceptron_iteration": "epoch"},
                                    {"separability": "errors"}, {"temperature": "1000"},
                                    {"perceptron_min_iterations": 0}])
def test_bad_readings_are_one_line_errors(params):
    with pytest.raises(ObliqError) as err:
        make_estimator("apdt", **params).validate_params()
    assert "\n" not in str(err.value)


def reference_settled(Z, s, rho=0.6, min_iterations=300):
    """Plain Python: the "settled" reading's (nsp, counts, cycles run)."""
    m = Z.shape[0]
    w, counts = np.zeros(Z.shape[1]), np.zeros(m, dtype=int)
    flags, since = np.zeros(m, dtype=bool), 0
    cycles = 0
    for cycle in range(1, max(min_iterations, m) + 1):
        cycles = cycle
        updated = False
        for i in range(m):
            if s[i] * float(Z[i] @ w) <= 0:
                w = w + s[i] * Z[i]
                counts[i] += 1
                updated = True
        if not updated:
            break
        now = counts >= rho * counts.max()
        if np.any(now != flags):
            flags, since = now, cycle
        elif cycle >= 2 * since:
            break
    if np.all(s * (Z @ w) > 0):
        return 0, counts, cycles
    return int(np.sum(counts >= rho * counts.max())), counts, cycles


def test_settled_reading_stops_once_the_flags_have_settled():
    # Hand-worked: one point with both labels. Both patterns update in every cycle; the
    # flags {both} form at cycle 1 and are unchanged at cycle 2 >= 2 x 1, so the run
    # stops there with counts (2, 2), where "pass" runs 300 cycles.
    Z, s = np.array([[1.0, 0.5], [1.0, 0.5]]), np.array([1.0, -1.0])
    _, counts, _, _ = kapdt.perceptron(Z, s, np.arange(2), 300 * 2, False, np.ones(2), True,
                                      0.6)
    assert counts.tolist() == [2, 2]
    _, counts_pass, _, _ = kapdt.perceptron(Z, s, np.arange(2), 300 * 2, False, np.ones(2))
    assert counts_pass.tolist() == [300, 300]
    assert nonseparable(Z, s, perceptron_iteration="settled") == (2, None)
    # Cross-check against the plain-Python reading on nonseparable sets.
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(10, 60))
        Zr = augmented(rng.uniform(-1, 1, size=(n, 2)))
        sr = np.where(Zr[:, 1] * Zr[:, 2] + 0.1 > 0, 1.0, -1.0)
        nsp, counts, cycles = reference_settled(Zr, sr)
        assert cycles < 300  # it settled before the cap
        assert nonseparable(Zr, sr, perceptron_iteration="settled")[0] == nsp
        got = kapdt.perceptron(Zr, sr, np.arange(n), max(300, n) * n, False, np.ones(n),
                               True, 0.6)[1]
        assert got.tolist() == counts.tolist()


def test_settled_reading_separates_a_separable_set_with_its_hyperplane():
    # A wide margin is found in a few cycles, before the flags could settle, and the
    # separating hyperplane is the one "pass" finds (the same cycles, run to the end).
    X, y = separable_with_gap(150, 0.15, 1)
    Z, s = augmented(X), np.where(y == 1, 1.0, -1.0)
    nsp, w = nonseparable(Z, s, perceptron_iteration="settled")
    nsp_pass, w_pass = nonseparable(Z, s, perceptron_iteration="pass")
    assert nsp == nsp_pass == 0 and np.all(s * (Z @ w) > 0)
    np.testing.assert_array_equal(w, w_pass)
