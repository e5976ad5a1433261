"""Row weights in the searches of ID3's siblings that count classes their own way (LDT's
Gaussian boundaries, QUEST's ANOVA and LDA split point, FDT's Fisher direction, UMT's
hinge sweep, APDT's error counts, CART's surrogates): zero weights equal removed rows,
integer weights equal duplicated rows (to the rounding of a weighted sum where the
algorithm adds a row of weight 3 once and its copies three times), "balanced" equals its
reweighted rows, and the weighted statistics against numpy's or by hand."""

import numpy as np
import pytest
from conftest import fit_seeded, same_tree
from sklearn.datasets import load_iris
from sklearn.utils.class_weight import compute_sample_weight

from obliq_cli import registry

X, Y = load_iris(return_X_y=True)
WEIGHTS = np.random.default_rng(0).integers(0, 4, len(Y))
Y2 = (Y == 1).astype(int)  # the two-class methods' problem (versicolor against the rest)

# name -> the problem it is fitted on (two-class methods get Y2)
READ = {"ldt": Y, "quest": Y, "fdt": Y2}
# their weighted moments are sums of w * x where the unweighted path takes numpy's means:
# the weights of the kept rows are 1, and still the sums round differently
ROUNDED = {"quest", "fdt"}


@pytest.mark.parametrize("name", sorted(READ))
def test_zero_weights_equal_removed_rows(name):
    y = READ[name]
    w = np.ones(len(y))
    w[::3] = 0
    same_tree(fit_seeded(name, X, y, sample_weight=w), fit_seeded(name, X[w > 0], y[w > 0]),
              rtol=1e-9 if name in ROUNDED else 0.0)


@pytest.mark.parametrize("name", sorted(READ))
def test_integer_weights_equal_duplicated_rows(name):
    y = READ[name]
    weighted = fit_seeded(name, X, y, sample_weight=WEIGHTS)
    copied = fit_seeded(name, np.repeat(X, WEIGHTS, axis=0), np.repeat(y, WEIGHTS))
    # a row of weight 3 is added once, its copies three times: equal up to rounding
    same_tree(weighted, copied, rtol=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), copied.predict(X))


@pytest.mark.parametrize("name", sorted(READ))
def test_balanced_class_weight_equals_its_sample_weights(name):
    y = READ[name]
    keep = np.r_[np.arange(50), np.arange(50, 70), np.arange(100, 150)]
    by_class = registry.make_estimator(name, random_state=0,
                                       class_weight="balanced").fit(X[keep], y[keep])
    by_rows = fit_seeded(name, X[keep], y[keep],
                         sample_weight=compute_sample_weight("balanced", y[keep]))
    same_tree(by_class, by_rows)
    plain = fit_seeded(name, X[keep], y[keep])
    assert not np.array_equal(plain.tree_.value, by_class.tree_.value)


@pytest.mark.parametrize("name", sorted(READ))
def test_equal_weights_grow_the_unweighted_tree(name):
    y = READ[name]
    same_tree(fit_seeded(name, X, y), fit_seeded(name, X, y, sample_weight=np.full(len(y), 0.5)))


def test_ldt_weighted_moments_and_counts():
    from obliq_cli.algorithms.ldt import _FeatureStats, gaussian_boundary
    rng = np.random.default_rng(1)
    x = rng.normal(size=12)
    y = np.r_[np.zeros(5, int), np.ones(7, int)]
    w = rng.integers(1, 5, 12).astype(float)
    stats = _FeatureStats(x, y, 2, w)
    t, score = stats.score(np.array([[True, False]]))
    # the boundary of the weighted Gaussians (numpy's weighted mean and ML variance)
    m0, m1 = (np.average(x[y == c], weights=w[y == c]) for c in (0, 1))
    v0, v1 = (np.cov(x[y == c], aweights=w[y == c], bias=True) for c in (0, 1))
    p0 = w[y == 0].sum() / w.sum()
    np.testing.assert_allclose(t, gaussian_boundary(m0, v0, p0, m1, v1, 1 - p0), rtol=1e-12)
    # the weighted child entropy, by hand from the class weights on each side
    left = np.array([w[(y == c) & (x <= t[0])].sum() for c in (0, 1)])
    right = np.array([w[y == c].sum() for c in (0, 1)]) - left

    def h(counts):
        p = counts[counts > 0] / counts.sum()
        return -(p * np.log2(p)).sum()

    np.testing.assert_allclose(score, (left.sum() * h(left) + right.sum() * h(right))
                               / w.sum(), rtol=1e-12)
    copies = _FeatureStats(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int)), 2)
    np.testing.assert_allclose(copies.score(np.array([[True, False]]))[1], score,
                               rtol=1e-12)


def test_quest_weighted_split_point_is_the_copied_rows_one():
    from obliq_cli.algorithms.quest import lda_split_point
    z = np.array([0.0, 1.0, 2.0, 4.0, 5.0, 9.0])
    in_b = np.array([False, False, False, True, True, True])
    w = np.array([3.0, 1.0, 2.0, 1.0, 1.0, 2.0])
    # by hand: means 5/6 and 27/4, priors 6/10 and 4/10, pooled variance over W - 2 = 8
    mean_a, mean_b = 5 / 6, 27 / 4
    within = (3 * mean_a ** 2 + (1 - mean_a) ** 2 + 2 * (2 - mean_a) ** 2
              + (4 - mean_b) ** 2 + (5 - mean_b) ** 2 + 2 * (9 - mean_b) ** 2)
    d = (mean_a + mean_b) / 2 + within / 8 * np.log(4 / 6) / (mean_a - mean_b)
    np.testing.assert_allclose(lda_split_point(z, in_b, w), d, rtol=1e-12)
    copies = w.astype(int)
    np.testing.assert_allclose(lda_split_point(np.repeat(z, copies), np.repeat(in_b, copies)),
                               d, rtol=1e-12)


def test_quest_crimcoords_read_the_weights():
    rng = np.random.default_rng(5)
    Xq = np.column_stack([rng.integers(0, 4, 80), rng.normal(size=80), rng.normal(size=80)])
    yq = (Xq[:, 0] % 2 + (Xq[:, 1] > 0)).astype(int)
    w = rng.integers(0, 4, 80)
    make = lambda: registry.make_estimator("quest", categorical_features=[0])  # noqa: E731
    weighted = make().fit(Xq, yq, sample_weight=w)
    copied = make().fit(np.repeat(Xq, w, axis=0), np.repeat(yq, w))
    np.testing.assert_array_equal(weighted.predict(Xq), copied.predict(Xq))
    same_tree(weighted, copied, rtol=1e-9)


def test_fdt_weighted_fisher_direction_and_cut():
    from obliq_cli.algorithms.fdt import best_cut, fisher_direction
    rng = np.random.default_rng(2)
    Xf = rng.normal(size=(30, 3))
    yf = (Xf[:, 0] + rng.normal(size=30) > 0).astype(int)
    w = rng.integers(1, 4, 30)
    copies = (np.repeat(Xf, w, axis=0), np.repeat(yf, w))
    a = fisher_direction(Xf, yf, w.astype(float))
    b = fisher_direction(*copies)
    np.testing.assert_allclose(a / np.linalg.norm(a), b / np.linalg.norm(b), rtol=1e-9)
    # S_W^{-1} (m_1 - m_0) from numpy's weighted moments (S_W invertible here)
    m = [np.average(Xf[yf == c], axis=0, weights=w[yf == c]) for c in (0, 1)]
    s_w = sum(((Xf[yf == c] - m[c]) * w[yf == c, None]).T @ (Xf[yf == c] - m[c])
              for c in (0, 1))
    np.testing.assert_allclose(a, np.linalg.solve(s_w, m[1] - m[0]), rtol=1e-9)
    z = Xf @ a
    for criterion in ("gain_ratio", "gain"):
        got = best_cut(z, yf, 2, criterion, w.astype(float))
        want = best_cut(np.repeat(z, w), copies[1], 2, criterion)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def _iris_with_holes():
    Xn = X.copy()
    rng = np.random.default_rng(7)
    Xn[rng.random(Xn.shape) < 0.15] = np.nan
    return Xn


def test_cart_missing_value_search_reads_the_weights():
    Xn = _iris_with_holes()
    weighted = fit_seeded("cart-ap", Xn, Y, sample_weight=WEIGHTS)
    copied = fit_seeded("cart-ap", np.repeat(Xn, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS))
    same_tree(weighted, copied)
    np.testing.assert_array_equal(weighted.tree_.missing, copied.tree_.missing)
    w = np.ones(len(Y))
    w[::3] = 0
    same_tree(fit_seeded("cart-ap", Xn, Y, sample_weight=w),
              fit_seeded("cart-ap", Xn[w > 0], Y[w > 0]))


def test_cart_missing_value_search_agrees_with_scikit_learn_weighted():
    from sklearn.tree import DecisionTreeClassifier
    Xn = _iris_with_holes()
    ours = fit_seeded("cart-ap", Xn, Y, sample_weight=WEIGHTS)
    theirs = DecisionTreeClassifier(random_state=0).fit(Xn, Y, sample_weight=WEIGHTS)
    # the root: the same feature, threshold and weighted impurity decrease
    assert ours.tree_.feature[0] == theirs.tree_.feature[0]
    np.testing.assert_allclose(ours.tree_.threshold[0], theirs.tree_.threshold[0])
    np.testing.assert_array_equal(ours.predict(Xn[WEIGHTS > 0]), theirs.predict(Xn[WEIGHTS > 0]))


def _weight_check_data(columns):
    """scikit-learn's check_sample_weight_equivalence data (15 rows, 3 classes, weights
    0 to 4), its first ``columns`` columns: (X, y, weights, X repeated, y repeated), the
    weighted rows shuffled as the check shuffles them."""
    from sklearn.utils import shuffle

    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)[:, :columns]
    y = rng.randint(0, 3, size=15)
    w = rng.randint(0, 5, size=15)
    return (*shuffle(X, y, w, random_state=0), X.repeat(w, axis=0), y.repeat(w))


def test_quest_weights_are_copies_unless_the_top_discriminant_eigenvalue_is_repeated():
    # Why QUEST fails scikit-learn's weight-equivalence check: its 9 rows of positive
    # weight in 30 columns leave 8 whitened components (step 2), in which the 3 classes
    # lie apart with no spread along their means: T^-1 B has eigenvalue 1 twice, and
    # any vector of that plane is a "largest discriminant coordinate" (step 3). Which
    # one the eigensolver returns follows the rounding of the scatter, a weight-3 row
    # added once or its copies three times, in another order (the same rows unshuffled
    # happen to round alike), and the two fits group the classes apart.
    from obliq_cli.algorithms.quest import whitened_components
    from obliq_cli.kernels import linalg

    X, y, w, Xr, yr = _weight_check_data(30)
    kept = w > 0
    for rows, labels, weights in ((Xr, yr, None), (X[kept], y[kept], w[kept] * 1.0)):
        _, _, W, U = whitened_components(rows, weights)
        assert W.shape[1] == kept.sum() - 1 == 8
        sizes = np.bincount(labels, weights=weights)
        onehot = np.eye(3)[labels] * (1.0 if weights is None else weights[:, None])
        means = linalg.crossprod(onehot, U) / sizes[:, None]
        between = linalg.crossprod(means * (sizes / sizes.sum())[:, None], means)
        top = np.linalg.eigvalsh(between)[-2:]
        np.testing.assert_allclose(top, [1.0, 1.0], rtol=1e-9)
    copied = fit_seeded("quest", Xr, yr)
    weighted = fit_seeded("quest", X, y, sample_weight=w)
    # the root sends class 2 with class 0 on the copies, with class 1 on the weights
    left = [set(np.flatnonzero(t.tree_.value[t.tree_.children_left[0]]))
            for t in (copied, weighted)]
    assert left == [{0, 2}, {0}]
    # the same rows in 5 columns: 9 rows span them, the eigenvalue is single, and
    # weights grow the copies' tree
    X, y, w, Xr, yr = _weight_check_data(5)
    copied, weighted = fit_seeded("quest", Xr, yr), fit_seeded("quest", X, y, sample_weight=w)
    same_tree(copied, weighted, rtol=1e-9)
    np.testing.assert_array_equal(copied.predict_proba(X), weighted.predict_proba(X))
