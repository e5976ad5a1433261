"""The kernel baselines: GEPSVM's planes against known geometry, SVM's tuning, and a run
of a non-tree model through the runner and the table."""

import numpy as np
import pytest
import scipy.linalg

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


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("data", ["circle", "iris"])
def test_svm_grid_with_shared_kernels_selects_what_gridsearchcv_selects(kernel, data):
    # The grid shares one kernel matrix per width and split; scikit-learn's own search
    # over the scaled pipeline (the way it was done before) must agree on every score,
    # the chosen pair and the predictions.
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.svm import SVC

    from obliq_cli.algorithms.svm import _cv, grid_scores

    if data == "iris":
        X, y = load_iris(return_X_y=True)
    else:
        rng = np.random.default_rng(1)
        X = rng.normal(size=(150, 3))
        y = (X[:, 0] ** 2 + X[:, 1] ** 2 + 0.3 * rng.normal(size=150) > 1.2).astype(int)
    ours = make_estimator("svm", kernel=kernel, random_state=7).fit(X, y)
    grid = {"svc__C": list(ours.c_grid)}
    if kernel == "rbf":
        grid["svc__gamma"] = list(ours.gamma_grid)
    search = GridSearchCV(make_pipeline(MinMaxScaler((-1, 1)), SVC(kernel=kernel)), grid,
                          cv=_cv(7)).fit(X, y)
    gammas = list(ours.gamma_grid) if kernel == "rbf" else ["scale"]
    means = grid_scores(X, y, kernel, list(ours.c_grid), gammas, _cv(7))
    np.testing.assert_array_equal(means, search.cv_results_["mean_test_score"])
    assert ours.best_params_ == search.best_params_
    probe = np.vstack([X, X[::3] + 0.05])
    np.testing.assert_array_equal(ours.predict(probe), search.predict(probe))


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


def test_sklearn_estimator_checks_pass_with_the_gepsvm_readings_of_the_ablation():
    from sklearn.utils.estimator_checks import check_estimator

    from obliq_cli import expected_failed_checks

    check_estimator(make_estimator("gepsvm", scaling="none", regularize="weights",
                                   delta_grid=[1e-3, 1.0], random_state=0),
                    expected_failed_checks=expected_failed_checks("gepsvm"))
