"""Row weights in the oblique split finders (OC1, OC1-AP, OC1-LC, CART-LC, HHCART):
zero weights equal removed rows, integer weights equal duplicated rows where the search
is deterministic, "balanced" equals its reweighted rows; for OC1's randomised climb the
scores its search compares (a fixed hyperplane's, a line search's) against copied rows."""

import numpy as np
import pytest
from conftest import fit_seeded, same_tree
from sklearn.datasets import load_iris
from sklearn.utils.class_weight import compute_sample_weight

from obliq_cli import registry
from obliq_cli.algorithms.cart_lc import weighted_median_quartiles
from obliq_cli.kernels import linalg
from obliq_cli.kernels.criteria import ENTROPY, GINI, TWOING
from obliq_cli.kernels.line_search import (
    RULE_FIRST,
    RULE_SMALLEST,
    RULE_THRESHOLD,
    class_totals,
    line_search,
    partition_score,
)

X, Y = load_iris(return_X_y=True)
WEIGHTS = np.random.default_rng(0).integers(0, 4, len(Y))

OBLIQUE = ["oc1", "oc1-ap", "oc1-lc", "cart-lc", "hhcart-a", "hhcart-d"]
# integer weights search as copied rows would, to the bit
EXACT_COPIES = ["oc1-ap", "oc1-lc", "cart-lc"]
# the class covariances add a row of weight 3 once, a copied row three times: the
# same splits, hyperplanes equal up to rounding
ROUNDED_COPIES = ["hhcart-a", "hhcart-d"]


@pytest.mark.parametrize("name", OBLIQUE)
def test_zero_weights_equal_removed_rows(name):
    w = np.ones(len(Y))
    w[::3] = 0
    same_tree(fit_seeded(name, X, Y, sample_weight=w), fit_seeded(name, X[w > 0], Y[w > 0]))


@pytest.mark.parametrize("name", EXACT_COPIES + ROUNDED_COPIES)
def test_integer_weights_equal_duplicated_rows(name):
    weighted = fit_seeded(name, X, Y, sample_weight=WEIGHTS)
    repeated = fit_seeded(name, np.repeat(X, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS))
    same_tree(weighted, repeated, 0.0 if name in EXACT_COPIES else 1e-9)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


@pytest.mark.parametrize("name", OBLIQUE)
def test_balanced_class_weight_is_its_sample_weight(name):
    # an imbalanced two-class problem: versicolor against the other two
    y = (Y == 1).astype(int)
    balanced = registry.make_estimator(name, random_state=0, class_weight="balanced")
    same_tree(balanced.fit(X, y),
              fit_seeded(name, X, y, sample_weight=compute_sample_weight("balanced", y)))


def test_oc1_scores_a_weighted_row_as_its_copies():
    """OC1's climb draws its tie-breaks per row of the node (``n + 1`` per line search),
    so weighted and copied rows climb different paths; what the climb compares must
    agree: the score of any hyperplane and the perfect flag (``partition_score``)."""
    rng = np.random.default_rng(1)
    Xa = np.column_stack([X, np.ones(len(Y))])
    keep = WEIGHTS > 0
    w, Xk, yk = WEIGHTS[keep].astype(float), Xa[keep], Y[keep]
    Xr, yr = np.repeat(Xa, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS)
    for code in (GINI, TWOING, ENTROPY):
        for _ in range(20):
            a = rng.uniform(-1, 1, Xa.shape[1])
            got = partition_score(linalg.matvec(Xk, a), yk, class_totals(yk, 3, w), code, w)
            want = partition_score(linalg.matvec(Xr, a), yr, class_totals(yr, 3), code)
            assert got == want


@pytest.mark.parametrize("rule", [RULE_SMALLEST, RULE_FIRST, RULE_THRESHOLD])
@pytest.mark.parametrize("code", [GINI, TWOING, ENTROPY])
def test_weighted_line_search_is_the_search_of_copies(rule, code):
    """The deterministic rules of the line search (OC1-LC, CART-LC, the threshold
    refit) give a weighted point's copies' step and score, on ties and zero
    derivatives too."""
    rng = np.random.default_rng(2)
    for k in (2, 3):
        for _ in range(30):
            n = int(rng.integers(3, 30))
            V = np.round(rng.normal(size=n), 1)
            D = np.round(rng.normal(size=n), 1)
            D[rng.random(n) < 0.2] = 0.0
            y = rng.integers(0, k, n)
            w = rng.integers(1, 4, n)
            got = line_search(V, D, y, class_totals(y, k, w.astype(float)), code, rule,
                              np.empty(0), w.astype(float))
            Vr, Dr, yr = np.repeat(V, w), np.repeat(D, w), np.repeat(y, w)
            want = line_search(Vr, Dr, yr, class_totals(yr, k), code, rule, np.empty(0))
            assert got == want


def test_weighted_quartiles_are_numpy_s_of_the_repeated_rows():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 12))
        Xs = np.round(rng.normal(size=(n, 3)), 1)
        w = rng.integers(1, 5, n)
        rep = np.repeat(Xs, w, axis=0)
        median, q75, q25 = weighted_median_quartiles(Xs, w.astype(float))
        np.testing.assert_array_equal(median, np.median(rep, axis=0))
        np.testing.assert_array_equal(np.vstack([q75, q25]),
                                      np.percentile(rep, [75, 25], axis=0))


def test_weighted_covariance_is_numpy_s():
    rng = np.random.default_rng(4)
    Xs = rng.normal(size=(9, 3))
    w = rng.integers(1, 5, 9)
    np.testing.assert_allclose(linalg.covariance(Xs, w.astype(float)),
                               np.cov(Xs, rowvar=False, fweights=w), rtol=1e-12)
    # weights of 1 are no weights, to the bit (zero-weight rows dropped leave them)
    np.testing.assert_array_equal(linalg.covariance(Xs, np.ones(9)), linalg.covariance(Xs))
    # the unweighted covariance is np.cov's, as before
    np.testing.assert_allclose(linalg.covariance(Xs), np.cov(Xs, rowvar=False), rtol=1e-12)
