"""FDT: Fisher direction, C4.5 cut on the projection, two-class limits, invariants."""

import numpy as np
import pytest
from conftest import rule_predictions
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from obliq_cli import make_estimator
from obliq_cli.algorithms.fdt import best_cut, fisher_direction, min_split
from obliq_cli.errors import ObliqError
from obliq_cli.registry import get_pruner
from obliq_cli.tree.impurity import entropy_of_counts
from obliq_cli.tree.structure import OBLIQUE, node_class_counts


def _cosine(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def _gaussians(n=200, seed=0, gap=8.0):
    """Two classes with one elongated covariance, rotated 30 degrees, apart along the
    narrow direction: separable by one oblique line, not by any axis-parallel one."""
    rng = np.random.default_rng(seed)
    angle = np.pi / 6
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    base = rng.normal(size=(2 * n, 2)) * [5.0, 0.5]
    base[n:, 1] += gap * 0.5
    y = np.repeat([0, 1], n)
    return base @ rot.T, y, rot[:, 1]


@pytest.mark.parametrize("solver", ["svd", "eigen"])
def test_direction_matches_scikit_learn_lda(solver):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 5)) @ rng.normal(size=(5, 5)) * [1, 10, 0.1, 3, 100]
    y = (rng.uniform(size=80) < 0.4).astype(int)
    X[y == 1] += rng.normal(size=5)
    w = fisher_direction(X, y)
    coef = LinearDiscriminantAnalysis(solver=solver).fit(X, y).coef_[0]
    assert _cosine(w, coef) == pytest.approx(1.0, abs=1e-9)
    # And by hand: S_W^{-1} (m_1 - m_0).
    s_w = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0))
              for c in (0, 1))
    direct = np.linalg.solve(s_w, X[y == 1].mean(0) - X[y == 0].mean(0))
    assert _cosine(w, direct) == pytest.approx(1.0, abs=1e-9)


def test_root_split_uses_the_fisher_direction_of_all_rows():
    X, y, _ = _gaussians(gap=3.0, seed=4)  # overlapping: more than one split
    est = make_estimator("fdt").fit(X, y)
    t = est.tree_
    assert t.feature[0] == OBLIQUE
    coef = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_[0]
    assert abs(_cosine(t.weights[0], coef)) == pytest.approx(1.0, abs=1e-9)


def test_rotated_gaussians_take_one_split():
    X, y, normal = _gaussians()
    est = make_estimator("fdt").fit(X, y)
    assert est.n_leaves_ == 2
    assert abs(_cosine(est.tree_.weights[0], normal)) > 0.99
    assert np.array_equal(est.predict(X), y)
    assert make_estimator("cart-ap").fit(X, y).n_leaves_ > 2  # an axis-parallel tree cannot


def test_best_cut_by_hand():
    # z = 1..8, classes 0 0 0 0 1 0 1 1; with >= 2 rows a side the cuts fall after k = 2..6.
    z = np.arange(1.0, 9.0)
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1])
    total = np.array([5, 3])
    base = float(entropy_of_counts(total))
    gains, ratios = {}, {}
    for k in range(2, 7):
        left = np.array([np.sum(y[:k] == 0), np.sum(y[:k] == 1)])
        gains[k] = base - (k * entropy_of_counts(left)
                           + (8 - k) * entropy_of_counts(total - left)) / 8
        ratios[k] = gains[k] / entropy_of_counts(np.array([k, 8 - k]))
    mean_gain = np.mean(list(gains.values()))
    # Gain ratio among cuts of at least average gain (Quinlan 1993 §2.2-2.3): k = 6,
    # [5, 1] | [0, 2]; penalised gain (release 8): k = 4, [4, 0] | [1, 3].
    k_ratio = max((k for k in gains if gains[k] >= mean_gain - 1e-3), key=ratios.get)
    k_gain = max(gains, key=gains.get)
    assert (k_ratio, k_gain) == (6, 4)
    t, score = best_cut(z, y, 2, "gain_ratio")
    assert t == 6.5 and score == pytest.approx(ratios[6])
    t, score = best_cut(z, y, 2, "gain")
    assert t == 4.5 and score == pytest.approx(gains[4] - np.log2(5) / 8)
    # min_side 3 leaves the cuts after 3, 4, 5.
    assert best_cut(z, y, 3, "gain_ratio")[0] == 4.5
    # Too few rows, or no gain: no cut.
    assert best_cut(z[:3], y[:3], 2) is None
    for criterion in ("gain", "gain_ratio"):  # the only cut leaves [1, 1] | [1, 1]
        assert best_cut(z[:4], np.array([0, 1, 1, 0]), 2, criterion) is None
    # Values equal up to round-off are one value: no cut between them.
    assert best_cut(np.array([1.0, 1.0 + 1e-15, 2.0, 2.0]), np.array([0, 1, 1, 1]), 1,
                    "gain")[0] == pytest.approx(1.5)


def test_c45_min_split():
    assert min_split(10, 2, 2) == 2      # 0.1 * 10 / 2 = 0.5 -> MINOBJS
    assert min_split(300, 2, 2) == 15    # 0.1 * 300 / 2
    assert min_split(5000, 2, 2) == 25   # capped at 25
    assert min_split(5000, 2, 30) == 30  # never below min_samples_leaf


def test_singular_within_class_scatter_does_not_crash():
    rng = np.random.default_rng(2)
    # Duplicate and constant columns.
    X = rng.normal(size=(60, 3))
    X = np.column_stack([X, X[:, 0], np.full(60, 7.0)])
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    w = fisher_direction(X, y)
    assert np.all(np.isfinite(w)) and w[4] == 0.0 and w[0] == pytest.approx(w[3])
    est = make_estimator("fdt").fit(X, y)
    assert np.all(np.isfinite(est.tree_.weights))
    assert (est.predict(X) == y).mean() > 0.9
    # Fewer rows than features: a within-class-constant direction separates the classes.
    X = rng.normal(size=(8, 20))
    y = np.array([0, 1] * 4)
    w = fisher_direction(X, y)
    z = X @ w
    assert z[y == 0].max() < z[y == 1].min() or z[y == 1].max() < z[y == 0].min()
    est = make_estimator("fdt").fit(X, y)
    assert est.n_leaves_ == 2 and np.array_equal(est.predict(X), y)
    # Class means equal: no direction, no split.
    X = np.array([[0.0, 1], [1, 0], [1, 0], [0, 1]])
    assert not fisher_direction(X, np.array([0, 0, 1, 1])).any()


@pytest.mark.parametrize("criterion", ["gain_ratio", "gain"])
def test_leaf_sizes_rules_and_pruning(criterion):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=400) > 0, "yes", "no")
    for msl in (2, 5):
        est = make_estimator("fdt", min_samples_leaf=msl, criterion=criterion).fit(X, y)
        t = est.tree_
        assert t.n_leaves > 2
        assert t.value[t.is_leaf].sum(axis=1).min() >= msl
        assert np.array_equal(rule_predictions(est, X), est.predict(X))
        assert np.array_equal(t.value, node_class_counts(t, X, est.encode(y))[:, :2])
        get_pruner("pessimistic")(est, X, y, None, None)
        assert est.n_leaves_ <= est.unpruned_tree_.n_leaves
        assert np.array_equal(rule_predictions(est, X), est.predict(X))
        clone = make_estimator("fdt").load_tree(est.export_json())
        assert np.array_equal(clone.predict(X), est.predict(X))


def test_two_classes_only_and_bad_parameters():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ObliqError, match="two classes"):
        make_estimator("fdt").fit(X, np.arange(30) % 3)
    one = make_estimator("fdt").fit(X, np.zeros(30))
    assert one.n_leaves_ == 1
    for params in ({"min_samples_leaf": 0}, {"min_samples_leaf": 2.5},
                   {"criterion": "gini"}):
        with pytest.raises(ObliqError):
            make_estimator("fdt", **params).fit(X, np.arange(30) % 2)
