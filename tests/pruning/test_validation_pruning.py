"""Validation (reduced-error) pruning."""

import numpy as np
import pytest

from obliq_cli import make_estimator
from obliq_cli.registry import get_pruner
from obliq_cli.tree.structure import node_class_counts

prune = get_pruner("validation")


def errors(est, X, y):
    return int((est.predict(X) != y).sum())


def test_pruning_never_increases_validation_error():
    rng = np.random.default_rng(0)
    for seed in range(4):
        X = rng.normal(size=(300, 3))
        y = (X[:, 0] * X[:, 1] + 0.7 * rng.normal(size=300) > 0).astype(int)
        for name in ("cart-ap", "umt"):
            est = make_estimator(name, random_state=seed).fit(X[:200], y[:200])
            before = errors(est, X[200:], y[200:])
            grown_nodes = est.n_nodes_
            est = prune(est, X[:200], y[:200], X[200:], y[200:])
            after = errors(est, X[200:], y[200:])
            assert after <= before
            assert est.pruning_["errors_before"] == before
            assert est.pruning_["errors_after"] == after
            assert est.n_nodes_ <= grown_nodes
            # every split kept makes strictly fewer validation errors than its node as a leaf
            t = est.tree_
            counts = node_class_counts(t, X[200:], y[200:])
            as_leaf = counts.sum(1) - counts[np.arange(t.n_nodes), t.leaf_classes()]
            for node in np.flatnonzero(~t.is_leaf):
                sub = t.subtree_nodes(node)
                sub_leaves = sub[t.is_leaf[sub]]
                assert as_leaf[sub_leaves].sum() < as_leaf[node]


def test_a_subtree_that_only_fits_noise_is_pruned():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 400)
    y = (x > 0.5).astype(int)
    noisy = y.copy()
    flip = rng.choice(400, 20, replace=False)
    noisy[flip] ^= 1
    est = make_estimator("cart-ap").fit(x[:, None], noisy)
    assert est.n_leaves_ > 10  # the grown tree isolates the flipped labels
    xv = rng.uniform(0, 1, 300)
    yv = (xv > 0.5).astype(int)
    est = prune(est, x[:, None], noisy, xv[:, None], yv)
    assert est.n_leaves_ <= 4
    assert errors(est, xv[:, None], yv) <= 2
    assert abs(est.tree_.threshold[0] - 0.5) < 0.05


def test_no_prune_rows_leaves_the_tree_unchanged():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int) ^ (rng.uniform(size=100) < 0.2)
    est = make_estimator("cart-ap").fit(X, y)
    before = est.tree_.to_json()
    est = prune(est, X, y, None, None)
    assert est.tree_.to_json() == before
    assert est.pruning_["pruned"] is False and "no validation rows" in est.pruning_["note"]
    ovr = make_estimator("umt-ovr", random_state=0).fit(X, np.where(y, "p", "q"))
    sizes = ovr.n_nodes_
    ovr = prune(ovr, X, y, X[:0], y[:0])
    assert ovr.n_nodes_ == sizes and ovr.pruning_["pruned"] is False


def test_unseen_validation_labels_count_as_errors_and_nothing_breaks():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] > 0).astype(int)
    est = make_estimator("c45").fit(X[:80], y[:80])
    yv = y[80:].copy()
    yv[:5] = 7
    est = prune(est, X[:80], y[:80], X[80:], yv)
    assert est.pruning_["errors_after"] >= 5


def test_reduced_error_pruning_of_a_multiway_tree_with_spread_rows():
    from obliq_cli.pruning.validation import reduced_error_prune
    from obliq_cli.tree.structure import node_class_counts

    rng = np.random.default_rng(0)
    code = rng.integers(0, 3, 300).astype(float)
    x = rng.uniform(size=300)
    y = np.where(code == 0, (x > 0.5).astype(int), (rng.uniform(size=300) < 0.3).astype(int))
    X = np.c_[code, x]
    X[rng.uniform(size=X.shape) < 0.1] = np.nan
    est = make_estimator("c45", categorical_features=[0]).fit(X, y)
    tree = est.tree_
    Xv = X[::3]
    counts = node_class_counts(tree, Xv, y[::3])
    assert counts.dtype == np.float64  # rows with an unknown code are spread
    # every row contributes weight 1 at the root and at its leaves in all
    assert counts[0].sum() == pytest.approx(Xv.shape[0])
    assert counts[tree.is_leaf].sum() == pytest.approx(Xv.shape[0])
    pruned, info = reduced_error_prune(tree, Xv, y[::3])
    assert info["errors_after"] <= info["errors_before"] + 1e-9
    # the errors reported are the pruned tree's errors on those rows, counted again
    again = node_class_counts(pruned, Xv, y[::3])
    leaves = pruned.is_leaf
    wrong = again[leaves].sum(axis=1) - again[leaves, pruned.leaf_classes()[leaves]]
    assert wrong.sum() == pytest.approx(info["errors_after"])
