"""Kernel baselines of the GDT paper (Table III): SVM and GEPSVM.

Both tune their parameters by 5-fold cross-validation on each training fold, as the
paper does ("best values ... found using 5-fold cross-validation", §IV), with folds
drawn from the task's random stream. They are not trees: their size attributes are NaN
so tables leave the size columns empty.

- ``svm``: scikit-learn's ``SVC`` (libsvm, as the paper's libsvm 2.84), features scaled
  to [-1, 1] on the training fold as libsvm's ``svm-scale`` guide recommends, C and the
  Gaussian width searched on a grid (the paper gives none; ours is a coarse version of
  the libsvm guide's powers of two). Multiclass: the paper's libsvm used one-vs-rest.
- ``gepsvm``: Mangasarian & Wild 2006, *Multisurface proximal support vector
  classification via generalized eigenvalues*: two hyperplanes, each the eigenvector of
  the smallest eigenvalue of (G + delta I) z = lambda H z (their eq. 9-11), a point goes
  to the class of the nearer plane; the Gaussian-kernel version replaces [A e] by
  [K(A, C') e] over the training points C (their §3). Two classes only (the GDT paper
  reports GEPSVM on the binary sets). The Tikhonov delta is tuned over 10^-7..10^7 as
  in Mangasarian & Wild (every other power, to keep the CV affordable); features are
  standardised on the training fold and the Gaussian width is relative to sqrt(d). The
  kernel version holds an n x n kernel, so it is meant for the small sets the paper
  uses it on (up to a few thousand rows).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from ..errors import DataError, ObliqError
from ..registry import register_algorithm
from .base import as_rng, check_X


class _NotATree:
    """Size attributes of a model that is not a tree: NaN, so tables leave them empty."""

    n_leaves_ = float("nan")
    n_nodes_ = float("nan")
    depth_ = float("nan")


def _cv(random_state) -> StratifiedKFold:
    seed = int(as_rng(random_state).integers(2**31 - 1))
    return StratifiedKFold(5, shuffle=True, random_state=seed)


@register_algorithm("svm", "SVM (libsvm via scikit-learn), C and width tuned by 5-fold CV")
class SVMClassifier(_NotATree, ClassifierMixin, BaseEstimator):
    """kernel 'rbf' (Gaussian) or 'linear'; ``c_grid`` and ``gamma_grid`` are searched."""

    def __init__(self, kernel: str = "rbf", c_grid=(0.5, 2.0, 8.0, 32.0, 128.0, 512.0),
                 gamma_grid=(2.0**-7, 2.0**-5, 2.0**-3, 2.0**-1, 2.0), random_state=None):
        self.kernel = kernel
        self.c_grid = c_grid
        self.gamma_grid = gamma_grid
        self.random_state = random_state

    def validate_params(self) -> None:
        if self.kernel not in ("rbf", "linear"):
            raise ObliqError(f"kernel must be rbf or linear (got {self.kernel!r})")

    def fit(self, X, y):
        self.validate_params()
        X = check_X(X)
        self.classes_ = np.unique(y)
        grid = {"svc__C": list(self.c_grid)}
        if self.kernel == "rbf":
            grid["svc__gamma"] = list(self.gamma_grid)
        model = make_pipeline(MinMaxScaler((-1, 1)), SVC(kernel=self.kernel,
                                                         decision_function_shape="ovr"))
        search = GridSearchCV(model, grid, cv=_cv(self.random_state), n_jobs=1)
        search.fit(X, y)
        self.model_, self.best_params_ = search.best_estimator_, search.best_params_
        return self

    def predict(self, X):
        return self.model_.predict(check_X(X))


def _rbf(X: np.ndarray, C: np.ndarray, sigma: float) -> np.ndarray:
    sq = (X**2).sum(1)[:, None] + (C**2).sum(1)[None, :] - 2 * X @ C.T
    return np.exp(-np.maximum(sq, 0) / (2 * sigma**2))


def proximal_plane(E: np.ndarray, F: np.ndarray, delta: float) -> np.ndarray:
    """z minimising (|E z|^2 + delta |z|^2) / |F z|^2: close to rows E, far from rows F.

    The smallest eigenvalue of (E'E + delta I) z = lambda F'F z is the largest of
    F'F z = mu (E'E + delta I) z, which scipy solves with the regularised (positive
    definite) matrix on the right, so a singular F'F is no obstacle.
    """
    left = E.T @ E + delta * np.eye(E.shape[1])
    right = F.T @ F
    last = left.shape[0] - 1  # only the top eigenpair: the kernel version is n x n
    _, vectors = scipy.linalg.eigh(right, left, subset_by_index=[last, last])
    return vectors[:, -1]


@register_algorithm("gepsvm", "GEPSVM (Mangasarian & Wild 2006), linear or Gaussian kernel")
class GEPSVMClassifier(_NotATree, ClassifierMixin, BaseEstimator):
    """kernel 'linear' or 'rbf'; delta (and the Gaussian width sigma) tuned by 5-fold CV
    over ``delta_grid`` and ``sigma_grid`` unless ``delta`` / ``sigma`` are given."""

    def __init__(self, kernel: str = "linear", delta: float | None = None,
                 sigma: float | None = None,
                 delta_grid=tuple(10.0**i for i in range(-7, 8, 2)),
                 sigma_grid=(0.25, 0.5, 1.0, 2.0), random_state=None):
        self.kernel = kernel
        self.delta = delta
        self.sigma = sigma
        self.delta_grid = delta_grid
        self.sigma_grid = sigma_grid
        self.random_state = random_state

    def validate_params(self) -> None:
        if self.kernel not in ("rbf", "linear"):
            raise ObliqError(f"kernel must be rbf or linear (got {self.kernel!r})")

    def _features(self, X):
        if self.kernel == "linear":
            return X
        return _rbf(X, self.support_, self.sigma_)

    def check_n_classes(self, n_classes: int) -> None:
        if n_classes != 2:
            raise DataError(f"gepsvm separates two classes (got {n_classes})")

    def fit(self, X, y):
        self.validate_params()
        X = check_X(X)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.check_n_classes(self.classes_.size)
        grid = {}
        if self.delta is None:
            grid["delta"] = list(self.delta_grid)
        if self.kernel == "rbf" and self.sigma is None:
            grid["sigma"] = list(self.sigma_grid)
        if grid:
            fixed = self.get_params()
            fixed.update(delta=self.delta or 1e-3, sigma=self.sigma or 1.0)
            search = GridSearchCV(GEPSVMClassifier(**fixed), grid, cv=_cv(self.random_state))
            search.fit(X, y)
            self.best_params_ = search.best_params_
            best = search.best_estimator_
            self.__dict__.update({k: v for k, v in best.__dict__.items() if k.endswith("_")})
            return self
        # Scale-free kernels: the Gaussian width is relative to the data's spread.
        self.center_, self.scale_ = X.mean(0), X.std(0) + 1e-12
        Z = (X - self.center_) / self.scale_
        self.sigma_ = float(self.sigma or 1.0) * np.sqrt(Z.shape[1])
        self.support_ = Z
        K = self._features(Z)
        aug = np.hstack([K, np.ones((K.shape[0], 1))])
        A, B = aug[codes == 0], aug[codes == 1]
        self.planes_ = np.column_stack([proximal_plane(A, B, self.delta),
                                        proximal_plane(B, A, self.delta)])
        if self.kernel == "rbf":
            gram = _rbf(Z, Z, self.sigma_)
            self.norms_ = np.sqrt(np.maximum(np.einsum(
                "ik,ij,jk->k", self.planes_[:-1], gram, self.planes_[:-1]), 1e-300))
        else:
            self.norms_ = np.linalg.norm(self.planes_[:-1], axis=0)
        return self

    def predict(self, X):
        Z = (check_X(X) - self.center_) / self.scale_
        K = self._features(Z)
        distance = np.abs(K @ self.planes_[:-1] + self.planes_[-1]) / self.norms_
        return self.classes_[np.argmin(distance, axis=1)]
