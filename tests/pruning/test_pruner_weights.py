"""Every pruner reads weights (``pruning.weights``): scikit-learn's weight equivalences
held to each pruner's whole output (the pruning sequence, its errors and alphas, the
chosen tree): integer weights equal copied rows, zero weights equal removed rows, all
rows weighing the same equal no weights, and ``class_weight="balanced"`` equals the
weights ``compute_sample_weight`` gives."""

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_sample_weight

from obliq_cli import make_estimator, registry
from obliq_cli.pruning.network import accuracies

ALGO = {"cc": "cart-ap", "cc-cv": "cart-ap", "validation": "cart-ap", "pessimistic": "c45",
        "la": "cart-ap", "ga": "cart-ap"}
# small budgets: the searches' draws are what is compared, not their quality
PARAMS = {"cc": {}, "cc-cv": {"cv_folds": 4, "se_rule": 1.0}, "validation": {}, "pessimistic": {},
          "la": {"max_iterations": 1500, "n_timing_vectors": 0},
          "ga": {"n_generations": 15, "population_size": 20, "n_timing_vectors": 0}}
# pruners whose draws do not depend on the number of rows (LA cycles through the rows, so
# copied rows change its pattern stream; its weighted stream is drawn in proportion)
COPIES_EQUAL = ["cc", "validation", "pessimistic", "ga"]


def noisy(n, seed):
    """Two classes, 4 columns, 20 % of labels flipped: trees that pruning cuts."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 4))
    y = ((X[:, 0] + X[:, 1] > 1.0) & (X[:, 2] < 0.7)).astype(int)
    flip = rng.uniform(size=n) < 0.2
    return X, np.where(flip, 1 - y, y)


X_GROW, Y_GROW = noisy(160, 1)
X_PRUNE, Y_PRUNE = noisy(70, 2)


def pruned(name, X, y, Xp, yp, sample_weight=None, prune_weight=None, **algo_params):
    est = make_estimator(ALGO[name], **algo_params)
    est.fit(X, y, sample_weight=sample_weight)
    weighed = {}
    if sample_weight is not None or prune_weight is not None:
        weighed = {"sample_weight": sample_weight, "prune_weight": prune_weight}
    return registry.get_pruner(name)(est, X, y, Xp, yp,
                                     random_state=np.random.default_rng(3),
                                     **PARAMS[name], **weighed)


def same_outcome(name, a, b):
    """The same pruned model and the same record of how it was chosen."""
    if name in ("la", "ga"):
        np.testing.assert_array_equal(a.network_.selection, b.network_.selection)
        assert a.pruning_["train_accuracy"] == pytest.approx(b.pruning_["train_accuracy"])
        np.testing.assert_allclose(a.pruning_["learning_curve"], b.pruning_["learning_curve"])
        np.testing.assert_array_equal(a.predict(X_PRUNE), b.predict(X_PRUNE))
        return
    ta, tb = a.tree_, b.tree_
    assert ta.n_nodes == tb.n_nodes
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.children_left, tb.children_left)
    np.testing.assert_array_equal(ta.leaf_classes(), tb.leaf_classes())
    ra, rb = a.pruning_, b.pruning_
    if name in ("cc", "cc-cv"):
        np.testing.assert_allclose(ra["alphas"], rb["alphas"], rtol=1e-12)
        np.testing.assert_allclose(ra["errors"], rb["errors"], rtol=1e-12)
        assert ra["n_leaves"] == rb["n_leaves"] and ra["chosen"] == rb["chosen"]
        assert ra["n_eval"] == pytest.approx(rb["n_eval"])
    elif name == "validation":
        assert ra["errors_before"] == pytest.approx(rb["errors_before"])
        assert ra["errors_after"] == pytest.approx(rb["errors_after"])
        assert ra["n_eval"] == pytest.approx(rb["n_eval"])
    else:
        assert ra["estimated_errors"] == pytest.approx(rb["estimated_errors"], rel=1e-12)
        assert (ra["n_collapsed"], ra["n_raised"]) == (rb["n_collapsed"], rb["n_raised"])
        np.testing.assert_allclose(ta.value, tb.value)


def test_the_pruners_prune_these_trees():
    """The equivalences below compare something: each pruner changes its tree here."""
    for name in ALGO:
        out = pruned(name, X_GROW, Y_GROW, X_PRUNE, Y_PRUNE)
        assert out.n_leaves_ < out.unpruned_tree_.n_leaves, name


@pytest.mark.parametrize("name", COPIES_EQUAL)
def test_integer_weights_equal_copied_rows(name):
    rng = np.random.default_rng(11)
    w = rng.integers(0, 4, len(Y_GROW)).astype(float)
    v = rng.integers(0, 4, len(Y_PRUNE)).astype(float)
    weighted = pruned(name, X_GROW, Y_GROW, X_PRUNE, Y_PRUNE, w, v)
    copied = pruned(name, np.repeat(X_GROW, w.astype(int), axis=0),
                    np.repeat(Y_GROW, w.astype(int)),
                    np.repeat(X_PRUNE, v.astype(int), axis=0), np.repeat(Y_PRUNE, v.astype(int)))
    same_outcome(name, weighted, copied)


@pytest.mark.parametrize("name", list(ALGO))
def test_zero_weights_equal_removed_rows(name):
    w = np.ones(len(Y_GROW))
    w[::4] = 0
    v = np.ones(len(Y_PRUNE))
    v[1::3] = 0
    weighted = pruned(name, X_GROW, Y_GROW, X_PRUNE, Y_PRUNE, w, v)
    removed = pruned(name, X_GROW[w > 0], Y_GROW[w > 0], X_PRUNE[v > 0], Y_PRUNE[v > 0])
    same_outcome(name, weighted, removed)


@pytest.mark.parametrize("name", list(ALGO))
def test_equal_weights_are_no_weights(name):
    weighted = pruned(name, X_GROW, Y_GROW, X_PRUNE, Y_PRUNE, np.full(len(Y_GROW), 2.5),
                      np.full(len(Y_PRUNE), 0.5))
    plain = pruned(name, X_GROW, Y_GROW, X_PRUNE, Y_PRUNE)
    same_outcome(name, weighted, plain)


@pytest.mark.parametrize("name", list(ALGO))
def test_balanced_class_weight_is_compute_sample_weight(name):
    # 15 % of one class, so "balanced" weighs its rows about 3.3 and the rest about 0.6
    X, y = X_GROW, np.where(np.arange(len(Y_GROW)) % 7 == 0, 1, 0)
    y = np.where(Y_GROW == 1, y, 0) | (np.arange(len(y)) % 20 == 0)
    yp = np.where(np.arange(len(Y_PRUNE)) % 6 == 0, 1, 0)
    balanced = pruned(name, X, y, X_PRUNE, yp, class_weight="balanced")
    given = pruned(name, X, y, X_PRUNE, yp, compute_sample_weight("balanced", y),
                   compute_sample_weight("balanced", yp))
    same_outcome(name, balanced, given)


def test_pessimistic_keeps_the_weighted_leaf_classes():
    """The recount after pruning is weighted: each leaf's counts are the weights of the
    growing rows reaching it (summed here by hand from ``apply``), so class_weight is not
    undone; unweighted, the minority class would lose leaves it wins weighted."""
    y = np.where(np.arange(len(Y_GROW)) % 5 == 0, Y_GROW, 0)
    est = make_estimator("c45", class_weight="balanced").fit(X_GROW, y)
    registry.get_pruner("pessimistic")(est, X_GROW, y)
    w = compute_sample_weight("balanced", y)
    leaf = est.tree_.apply(est.tree_input(X_GROW))
    for node in np.unique(leaf):
        by_hand = [w[(leaf == node) & (y == c)].sum() for c in (0, 1)]
        np.testing.assert_allclose(est.tree_.value[node], by_hand)
    assert (est.tree_.leaf_classes()[est.tree_.is_leaf] == 1).any()


def test_weighted_accuracy_by_hand():
    """LA/GA fitness: the weight of the rows classified right over the total."""
    Y = np.array([[True, False], [False, True], [True, False]])
    target = np.array([1, 1, 0])
    selection = np.array([[[True, False]]])  # one AND unit on unit 0: fires on rows 0, 2
    w = np.array([1.0, 2.0, 5.0])
    # right on row 0 only: 1 / 8 weighted, 1 / 3 unweighted
    assert accuracies(Y, target, selection, w)[0] == pytest.approx(1 / 8)
    assert accuracies(Y, target, selection)[0] == pytest.approx(1 / 3)
