"""The compiled line search's sort (obliq_cli.kernels.line_search.argsort_floats) and the
search itself on nodes large enough to use the radix sort: the order is a true ascending
order (checked against numpy's sort), and the step found on a large node is the one
found with numpy's order."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import json_from_python

from obliq_cli.kernels import criteria
from obliq_cli.kernels import line_search as ls


def _keys(kind: str, n: int, rng) -> np.ndarray:
    if kind == "ratio":  # OC1's candidates -V / D
        return -rng.uniform(-3, 3, n) / (rng.random(n) + 0.01)
    if kind == "ties":  # runs of equal keys
        return np.round(rng.normal(size=n) * 5)
    if kind == "near":  # keys equal in their high bits: the insertion pass orders them
        base = rng.normal(size=n // 10 + 1)
        return (np.repeat(base, 10)[:n] * (1 + rng.integers(-8, 9, n) * 2.0 ** -50))
    if kind == "specials":  # signed zeros, infinities, huge and subnormal magnitudes
        choices = np.array([0.0, -0.0, np.inf, 1e308, -1e308, 5e-324, -5e-324, 1.0, -1.0])
        return rng.choice(choices, n)
    return rng.normal(size=n)


@pytest.mark.parametrize("kind", ["normal", "ratio", "ties", "near", "specials"])
@pytest.mark.parametrize("n", [5, ls.RADIX_MIN_ROWS - 1, ls.RADIX_MIN_ROWS, 3000, 20000])
def test_argsort_floats_is_an_ascending_order(kind, n):
    rng = np.random.default_rng(n)
    keys = _keys(kind, n, rng)
    order = ls.argsort_floats(keys)
    assert np.array_equal(np.sort(order), np.arange(n))  # a permutation
    assert np.array_equal(keys[order], np.sort(keys))


def _sorted(sort, keys):
    """(order, keys in that order) from ``sort`` (sort_tagged or its Python run) with
    every key tagged by its index."""
    n = keys.size
    ordered, order = np.empty(n), np.empty(n, dtype=np.int64)
    sort(keys, np.arange(n), ordered, order,
         np.empty((ls.BUCKETS_PER_KEY + 1) * n + 2, dtype=np.int64))
    return order, ordered


@pytest.mark.parametrize("kind", ["normal", "ratio", "ties", "near", "specials", "outlier"])
@pytest.mark.parametrize("n", [3, ls.BUCKET_MIN_ROWS - 1, ls.BUCKET_MIN_ROWS, 200,
                               ls.RADIX_MIN_ROWS - 1, ls.RADIX_MIN_ROWS])
def test_sort_tagged_sorts_and_matches_its_python_run(kind, n):
    rng = np.random.default_rng(n + 1)
    if kind == "outlier":  # one key stretches the range: the buckets crowd, quicksort
        keys = rng.normal(size=n)
        keys[0] = 1e12
    else:
        keys = _keys(kind, n, rng)
    keys[rng.random(n) < 0.1] = np.inf  # the points that never move
    order, ordered = _sorted(ls.sort_tagged, keys)  # tagged by index: the tags an order
    assert np.array_equal(np.sort(order), np.arange(n))
    assert np.array_equal(ordered, keys[order])
    assert np.array_equal(ordered, np.sort(keys))
    with np.errstate(over="ignore"):  # 1e308 - -1e308: the range that is not finite
        py_order, py_ordered = _sorted(ls.sort_tagged.py_func, keys)  # interpreted
    assert np.array_equal(py_ordered, ordered)
    if ls.BUCKET_MIN_ROWS <= n < ls.RADIX_MIN_ROWS and kind in ("normal", "near"):
        # the bucket sort's own order (keys spread over the buckets; crowded ones go to a
        # quicksort, whose order of ties differs between numba's and numpy's)
        assert np.array_equal(py_order, order)


def test_the_bucket_sort_gives_the_quicksorts_search():
    # Below RADIX_MIN_ROWS the search's candidates go to the bucket sort: the same step
    # and score as with numba's quicksort order (the sweep sees only ends of runs).
    rng = np.random.default_rng(3)
    n, k = 400, 3
    for code in (criteria.GINI, criteria.TWOING, criteria.ENTROPY):
        for rule in (ls.RULE_RANDOM, ls.RULE_SMALLEST, ls.RULE_FIRST, ls.RULE_THRESHOLD):
            V = np.round(rng.normal(size=n), 1)  # runs of tied candidates
            D = np.round(rng.normal(size=n), 1)
            y = rng.integers(0, k, n)
            total = ls.class_totals(y, k)
            draws = rng.random(n + 1)
            got = ls.line_search(V, D, y, total, code, rule, draws)
            # line_search_with.py_func runs the sweep interpreted with numpy's argsort
            # (line_search_with sorts through sort_tagged_in, so that is what is swapped)
            saved = ls.sort_tagged_in
            try:
                ls.sort_tagged_in = _numpy_sort_tagged_in
                want = ls.line_search_with.py_func(V, D, y, total, code, rule, draws,
                                                   *ls.line_search_scratch(n, k))
            finally:
                ls.sort_tagged_in = saved
            assert got == want


def _numpy_sort_tagged_in(keys, tags, c, ctags, ints, n_fin, lo, hi):
    order = np.argsort(keys, kind="stable")
    c[:keys.size] = keys[order]
    ctags[:keys.size] = tags[order]


@pytest.mark.parametrize("code", [criteria.GINI, criteria.TWOING, criteria.ENTROPY])
@pytest.mark.parametrize("rule", [ls.RULE_RANDOM, ls.RULE_SMALLEST, ls.RULE_FIRST])
def test_large_node_search_matches_the_numpy_ordered_sweep(code, rule):
    # On a large node the search bucket-sorts its candidates and skips the twoing sums
    # of positions that cannot come near its best; its best score must be the minimum
    # over every partition an interval makes, computed here by numpy.
    rng = np.random.default_rng(code * 10 + rule)
    n, k = 2500, 3
    V = np.round(rng.normal(size=n), 2)  # tied candidates too
    D = rng.normal(size=n)
    D[rng.random(n) < 0.1] = 0.0
    y = rng.integers(0, k, n)
    total = ls.class_totals(y, k)
    draws = rng.random(n + 1)
    delta, score = ls.line_search(V, D, y, total, code, rule, draws)
    moving = D != 0
    cand = np.unique(-V[moving] / D[moving])
    probes = np.concatenate([(cand[:-1] + cand[1:]) / 2, [cand[0] - 1.0, cand[-1] + 1.0]])
    scores = []
    for t in probes:
        left = V + t * D <= 0
        if rule == ls.RULE_FIRST and left.all() or rule == ls.RULE_FIRST and not left.any():
            continue
        counts = np.bincount(y[left], minlength=k).astype(float)
        scores.append(criteria.count_score(counts, total, code))
    assert score == pytest.approx(min(scores), abs=1e-12)
    counts = np.bincount(y[V + delta * D <= 0], minlength=k).astype(float)
    assert criteria.count_score(counts, total, code) == pytest.approx(score, abs=1e-12)


def test_exact_twoing_equals_the_textbook_formula():
    # -(n_L n_R / 4 n^2) (sum_j |L_j / n_L - R_j / n_R|)^2, worked by hand for
    # L = (2, 1, 0), R = (1, 1, 3): n = 8, |2/3 - 1/5| + |1/3 - 1/5| + |0 - 3/5| = 6/5,
    # so -(3 * 5 / 256) * 36 / 25 = -27 / 320.
    left, total = np.array([2.0, 1.0, 0.0]), np.array([3.0, 2.0, 3.0])
    assert criteria.count_score(left, total, criteria.TWOING) == pytest.approx(-27 / 320, rel=1e-15)
    from obliq_cli.tree.impurity import twoing_split
    rng = np.random.default_rng(7)
    for _ in range(200):
        k = int(rng.integers(3, 27))
        total = rng.integers(0, 50, k).astype(float)
        left = np.floor(total * rng.random(k))
        expected = twoing_split(left[None, :], (total - left)[None, :])[0]
        got = criteria.count_score(left, total, criteria.TWOING)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # an empty side scores 0
    assert criteria.count_score(np.zeros(3), np.array([1.0, 2.0, 3.0]), criteria.TWOING) == 0.0


@pytest.mark.slow
def test_compiled_and_pure_python_searches_agree_on_large_nodes():
    # NUMBA_DISABLE_JIT=1 (the debugging path) must run the radix sort and the running
    # sums as the compiled kernel does: the same step and score to the bit.

    code = """
import json, numpy as np
from obliq_cli.kernels import criteria
from obliq_cli.kernels import line_search as ls
rng = np.random.default_rng(11)
out = []
for n, k, code in ((700, 3, criteria.TWOING), (3000, 5, criteria.GINI), (3000, 2, criteria.TWOING)):
    V = np.round(rng.normal(size=n), 2); D = rng.normal(size=n); y = rng.integers(0, k, n)
    d, s = ls.line_search(V, D, y, ls.class_totals(y, k), code, ls.RULE_RANDOM,
                          rng.random(n + 1))
    out.append([float(d).hex(), float(s).hex()])
print(json.dumps(out))
"""
    assert json_from_python(code) == json_from_python(code, compiled=False)


def test_a_candidate_at_minus_infinity_means_no_step():
    # -V / D overflows to -inf for the first point (a subnormal D): the sort's range is
    # not finite and no candidate counts as finite, so nothing is scored and the search
    # returns its "no point can move" answer (0.0, inf), as it did when it scanned the
    # sorted keys for the finite ones.
    V = np.array([1e300, 1.0, -1.0, 2.0])
    D = np.array([5e-324, 1.0, 1.0, -1.0])
    y = np.array([0, 1, 0, 1])
    for code in (criteria.GINI, criteria.TWOING, criteria.ENTROPY):
        for rule in (ls.RULE_RANDOM, ls.RULE_SMALLEST, ls.RULE_FIRST, ls.RULE_THRESHOLD):
            assert ls.line_search(V, D, y, ls.class_totals(y, 2), code, rule,
                                  np.full(5, 0.5)) == (0.0, np.inf)


def test_one_point_moves_the_twoing_spread_by_at_most_two_n():
    # the bound behind the line search's skipped twoing sums: moving one point of class
    # c between the sides changes S = sum_j |n L_j - T_j n_L| by at most 2 (n - T_c)
    rng = np.random.default_rng(7)
    for _ in range(300):
        k = int(rng.integers(3, 27))
        total = rng.integers(1, 40, k).astype(float)
        n = total.sum()
        left = np.floor(rng.random(k) * (total + 1))
        c = int(rng.integers(0, k))
        step = 1.0 if left[c] < total[c] else -1.0
        moved = left.copy()
        moved[c] += step
        before = criteria.twoing_spread(left, total, left.sum(), n)
        after = criteria.twoing_spread(moved, total, moved.sum(), n)
        assert abs(after - before) <= 2 * (n - total[c])
        assert criteria.twoing_of_spread(after, moved.sum(), n) == criteria.twoing_exact(
            moved, total, moved.sum(), n)
