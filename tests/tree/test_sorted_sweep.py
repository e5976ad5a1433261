"""The compiled sorted sweep (obliq_cli.tree.sorted_sweep): known answers worked by hand,
cross-checks of every criterion against obliq_cli.tree.impurity, the exact agreement of
the searches built on it with plain numpy references, and compiled = pure Python."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import json_from_python

from obliq_cli.algorithms.c45 import entropy_of_counts, entropy_split, evaluate_attributes
from obliq_cli.kernels import criteria
from obliq_cli.kernels import sweep as ks
from obliq_cli.tree import impurity
from obliq_cli.tree import sorted_sweep as ss
from obliq_cli.tree.axis_search import _vectorised_axis_split, find_best_axis_split

CRITERIA = {"gini": criteria.GINI, "entropy": criteria.ENTROPY, "twoing": criteria.TWOING,
            "misclassification": criteria.MISCLASSIFICATION}


def _kernel_scores(x, y, k, crit):
    values = np.asarray(x, dtype=np.float64)[None, :]
    order = np.argsort(values, axis=1, kind="stable")
    scores = np.empty((1, values.shape[1] - 1))
    table = ks.xlogx_table(values.shape[1])
    best = ks.sweep_scores(values, order, np.asarray(y, dtype=np.int64), k, crit, table,
                           scores)
    return scores[0], best


def test_hand_worked_thresholds():
    # x = 1 1 2 3 with classes 0 0 1 0: no threshold inside the tied pair; after the
    # pair left (2, 0) | right (1, 1); after x = 2 left (2, 1) | right (1, 0).
    x, y = [1.0, 1.0, 2.0, 3.0], [0, 0, 1, 0]
    gini, best = _kernel_scores(x, y, 2, criteria.GINI)
    assert gini[0] == np.inf
    # (n - sum L^2 / n_L - sum R^2 / n_R) / n = (4 - 4/2 - 2/2) / 4 and (4 - 5/3 - 1) / 4
    assert gini[1:] == pytest.approx([0.25, 1.0 / 3.0])
    assert best == pytest.approx(0.25)
    # twoing: p_L p_R / 4 (|1 - 1/2| + |0 - 1/2|)^2 = 1/16 after the pair.
    assert _kernel_scores(x, y, 2, criteria.TWOING)[0][1] == pytest.approx(-1.0 / 16.0)
    # entropy: (2 * 0 + 2 * 1 bit) / 4; misclassification: (0 + 1) / 4.
    assert _kernel_scores(x, y, 2, criteria.ENTROPY)[0][1] == pytest.approx(0.5)
    assert _kernel_scores(x, y, 2, criteria.MISCLASSIFICATION)[0][1] == pytest.approx(0.25)
    found = ss.best_sorted_split(np.array([x]), np.array(y), 2, impurity.gini_split)
    assert found == (0, 1.5, 0.25)


@pytest.mark.parametrize("name", sorted(CRITERIA))
@pytest.mark.parametrize("k", [2, 3, 9, 26])
def test_closed_forms_agree_with_impurity(name, k):
    # Every threshold of a random column with ties: the kernel's closed form against the
    # vectorised formula on the same counts (to rounding), and impurity_score (the
    # rescoring) bit for bit.
    rng = np.random.default_rng(k)
    n = 300
    x = rng.integers(0, 60, n).astype(float)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    scores, best = _kernel_scores(x, y, k, CRITERIA[name])
    order = np.argsort(x, kind="stable")
    left = np.cumsum(np.eye(k, dtype=np.int64)[y[order]], axis=0)[:-1]
    right = left[-1] + np.eye(k, dtype=np.int64)[y[order[-1]]] - left
    cut = x[order][1:] > x[order][:-1]
    want = impurity.CRITERIA[name](left[cut], right[cut])
    np.testing.assert_allclose(scores[cut], want, rtol=0, atol=1e-12)
    assert np.all(np.isinf(scores[~cut]))
    assert best == scores[cut].min()
    if name != "entropy":
        spread = np.empty(k)
        exact = [criteria.impurity_score(CRITERIA[name], lc, rc, spread)
                 for lc, rc in zip(left[cut], right[cut])]
        np.testing.assert_array_equal(exact, want)


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_axis_search_identical_to_the_vectorised_search(name):
    # The compiled search and the count-array search pick the same (feature,
    # threshold) with the same score, bit for bit, on data full of ties.
    criterion = impurity.CRITERIA[name]
    rng = np.random.default_rng(3)
    for trial in range(40):
        n, d, k = int(rng.integers(5, 200)), int(rng.integers(1, 6)), int(rng.integers(2, 7))
        X = rng.integers(0, int(rng.integers(2, 30)), (n, d)).astype(float)
        if trial % 2:
            X = X + rng.normal(0, 1e-3, X.shape)
        y = rng.integers(0, k, n)
        present = np.bincount(y, minlength=k) > 0
        y_local = (np.cumsum(present) - 1)[y]
        want = _vectorised_axis_split(X, y_local, int(present.sum()), criterion)
        got = find_best_axis_split(X, y, k, criterion)
        if want is None:
            assert got is None
        else:
            assert (got.feature, got.threshold, got.score) == \
                (want.feature, want.threshold, want.score)


def _c45_reference(x, y, k):
    """C4.5's attribute test over [n, k] cumulative counts (min split 2 for n <= 40)."""
    n = x.size
    order = np.argsort(x, kind="stable")
    xs = x[order]
    left = np.cumsum(np.eye(k)[y[order]], axis=0)[:-1]
    n_left = np.arange(1, n)
    min_split = max(2.0, min(0.10 * n / k, 25.0))
    valid = (xs[1:] > xs[:-1]) & (n_left >= min_split) & (n - n_left >= min_split)
    if not valid.any():
        return None
    total = left[-1] + np.eye(k)[y[order[-1]]]
    gains = float(entropy_of_counts(total)) - entropy_split(left[valid], total - left[valid])
    corrected = gains - np.log2(int(valid.sum())) / n
    best = int(np.argmax(corrected))
    if not corrected[best] > 0:
        return None
    i = int(np.flatnonzero(valid)[best])
    return corrected[best], gains[best], xs[i], xs[i + 1]


def test_c45_attributes_identical_to_the_count_array_search():
    rng = np.random.default_rng(5)
    for _ in range(30):
        n, k = int(rng.integers(4, 250)), int(rng.integers(2, 5))
        X = rng.integers(0, 12, (n, 3)).astype(float)
        y = (X[:, 0].astype(np.int64) + rng.integers(0, 4, n)) % k
        got = evaluate_attributes(X, y, k, k)
        for j in range(3):
            want = _c45_reference(X[:, j], y, k)
            if want is None:
                assert got[j] is None
            else:
                r = got[j]
                assert (r["gain"], r["raw_gain"], r["low"], r["high"]) == want


_TREES_SCRIPT = """
import json, sys
import numpy as np
from sklearn.datasets import load_iris, make_classification
from obliq_cli.registry import make_estimator
X3, y3 = load_iris(return_X_y=True)
X2, y2 = make_classification(n_samples=160, n_features=4, random_state=2)
X2 = np.round(X2 * 3.0)
cases = [("cart-ap", {}, X3, y3), ("cart-ap", {"criterion": "entropy"}, X3, y3),
         ("hhcart-a", {}, X3, y3), ("hhcart-d", {"criterion": "gini"}, X2, y2),
         ("c45", {}, X3, y3), ("umt", {"random_state": 3}, X2, y2),
         ("gdt", {}, X3, y3)]
out = []
for name, params, X, y in cases:
    tree = make_estimator(name, **params).fit(X, y).tree_
    out.append([name, np.asarray(tree.feature).tolist(), np.asarray(tree.weights).tolist(),
                np.asarray(tree.threshold).tolist()])
json.dump(out, sys.stdout)
"""


@pytest.mark.slow
def test_compiled_and_pure_python_sweeps_grow_identical_trees():
    compiled = json_from_python(_TREES_SCRIPT)
    python = json_from_python(_TREES_SCRIPT, compiled=False)
    assert len(compiled) == 7 and all(len(t[1]) > 1 for t in compiled)
    assert compiled == python
