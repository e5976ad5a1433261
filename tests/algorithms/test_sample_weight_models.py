"""Row weights in GDT, the SVM, GEPSVM, the one-vs-one / one-vs-rest wrappers and the
CRIMCOORDs of qualitative columns: zero weights equal removed rows, integer weights equal
copied rows where the method allows it (up to rounding where a weighted sum is scaled
once and a copied row added again), "balanced" equals its reweighted rows, and a weight
changes what each method's weighted statistic says it should."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.svm import SVC
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import has_fit_parameter

from obliq_cli import registry
from obliq_cli.algorithms.gdt import _augmented_scatter, clustering_hyperplanes
from obliq_cli.algorithms.multiclass import OneVsOneTrees, OneVsRestTrees
from obliq_cli.algorithms.svm import _fit_planes, grid_scores, proximal_plane
from obliq_cli.errors import DataTypeError
from obliq_cli.tree.crimcoord import QualitativeCoding, crimcoord_values

X, Y = load_iris(return_X_y=True)
WEIGHTS = np.random.default_rng(0).integers(0, 4, len(Y))
Y2 = (Y == 1).astype(int)  # versicolor against the rest: imbalanced, not separable


def _same_tree(a, b, rtol=0.0) -> None:
    ta, tb = a.tree_, b.tree_
    assert ta.n_nodes == tb.n_nodes
    np.testing.assert_array_equal(ta.children_left, tb.children_left)
    np.testing.assert_allclose(ta.value, tb.value, rtol=1e-12)
    np.testing.assert_allclose(ta.threshold, tb.threshold, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(ta.weights, tb.weights, rtol=rtol, atol=rtol)


def _gdt(**params):
    return registry.make_estimator("gdt", random_state=0, **params)


# ------------------------------------------------------------------ GDT
def test_gdt_weighted_scatter_is_the_scatter_of_copied_rows():
    rows = X[:7]
    w = np.array([1.0, 3.0, 2.0, 1.0, 1.0, 4.0, 2.0])
    copied = np.repeat(rows, w.astype(int), axis=0)
    np.testing.assert_allclose(_augmented_scatter(rows, w), _augmented_scatter(copied),
                               rtol=1e-13)
    # unweighted: (1/n) A~'A~ by hand
    aug = np.column_stack([rows, np.ones(7)])
    np.testing.assert_allclose(_augmented_scatter(rows), aug.T @ aug / 7, rtol=1e-13)
    # a common factor is no weight at all
    np.testing.assert_allclose(_augmented_scatter(rows, np.full(7, 2.5)),
                               _augmented_scatter(rows), rtol=1e-13)


def test_gdt_clustering_hyperplanes_of_weighted_rows_are_those_of_copies():
    A, B = X[Y == 0][:20], X[Y == 1][:20]
    wa = np.random.default_rng(1).integers(1, 4, 20).astype(float)
    wb = np.random.default_rng(2).integers(1, 4, 20).astype(float)
    got = clustering_hyperplanes(A, B, None, wa, wb)
    want = clustering_hyperplanes(np.repeat(A, wa.astype(int), 0),
                                  np.repeat(B, wb.astype(int), 0))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10)
    # and the weights matter: unweighted they differ
    plain = clustering_hyperplanes(A, B)
    assert not np.allclose(plain[0], got[0], atol=1e-6)


@pytest.mark.parametrize("params", [{}, {"eta_of": "root"}, {"eta_of": "parent"},
                                    {"gini_of": "classes"}])
def test_gdt_integer_weights_equal_duplicated_rows(params):
    weighted = _gdt(**params).fit(X, Y, sample_weight=WEIGHTS)
    repeated = _gdt(**params).fit(np.repeat(X, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS))
    _same_tree(weighted, repeated, 1e-9)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


def test_gdt_zero_weights_equal_removed_rows():
    w = np.ones(len(Y))
    w[::3] = 0
    _same_tree(_gdt().fit(X, Y, sample_weight=w), _gdt().fit(X[w > 0], Y[w > 0]))


def test_gdt_balanced_class_weight_is_its_sample_weight_and_changes_the_tree():
    balanced = _gdt(class_weight="balanced").fit(X, Y2)
    _same_tree(balanced, _gdt().fit(X, Y2, sample_weight=compute_sample_weight("balanced", Y2)))
    # 50 rows against 100: balancing moves the leaf rules (eta counts weight)
    assert balanced.tree_.n_nodes != _gdt().fit(X, Y2).tree_.n_nodes


def test_gdt_majority_is_the_class_of_most_weight():
    # class 1 has fewer rows but more weight: it is C+ at the root and the one-leaf
    # tree's prediction
    w = np.where(Y2 == 1, 3.0, 1.0)
    stump = _gdt(max_depth=0).fit(X, Y2, sample_weight=w)
    assert (stump.predict(X) == 1).all()
    np.testing.assert_allclose(stump.tree_.value[0], [100.0, 150.0])


def test_gdt_cross_validated_epsilon1_reads_weights():
    grid = [0.05, 0.2, 0.4]
    w = np.where(WEIGHTS > 0, 1.0, 0.0)
    a = _gdt(epsilon1_grid=grid).fit(X, Y, sample_weight=w)
    b = _gdt(epsilon1_grid=grid).fit(X[w > 0], Y[w > 0])
    assert a.best_params_ == b.best_params_
    _same_tree(a, b)


# ------------------------------------------------------------------ GEPSVM
def _gepsvm(**params):
    return registry.make_estimator("gepsvm", random_state=0, **params)


def test_gepsvm_weighted_planes_solve_the_weighted_quotient():
    # E'W E and F'W F: the plane of rows scaled by sqrt(w) (eq. 9-11)
    E = np.column_stack([X[Y2 == 0], np.ones(100)])
    F = np.column_stack([X[Y2 == 1], np.ones(50)])
    wE, wF = np.linspace(0.5, 2.0, 100), np.linspace(1.0, 3.0, 50)
    fits = _fit_planes(X, Y2, "linear", 1.0, [1e-3], scaling="none",
                       weights=np.where(Y2 == 0, np.interp(np.arange(150), np.flatnonzero(
                           Y2 == 0), wE), np.interp(np.arange(150), np.flatnonzero(Y2 == 1),
                                                    wF)))
    z = fits[0].planes[:, 0]
    want = proximal_plane(E * np.sqrt(wE)[:, None], F * np.sqrt(wF)[:, None], 1e-3)
    np.testing.assert_allclose(np.abs(z), np.abs(want), rtol=1e-8)

    def quotient(v):
        return ((wE * (E @ v) ** 2).sum() + 1e-3 * v @ v) / (wF * (F @ v) ** 2).sum()

    rng = np.random.default_rng(3)
    assert all(quotient(z) <= quotient(z + 0.01 * rng.normal(size=5)) for _ in range(20))


@pytest.mark.parametrize("scaling", ["standardize", "none"])
def test_gepsvm_integer_weights_equal_duplicated_rows(scaling):
    weighted = _gepsvm(delta=1e-3, scaling=scaling).fit(X, Y2, sample_weight=WEIGHTS)
    repeated = _gepsvm(delta=1e-3, scaling=scaling).fit(np.repeat(X, WEIGHTS, axis=0),
                                                        np.repeat(Y2, WEIGHTS))
    np.testing.assert_allclose(weighted.center_, repeated.center_, rtol=1e-12)
    np.testing.assert_allclose(weighted.scale_, repeated.scale_, rtol=1e-12)
    # each plane up to its sign (only |E z| counts)
    np.testing.assert_allclose(np.abs(weighted.planes_), np.abs(repeated.planes_),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


@pytest.mark.parametrize("kernel", ["linear", pytest.param("rbf", marks=pytest.mark.slow)])
def test_gepsvm_zero_weights_equal_removed_rows(kernel):
    w = (WEIGHTS > 0).astype(float)
    a = _gepsvm(kernel=kernel).fit(X, Y2, sample_weight=w)
    b = _gepsvm(kernel=kernel).fit(X[w > 0], Y2[w > 0])
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.planes_, b.planes_)


@pytest.mark.parametrize("kernel", ["linear", pytest.param("rbf", marks=pytest.mark.slow)])
def test_gepsvm_balanced_class_weight_is_its_sample_weight(kernel):
    a = _gepsvm(kernel=kernel, class_weight="balanced").fit(X, Y2)
    b = _gepsvm(kernel=kernel).fit(X, Y2, sample_weight=compute_sample_weight("balanced", Y2))
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.planes_, b.planes_)
    assert not np.array_equal(a.planes_, _gepsvm(kernel=kernel).fit(X, Y2).planes_)


# ------------------------------------------------------------------ SVM
def _svm(**params):
    return registry.make_estimator("svm", **{"random_state": 0, "c_grid": (0.5, 8.0),
                                             "gamma_grid": (0.25, 1.0), **params})


def test_svm_refit_is_scikit_learn_s_weighted_svc():
    w = np.where(Y2 == 1, 2.0, 0.5)
    model = _svm(kernel="linear", c_grid=(1.0,)).fit(X, Y2, sample_weight=w)
    scaled = model.model_[0].transform(X)
    svc = SVC(kernel="linear", C=1.0).fit(scaled, Y2, sample_weight=w)
    np.testing.assert_allclose(model.model_[-1].dual_coef_, svc.dual_coef_, rtol=1e-10)
    # and the weights matter
    plain = SVC(kernel="linear", C=1.0).fit(scaled, Y2)
    assert not np.allclose(plain.coef_, svc.coef_, rtol=1e-3)


def test_svm_grid_scores_are_weighted_accuracies():
    from sklearn.model_selection import StratifiedKFold
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    w = np.where(Y2 == 1, 3.0, 1.0)
    got = grid_scores(X, Y2, "linear", [1.0], ["scale"], cv, sample_weight=w)
    from sklearn.preprocessing import MinMaxScaler
    want = []
    for train, test in cv.split(X, Y2):
        s = MinMaxScaler((-1, 1)).fit(X[train])
        svc = SVC(kernel="linear", C=1.0).fit(s.transform(X[train]), Y2[train],
                                              sample_weight=w[train])
        hit = svc.predict(s.transform(X[test])) == Y2[test]
        want.append((w[test] * hit).sum() / w[test].sum())
    np.testing.assert_allclose(got, [np.mean(want)], rtol=1e-12)


def test_svm_zero_weights_equal_removed_rows():
    w = (WEIGHTS > 0).astype(float)
    a, b = _svm().fit(X, Y, sample_weight=w), _svm().fit(X[w > 0], Y[w > 0])
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.model_[-1].dual_coef_, b.model_[-1].dual_coef_)


def test_svm_balanced_class_weight_is_its_sample_weight():
    a = _svm(class_weight="balanced").fit(X, Y2)
    b = _svm().fit(X, Y2, sample_weight=compute_sample_weight("balanced", Y2))
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.model_[-1].dual_coef_, b.model_[-1].dual_coef_)


# ------------------------------------------------------------------ OVO / OVR
WRAPPERS = [OneVsOneTrees, OneVsRestTrees]


def _wrapper(cls, **params):
    return cls(registry.make_estimator("oc1-ap", random_state=0), random_state=0, **params)


def _same_members(a, b, rtol=0.0):
    assert len(a.estimators_) == len(b.estimators_)
    for m, n in zip(a.estimators_, b.estimators_):
        _same_tree(m, n, rtol)


@pytest.mark.parametrize("cls", WRAPPERS)
def test_wrapper_integer_weights_equal_duplicated_rows(cls):
    a = _wrapper(cls).fit(X, Y, sample_weight=WEIGHTS)
    b = _wrapper(cls).fit(np.repeat(X, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS))
    _same_members(a, b)  # oc1-ap's search reads copies to the bit
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("cls", WRAPPERS)
def test_wrapper_zero_weights_equal_removed_rows(cls):
    w = (WEIGHTS > 0).astype(float)
    _same_members(_wrapper(cls).fit(X, Y, sample_weight=w), _wrapper(cls).fit(X[w > 0],
                                                                             Y[w > 0]))


@pytest.mark.parametrize("cls", WRAPPERS)
def test_wrapper_balanced_is_taken_on_the_original_labels(cls):
    X3, y3 = X[30:], Y[30:]  # 20, 50 and 50 rows
    balanced = _wrapper(cls, class_weight="balanced").fit(X3, y3)
    _same_members(balanced, _wrapper(cls).fit(
        X3, y3, sample_weight=compute_sample_weight("balanced", y3)))
    # each member weighs its rows by the K-class weights: member 0 (OVO: classes 0 and 1;
    # OVR: class 0 against the rest) holds 20 x 2 + 50 x 0.8 of weight
    root = balanced.estimators_[0].tree_.value[0]
    total = 20 * 120 / 60 + 50 * 120 / 150 + (50 * 120 / 150 if cls is OneVsRestTrees else 0)
    np.testing.assert_allclose(root.sum(), total)


@pytest.mark.parametrize("cls", WRAPPERS)
def test_wrapper_members_get_their_rows_weights(cls):
    w = np.random.default_rng(5).random(len(Y)) + 0.1
    wrapper = _wrapper(cls).fit(X, Y, sample_weight=w)
    seeds = np.random.default_rng(0).integers(2**63, size=len(wrapper.problems_))
    for m, member in enumerate(wrapper.estimators_):
        Xm, ym = wrapper.member_problem(m, X, Y)
        keep = wrapper.member_rows(m, Y)
        alone = registry.make_estimator("oc1-ap", random_state=np.random.default_rng(
            int(seeds[m]))).fit(Xm, ym, sample_weight=w if keep is None else w[keep])
        _same_tree(member, alone)


def test_wrapper_refuses_weights_its_member_cannot_take():
    from sklearn.neighbors import KNeighborsClassifier
    ovo = OneVsOneTrees(KNeighborsClassifier(3))
    ovo.fit(X, Y)  # unweighted: as before
    assert not has_fit_parameter(KNeighborsClassifier(), "sample_weight")
    with pytest.raises(DataTypeError, match="takes no sample_weight"):
        ovo.fit(X, Y, sample_weight=WEIGHTS)


@pytest.mark.parametrize("name", ["umt-ovo", "umt-ovr"])
def test_umt_wrappers_pass_weights_to_their_members(name):
    # whatever a UMT member does with its rows' weights (refuse them, or read them),
    # the wrapper's member does the same
    from obliq_cli.algorithms.umt import UMTClassifier
    w = np.where(Y == 1, 2.0, 1.0)
    wrapper = registry.make_estimator(name, random_state=0, members="two_class") \
        if name == "umt-ovr" else registry.make_estimator(name, random_state=0)
    try:
        wrapper.fit(X, Y, sample_weight=w)
    except DataTypeError as exc:
        with pytest.raises(DataTypeError, match=str(exc)[:20]):
            UMTClassifier().fit(X[Y < 2], Y[Y < 2], sample_weight=w[Y < 2])
        return
    assert has_fit_parameter(UMTClassifier(), "sample_weight")


# ------------------------------------------------------------------ CRIMCOORD
def _with_levels(seed=0):
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 4, len(Y)).astype(float)
    level[Y == 2] = np.where(rng.random(50) < 0.7, 3.0, level[Y == 2])
    return np.column_stack([X[:, :2], level])


def test_crimcoord_matrix_weighs_the_level_by_class_table():
    Xq = _with_levels()
    coding = QualitativeCoding.fit(Xq, [2])
    coded = coding.transform(Xq)
    w = np.random.default_rng(1).integers(1, 4, len(Y)).astype(float)
    P = coding.crimcoord_matrix(coded, Y, 3, w)
    table = np.zeros((4, 3))
    np.add.at(table, (Xq[:, 2].astype(int), Y), w)
    np.testing.assert_allclose(P[2:, 2], crimcoord_values(table), rtol=1e-12)
    copies = np.repeat(coded, w.astype(int), axis=0)
    np.testing.assert_allclose(P, coding.crimcoord_matrix(copies, np.repeat(Y, w.astype(int)),
                                                          3), rtol=1e-12)
    assert not np.allclose(P, coding.crimcoord_matrix(coded, Y, 3))


@pytest.mark.parametrize("name", ["hhcart-a", "hhcart-d"])
def test_hhcart_crimcoords_of_weighted_rows_are_those_of_copies(name):
    Xq = _with_levels()
    est = registry.make_estimator(name, random_state=0, categorical_features=[2])
    weighted = est.fit(Xq, Y, sample_weight=WEIGHTS)
    repeated = registry.make_estimator(name, random_state=0, categorical_features=[2]).fit(
        np.repeat(Xq, WEIGHTS, axis=0), np.repeat(Y, WEIGHTS))
    _same_tree(weighted, repeated, 1e-9)
    np.testing.assert_array_equal(weighted.predict(Xq), repeated.predict(Xq))


# ------------------------------------------------------------------ declarations
@pytest.mark.parametrize("name", ["gdt", "svm", "gepsvm", "apdt", "umt", "umt-ovo",
                                  "umt-ovr"])
def test_fits_take_sample_weight(name):
    assert has_fit_parameter(registry.make_estimator(name), "sample_weight")


@pytest.mark.parametrize("name", ["gdt", "svm", "gepsvm"])
def test_class_weight_is_a_declared_parameter(name):
    assert registry.make_estimator(name, class_weight={0: 2.0}).get_params()[
        "class_weight"] == {0: 2.0}
