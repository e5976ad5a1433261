"""The kernel baselines: GEPSVM's planes against known geometry, SVM's tuning, and a run
of a non-tree model through the runner and the table."""

import numpy as np
import pytest
import scipy.linalg
from conftest import needs_data_package
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC

from obliq_cli import make_estimator
from obliq_cli.algorithms.svm import proximal_plane, proximal_planes


def test_proximal_plane_is_the_smallest_generalized_eigenvector():
    rng = np.random.default_rng(0)
    E, F = rng.normal(size=(40, 4)), rng.normal(size=(30, 4))
    z = proximal_plane(E, F, 0.1)
    left, right = E.T @ E + 0.1 * np.eye(4), F.T @ F
    values, vectors = scipy.linalg.eig(left, right)
    best = vectors[:, np.argmin(values.real)].real
    assert abs(z @ best) / (np.linalg.norm(z) * np.linalg.norm(best)) == pytest.approx(1, abs=1e-8)


@pytest.mark.parametrize("shape", [(40, 30, 4), (30, 25, 56), (60, 50, 111)])
@pytest.mark.parametrize("delta", [1e-7, 1e-3, 1.0, 1e3])
def test_proximal_planes_match_the_full_generalized_solve(shape, delta):
    # Wide E and F (more columns than rows) are the kernel version's shape, solved
    # through the m_F x m_F problem; the reference is scipy's full N x N pencil.
    m_e, m_f, n = shape
    rng = np.random.default_rng(n)
    E, F = rng.normal(size=(m_e, n)), rng.normal(size=(m_f, n))
    left = E.T @ E + delta * np.eye(n)
    values, vectors = scipy.linalg.eigh(F.T @ F, left)
    reference = vectors[:, -1]
    z = proximal_planes(E, F, [1.0, delta])[:, 1]
    assert abs(z @ reference) / (np.linalg.norm(z) * np.linalg.norm(reference)) \
        == pytest.approx(1, abs=1e-10)
    assert z @ left @ z == pytest.approx(1, rel=1e-6)  # scaled as scipy scales it
    np.testing.assert_allclose(z @ F.T @ F @ z, values[-1], rtol=1e-6)


@pytest.mark.slow
def test_gepsvm_grid_selects_what_gridsearchcv_selects():
    # One kernel per split and width shared by every delta: the same choice as
    # scikit-learn's search over single fits, and the same refitted model.
    from sklearn.model_selection import GridSearchCV

    from obliq_cli.algorithms.svm import _cv

    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(160, 2))
    y = np.where((X[:, 0] > 0) ^ (X[:, 1] > 0), "p", "q")
    ours = make_estimator("gepsvm", kernel="rbf", random_state=2).fit(X, y)
    grid = {"delta": list(ours.delta_grid), "sigma": list(ours.sigma_grid)}
    single = make_estimator("gepsvm", kernel="rbf", delta=1.0, sigma=1.0)
    search = GridSearchCV(single, grid, cv=_cv(2)).fit(X, y)
    assert ours.best_params_ == search.best_params_
    np.testing.assert_array_equal(ours.predict(X), search.predict(X))


def test_gepsvm_searches_with_as_many_folds_as_its_smallest_class_has_rows():
    # A class of 3 rows: 3 stratified inner folds, each test part holding one of its
    # rows, and the choice scikit-learn's search makes on those folds. Five folds left
    # two test parts without the class (scikit-learn warns), and a class of one row
    # out of a training part (IndexError): one row is now refused in one line.
    import warnings

    from sklearn.model_selection import GridSearchCV

    from obliq_cli.algorithms.svm import _cv
    from obliq_cli.errors import DataError

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = np.array(["common"] * 37 + ["rare"] * 3)
    X[y == "rare"] += 1.5
    cv = _cv(2, y, "gepsvm")
    assert cv.get_n_splits() == 3
    assert all((y[test] == "rare").sum() == 1 for _, test in cv.split(X, y))
    for kernel in ("linear", "rbf"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ours = make_estimator("gepsvm", kernel=kernel, random_state=2).fit(X, y)
        grid = {"delta": list(ours.delta_grid)}
        if kernel == "rbf":
            grid["sigma"] = list(ours.sigma_grid)
        single = make_estimator("gepsvm", kernel=kernel, delta=1.0, sigma=1.0)
        search = GridSearchCV(single, grid, cv=_cv(2, y)).fit(X, y)
        assert ours.best_params_ == search.best_params_
    # weights: the rows of weight 0 are left out first, so one rare row of weight 1
    w = np.r_[np.ones(38), 0.0, 0.0]
    with pytest.raises(DataError) as err:
        make_estimator("gepsvm", kernel="rbf", random_state=2).fit(X, y, sample_weight=w)
    assert str(err.value) == (
        "gepsvm: its parameter search by cross-validation needs 2 rows (of positive "
        "weight) of each class; class 'rare' has 1 (give delta and sigma to skip the "
        "search)")
    # with delta and sigma given there is no search to refuse
    make_estimator("gepsvm", kernel="rbf", delta=1.0, sigma=1.0).fit(X, y, sample_weight=w)


def test_gepsvm_recovers_two_crossing_lines():
    # Class a on x2 = x1, class b on x2 = 1 - x1 (no noise): each plane fits its class.
    t = np.linspace(0, 1, 50)
    X = np.vstack([np.column_stack([t, t]), np.column_stack([t, 1 - t])])
    y = np.array(["a"] * 50 + ["b"] * 50)
    est = make_estimator("gepsvm", delta=1e-8).fit(X, y)
    Z = (X - est.center_) / est.scale_
    residual_a = np.hstack([Z[:50], np.ones((50, 1))]) @ est.planes_[:, 0]
    residual_b = np.hstack([Z[50:], np.ones((50, 1))]) @ est.planes_[:, 1]
    assert np.abs(residual_a).max() < 1e-6 * np.abs(est.planes_[:, 0]).max()
    assert np.abs(residual_b).max() < 1e-6 * np.abs(est.planes_[:, 1]).max()
    probe = np.array([[0.2, 0.21], [0.2, 0.79]])
    np.testing.assert_array_equal(est.predict(probe), ["a", "b"])


def test_gepsvm_refuses_more_than_two_classes():
    from obliq_cli.errors import DataError

    with pytest.raises(DataError, match="two classes"):
        make_estimator("gepsvm", delta=1.0).fit(np.arange(6.0).reshape(-1, 1), list("abcabc"))


def test_svm_tuning_is_seeded_and_picks_from_the_grid():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2).astype(int)
    a = make_estimator("svm", random_state=5).fit(X, y)
    b = make_estimator("svm", random_state=5).fit(X, y)
    assert a.best_params_ == b.best_params_
    assert a.best_params_["svc__C"] in a.c_grid and a.score(X, y) > 0.9
    assert np.isnan(a.n_leaves_)


class RelativeGammaSVC(ClassifierMixin, BaseEstimator):
    """scikit-learn's SVC with gamma a multiple of its own gamma="scale" on the rows it
    is fitted on, gamma / (d var(X)), written apart from obliq's code as the reference
    for the search's relative widths."""

    def __init__(self, kernel="rbf", C=1.0, gamma=1.0):
        self.kernel, self.C, self.gamma = kernel, C, gamma

    def fit(self, X, y):
        self.svc_ = SVC(kernel=self.kernel, C=self.C,
                        gamma=self.gamma / (X.shape[1] * X.var())).fit(X, y)
        self.classes_ = self.svc_.classes_
        return self

    def predict(self, X):
        return self.svc_.predict(X)


@pytest.mark.parametrize(("kernel", "unit"),
                         [("rbf", "scale"), ("rbf", "absolute"), ("linear", "scale")])
@pytest.mark.parametrize("data", ["circle", "iris"])
def test_svm_grid_with_shared_kernels_selects_what_gridsearchcv_selects(kernel, unit, data):
    # The grid shares one kernel matrix per width and split; scikit-learn's own search
    # over the scaled pipeline (an SVC whose gamma is the grid value times scikit-learn's
    # gamma="scale" on the split's scaled training part, or the grid value itself) must
    # agree on every score, the chosen pair and the predictions.
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MinMaxScaler

    from obliq_cli.algorithms.svm import _cv, grid_scores

    if data == "iris":
        X, y = load_iris(return_X_y=True)
    else:
        rng = np.random.default_rng(1)
        X = rng.normal(size=(150, 3))
        y = (X[:, 0] ** 2 + X[:, 1] ** 2 + 0.3 * rng.normal(size=150) > 1.2).astype(int)
    ours = make_estimator("svm", kernel=kernel, gamma_unit=unit, random_state=7).fit(X, y)
    grid = {"svc__C": list(ours.c_grid)}
    if kernel == "rbf":
        grid["svc__gamma"] = list(ours.gamma_grid)
    svc = RelativeGammaSVC(kernel=kernel) if unit == "scale" else SVC(kernel=kernel)
    search = GridSearchCV(Pipeline([("scale", MinMaxScaler((-1, 1))), ("svc", svc)]), grid,
                          cv=_cv(7)).fit(X, y)
    gammas = list(ours.gamma_grid) if kernel == "rbf" else ["scale"]
    means = grid_scores(X, y, kernel, list(ours.c_grid), gammas, _cv(7), unit)
    np.testing.assert_array_equal(means, search.cv_results_["mean_test_score"])
    assert ours.best_params_ == search.best_params_
    probe = np.vstack([X, X[::3] + 0.05])
    np.testing.assert_array_equal(ours.predict(probe), search.predict(probe))


@pytest.mark.parametrize("data", ["iris", "wide"])
def test_a_grid_value_of_one_is_scikit_learns_gamma_scale_on_the_scaled_features(data):
    # Known answer: g = 1 is SVC(gamma="scale") behind the same [-1, 1] scaling, so the
    # refitted model's gamma and its predictions are scikit-learn's.
    from sklearn.datasets import load_iris
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_iris(return_X_y=True) if data == "iris" else _wide()
    ours = make_estimator("svm", c_grid=(8.0,), gamma_grid=(1.0,), random_state=0).fit(X, y)
    theirs = make_pipeline(MinMaxScaler((-1, 1)), SVC(C=8.0, gamma="scale")).fit(X, y)
    assert ours.gamma_ == theirs[-1]._gamma
    assert ours.model_[-1].gamma == ours.gamma_
    probe = np.vstack([X, X[::3] * 1.1])
    np.testing.assert_array_equal(ours.predict(probe), theirs.predict(probe))
    # The absolute unit takes the grid value as gamma itself.
    absolute = make_estimator("svm", c_grid=(8.0,), gamma_grid=(0.25,), gamma_unit="absolute",
                              random_state=0).fit(X, y)
    assert absolute.gamma_ == 0.25 and absolute.model_[-1].gamma == 0.25


def _wide(seed=0, n=72, d=2000, informative=150):
    """Three classes of n rows in d standard normal features, the first ``informative``
    shifted by 1 for one class each (a gene-expression-like shape: few rows, many
    features, the signal spread thinly)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    X = rng.normal(size=(n, d))
    X[:, :informative] += y[:, None] == np.arange(informative)[None, :] % 3
    return X, y


def test_the_relative_width_keeps_kernels_of_many_features_away_from_the_identity():
    # With gamma fixed, gamma |x - x'|^2 grows with the number of features,
    # and on 2000 features even the widest kernel of the former grid (gamma 2^-7) was
    # nearly the identity. Relative to the spread it is about 2 g at any d.
    from sklearn.preprocessing import MinMaxScaler

    from obliq_cli.algorithms.svm import relative_gamma, spread
    from obliq_cli.kernels.svm import squared_distances

    for d in (20, 2000):
        A = MinMaxScaler((-1, 1)).fit_transform(_wide(d=d, informative=10)[0])
        n = A.shape[0]
        off = ~np.eye(n, dtype=bool)
        distances = squared_distances(A, A)[off]
        # hand-worked: the mean over pairs i != j of |a_i - a_j|^2 is 2 n / (n - 1)
        # times the summed column variances, which spread(A) = d var(A) bounds above
        # (var(A) adds the spread of the column means)
        column_sum = A.var(axis=0).sum()
        assert distances.mean() == pytest.approx(2 * n / (n - 1) * column_sum, rel=1e-12)
        assert spread(A) == pytest.approx(d * A.var(), rel=1e-15) and spread(A) >= column_sum
        exponent = relative_gamma(A, 1.0) * distances.mean()
        assert 1.8 < exponent <= 2 * n / (n - 1)
        assert np.exp(-relative_gamma(A, 1.0) * distances).mean() > 0.1
    assert np.exp(-2.0**-7 * distances).mean() < 0.01  # the former widest, d = 2000
    assert relative_gamma(A, 0.5, "absolute") == 0.5
    assert spread(np.ones((4, 3))) == 1.0  # constant data: scikit-learn's fallback


@pytest.mark.slow
@needs_data_package("srbct")  # read from the data-only package mil
def test_the_svm_learns_srbct_where_the_absolute_grid_stayed_near_chance():
    # The benchmark's cell: srbct (83 rows, 2308 genes, majority 35 %) on a 2-fold split.
    # The former grid (gamma 2^-7..2, absolute) gave 40 % here; RF 98 %.
    from sklearn.model_selection import StratifiedKFold

    import obliq_cli

    X, y, _ = obliq_cli.load_dataset("srbct")
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    majority = np.unique(y, return_counts=True)[1].max() / y.size
    absolute = dict(gamma_grid=(2.0**-7, 2.0**-5, 2.0**-3, 2.0**-1, 2.0),
                    gamma_unit="absolute")
    scores = {"scale": [], "absolute": []}
    for train, test in StratifiedKFold(2, shuffle=True, random_state=0).split(X, y):
        for unit, params in (("scale", {}), ("absolute", absolute)):
            est = make_estimator("svm", random_state=1, **params).fit(X[train], y[train])
            scores[unit].append(np.mean(est.predict(X[test]) == y[test]))
    assert np.mean(scores["scale"]) > 0.85
    assert np.mean(scores["absolute"]) < majority + 0.15


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_the_svm_ignores_a_power_of_two_scaling_of_each_feature(kernel):
    # [-1, 1] scaling then a width relative to the scaled spread: scaling a column by
    # 2^k changes no bit of the scaled features, so neither the choice nor a prediction.
    X, y = _two_clouds()
    factors = 2.0 ** np.array([-30, 7, 1])
    a = make_estimator("svm", kernel=kernel, random_state=4).fit(X, y)
    b = make_estimator("svm", kernel=kernel, random_state=4).fit(X * factors, y)
    assert a.best_params_ == b.best_params_ and a.gamma_ == b.gamma_
    probe = np.vstack([X, X[::2] + 0.3])
    np.testing.assert_array_equal(a.predict(probe), b.predict(probe * factors))


def test_a_model_without_a_tree_runs_and_leaves_sizes_blank(write_config, tmp_path):
    import pandas as pd

    from obliq_cli.config import load_config
    from obliq_cli.experiment.runner import run_experiment
    from obliq_cli.report.tables import render_tables

    path = write_config(f"""
        name: kernels
        datasets: [heart]
        algorithms:
          - {{name: gepsvm, params: {{delta: 1.0}}}}
          - cart-ap
        protocol: {{name: kfold, folds: 2}}
        output: {tmp_path / 'k'}
        """)
    summary = run_experiment(load_config(path), progress=False)
    assert not summary.failed
    runs = pd.read_csv(tmp_path / "k" / "runs.csv")
    assert runs.loc[runs.algorithm == "gepsvm", "n_leaves"].isna().all()
    assert (runs.loc[runs.algorithm == "gepsvm", "test_accuracy"] > 70).all()
    table = render_tables([tmp_path / "k"], "n_leaves")
    assert "heart" in table


def test_the_dense_solver_takes_over_where_lanczos_does_not_converge(monkeypatch):
    # The top eigenpair comes from ARPACK's Lanczos iteration on P's products; where it
    # does not converge the dense solver gives the same plane.
    import scipy.sparse.linalg

    rng = np.random.default_rng(3)
    E, F = rng.normal(size=(30, 56)), rng.normal(size=(25, 56))
    lanczos = proximal_planes(E, F, [1e-3, 1.0])

    def no_convergence(*args, **kwargs):
        raise scipy.sparse.linalg.ArpackNoConvergence("no", [], [])

    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", no_convergence)
    dense = proximal_planes(E, F, [1e-3, 1.0])
    for k in range(2):  # the same plane up to its arbitrary sign
        cosine = lanczos[:, k] @ dense[:, k] / (np.linalg.norm(lanczos[:, k])
                                                * np.linalg.norm(dense[:, k]))
        assert abs(cosine) == pytest.approx(1, abs=1e-10)


def _two_clouds(seed=6):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(60, 3)) * [3.0, 0.5, 1.0] + [0.0, 1.0, 0.0]
    B = rng.normal(size=(50, 3)) * [0.5, 2.0, 1.0] + [1.0, 0.0, 0.5]
    return np.vstack([A, B]), np.array(["a"] * 60 + ["b"] * 50)


def test_gepsvm_without_scaling_solves_the_raw_augmented_pencils():
    X, y = _two_clouds()
    est = make_estimator("gepsvm", delta=0.5, scaling="none").fit(X, y)
    np.testing.assert_array_equal(est.center_, 0.0)
    np.testing.assert_array_equal(est.scale_, 1.0)
    aug = np.hstack([X, np.ones((110, 1))])
    for k, (E, F) in enumerate([(aug[:60], aug[60:]), (aug[60:], aug[:60])]):
        values, vectors = scipy.linalg.eig(E.T @ E + 0.5 * np.eye(4), F.T @ F)
        best = vectors[:, np.argmin(values.real)].real
        z = est.planes_[:, k]
        assert abs(z @ best) / (np.linalg.norm(z) * np.linalg.norm(best)) \
            == pytest.approx(1, abs=1e-9)
    # Standardising makes the model blind to a per-feature affine change; raw
    # features are not (the nearest-plane distance is measured in the given space).
    stretch, shift = np.array([100.0, 0.01, 1.0]), np.array([5.0, -3.0, 0.0])
    standard = make_estimator("gepsvm", delta=1e-6, scaling="standardize").fit(X, y)
    moved = make_estimator("gepsvm", delta=1e-6, scaling="standardize").fit(
        X * stretch + shift, y)
    np.testing.assert_array_equal(standard.predict(X), moved.predict(X * stretch + shift))


def test_gepsvm_regularizing_weights_only_leaves_the_offset_free():
    X, y = _two_clouds()
    est = make_estimator("gepsvm", delta=2.0, scaling="none", regularize="weights").fit(X, y)
    aug = np.hstack([X, np.ones((110, 1))])
    E, F = aug[:60], aug[60:]
    values, vectors = scipy.linalg.eig(E.T @ E + 2.0 * np.diag([1.0, 1, 1, 0]), F.T @ F)
    best = vectors[:, np.argmin(values.real)].real
    z = est.planes_[:, 0]
    assert abs(z @ best) / (np.linalg.norm(z) * np.linalg.norm(best)) \
        == pytest.approx(1, abs=1e-9)
    # With b unpenalised a translation of the data moves only the offsets: the same
    # normals and predictions. With [w; b] penalised (Mangasarian & Wild) it does not.
    shift = np.array([40.0, -25.0, 10.0])
    moved = make_estimator("gepsvm", delta=2.0, scaling="none",
                           regularize="weights").fit(X + shift, y)
    for k in range(2):
        w, v = est.planes_[:-1, k], moved.planes_[:-1, k]
        assert abs(w @ v) / (np.linalg.norm(w) * np.linalg.norm(v)) \
            == pytest.approx(1, abs=1e-9)
    np.testing.assert_array_equal(est.predict(X), moved.predict(X + shift))
    augmented = make_estimator("gepsvm", delta=2.0, scaling="none").fit(X, y)
    shifted = make_estimator("gepsvm", delta=2.0, scaling="none").fit(X + shift, y)
    w, v = augmented.planes_[:-1, 0], shifted.planes_[:-1, 0]
    assert abs(w @ v) / (np.linalg.norm(w) * np.linalg.norm(v)) < 1 - 1e-6


def test_a_penalty_on_the_kernel_weights_matches_the_full_pencil():
    rng = np.random.default_rng(8)
    E, F = rng.normal(size=(20, 31)), rng.normal(size=(18, 31))
    penalty = np.append(np.ones(30), 0.0)
    z = proximal_planes(E, F, [0.3], penalty)[:, 0]
    values, vectors = scipy.linalg.eigh(F.T @ F, E.T @ E + 0.3 * np.diag(penalty))
    best = vectors[:, -1]
    assert abs(z @ best) / (np.linalg.norm(z) * np.linalg.norm(best)) \
        == pytest.approx(1, abs=1e-9)


@pytest.mark.slow
def test_sklearn_estimator_checks_pass_with_the_gepsvm_readings_of_the_ablation():
    from sklearn.utils.estimator_checks import check_estimator

    from obliq_cli import expected_failed_checks

    check_estimator(make_estimator("gepsvm", scaling="none", regularize="weights",
                                   delta_grid=[1e-3, 1.0], random_state=0),
                    expected_failed_checks=expected_failed_checks("gepsvm"))


def test_gepsvm_gaussian_width_is_relative_to_the_features_spread():
    # sigma sqrt(d var(Z)), Z the features the model sees: on standardised ones that is
    # sigma sqrt(number of non-constant columns); on raw ones it follows their units.
    X, y = _two_clouds()
    raw = make_estimator("gepsvm", kernel="rbf", delta=1.0, sigma=0.5, scaling="none").fit(X, y)
    assert raw.sigma_ == pytest.approx(0.5 * np.sqrt(3 * X.var()), rel=1e-15)
    with_constant = np.column_stack([X, np.full(len(X), 7.0)])
    standard = make_estimator("gepsvm", kernel="rbf", delta=1.0, sigma=0.5).fit(
        with_constant, y)
    assert standard.sigma_ == pytest.approx(0.5 * np.sqrt(3), rel=1e-9)
    np.testing.assert_array_equal(standard.predict(with_constant),
                                  make_estimator("gepsvm", kernel="rbf", delta=1.0,
                                                 sigma=0.5).fit(X, y).predict(X))


@pytest.mark.parametrize("exponent", [-20, 3, 40])
def test_gaussian_gepsvm_on_raw_features_ignores_a_power_of_two_scaling(exponent):
    # With the width relative to the spread, scaling every feature by 2^k scales the
    # squared distances and the squared width by 4^k exactly: the same kernel bits, the
    # same planes and predictions. (A width of sigma sqrt(d) alone, as before, gave a
    # different kernel for every k.)
    X, y = _two_clouds()
    factor = 2.0**exponent
    params = dict(kernel="rbf", scaling="none", delta_grid=(1e-3, 1.0), random_state=1)
    a = make_estimator("gepsvm", **params).fit(X, y)
    b = make_estimator("gepsvm", **params).fit(X * factor, y)
    assert a.best_params_ == b.best_params_ and b.sigma_ == a.sigma_ * factor
    np.testing.assert_array_equal(a.planes_, b.planes_)
    probe = np.vstack([X, X[::2] + 0.3])
    np.testing.assert_array_equal(a.predict(probe), b.predict(probe * factor))
