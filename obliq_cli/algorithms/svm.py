"""Kernel baselines of the GDT paper (Table III): SVM and GEPSVM.

Both tune their parameters by 5-fold cross-validation on each training fold, as the
paper does ("best values ... found using 5-fold cross-validation", §IV), with folds
drawn from the task's random stream. They are not trees: their size attributes are NaN
so tables leave the size columns empty.

- ``svm``: scikit-learn's ``SVC`` (libsvm, as the paper's libsvm 2.84), features scaled
  to [-1, 1] on the training fold as libsvm's ``svm-scale`` guide recommends, C and the
  Gaussian width searched on a grid (the paper gives none: §IV says only that C and
  the width are chosen by 5-fold CV). Multiclass: the paper's libsvm used one-vs-rest.
  The search is GridSearchCV's (same splits, scores and choice) but computes each
  split's kernel matrix once per width for all C values (``grid_scores``).
  The width grid is relative to the data (``gamma_unit="scale"``, the default): a grid
  value g means gamma = g / (d var(X')), X' the [-1, 1]-scaled training part, var over
  all its entries (``spread``) -- scikit-learn's ``gamma="scale"`` times g, so g = 1 is
  ``SVC(gamma="scale")`` on the scaled features. For a typical pair of rows
  gamma |x - x'|^2 is then about 2g whatever the number of features d, where a fixed
  gamma grows with d (a fixed grid of 2^-7..2 gave near-identity kernels on 2308
  features, and an SVM near chance on srbct). Why var(X') and not libsvm's own
  default 1/d: the [-1, 1] scaling fixes each feature's range, not its spread (a
  column with one outlier is squeezed near one value), and 1/d is the same rule with
  the spread taken to be 1. The grid is five powers of 4 centred on g = 1, 2^-4..2^4
  (the libsvm guide's step, as before). ``gamma_unit="absolute"`` keeps a grid value as
  gamma itself (how obliq searched before).
- ``gepsvm``: Mangasarian & Wild 2006, *Multisurface proximal support vector
  classification via generalized eigenvalues*: two hyperplanes, each the eigenvector of
  the smallest eigenvalue of (G + delta I) z = lambda H z (their eq. 9-11), a point goes
  to the class of the nearer plane; the Gaussian-kernel version replaces [A e] by
  [K(A, C') e] over the training points C (their §3). Two classes only (the GDT paper
  reports GEPSVM on the binary sets). The Tikhonov delta is tuned over 10^-7..10^7 as
  in Mangasarian & Wild (every other power, to keep the CV affordable); features are
  standardised on the training fold and the Gaussian width is relative to the data as
  the SVM's is: sigma sqrt(d var(Z)), Z the features as the model sees them, so that
  exp(-|x - x'|^2 / (2 sigma^2 d var(Z))) is the SVM's relative width (``relative_gamma``)
  with g = 1 / (2 sigma^2).
  On standardised features d var(Z) is the number of non-constant columns (sqrt(d),
  as before, when none is constant); on raw ones (``scaling="none"``) it follows
  their spread, where a width relative to sqrt(d) alone depended on their units. The
  kernel version holds an n x n kernel, so it is meant for the small sets the paper
  uses it on (up to a few thousand rows). Only the eigenpair used is computed, through
  one SVD per split and width shared by all deltas (``proximal_planes``).
  Readings the GDT paper leaves open (it implemented GEPSVM itself in MATLAB and names
  only the Gaussian width as tuned, §IV), each a parameter (docs/ablations/gdt.md):
  ``scaling`` (standardised features or the raw ones: with delta -> 0 the planes do not
  depend on an affine change of the features, but the nearest-plane distance does),
  ``regularize`` (delta I on the augmented z = [w; b], Mangasarian & Wild's Tikhonov
  term of eq. 9-11, or on w only), and a fixed ``delta`` instead of the CV.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from ..errors import DataError
from ..invariances import (
    EXACT,
    NO_NOMINAL,
    ROW_ORDER_FOLDS,
    TWO_CLASSES_ONLY,
    NotKept,
)
from ..kernels.svm import squared_distances, squared_distances_within
from ..parameters import MAX_REAL, RANDOM_STATE, Interval, ListOf, ParameterError, Real, StrOptions
from ..registry import register_algorithm
from .base import (
    CLASS_WEIGHT,
    ObliqClassifier,
    as_rng,
    binary_only,
    fit_input,
    fit_weights,
    predict_input,
)


class _NotATree:
    """Size attributes of a model that is not a tree: NaN, so tables leave them empty.

    ``predict_proba`` is the predicted class with probability one: these models output a
    class, not a frequency (libsvm's Platt estimates can disagree with its own
    predictions, so they are not offered as this model's probabilities)."""

    n_leaves_ = float("nan")
    n_nodes_ = float("nan")
    depth_ = float("nan")

    def predict_proba(self, X) -> np.ndarray:
        predicted = self.predict(X)
        return (predicted[:, None] == self.classes_[None, :]).astype(np.float64)


# A grid of at most 100 values (each value costs 5 fits per training fold), each finite.
# C: libsvm's iterations grow with C; on 600 noisy rows (features scaled to [-1, 1]) a
# linear fit takes 4 s at C = 1e3, 10 s at 1e4, 84 s at 1e5 and more than 9 minutes at
# 1e6 (1e308 never ended). Gamma and GEPSVM's width, absolute on [-1, 1]-scaled features
# or relative to their spread (a typical pair then has gamma |x - x'|^2 near 2 g): 1e-6
# makes the Gram matrix all ones and 1e6 the identity; anything further out means the same.
_C_GRID = [ListOf(Interval(Real, 1e-6, 1e4, closed="both"), min_len=1, max_len=100)]
_WIDTHS = Interval(Real, 1e-6, 1e6, closed="both")
_POSITIVE_GRID = [ListOf(_WIDTHS, min_len=1, max_len=100)]
_GAMMA_UNIT = [StrOptions({"scale", "absolute"})]
# GEPSVM's Tikhonov delta (Mangasarian & Wild 2006, eq. 9-11): 0 (none) to MAX_REAL.
_DELTA = Interval(Real, 0, MAX_REAL, closed="both")
_KERNEL = [StrOptions({"rbf", "linear"})]


INNER_FOLDS = ("its parameters are chosen by an inner 5-fold cross-validation, whose folds "
               "keep a weighted row whole where they would spread its copies (and depend on "
               "how many rows of positive weight each class has)")
"""Why integer weights are not copied rows for the SVM and GEPSVM."""


# GEPSVM's planes with a copied or combined column (the invariances it declares)
TIKHONOV = NotKept("the Tikhonov term delta |z|^2 prices a copied or combined column's "
                   "weight otherwise than its sources'")


def _positive_rows(estimator, X, y, labels, sample_weight):
    """``(X, y, weights)`` of a fit: the row weights ``base.fit_weights`` gives
    (``sample_weight`` times ``estimator.class_weight`` of the rows' ``labels``; None
    when all equal), with the rows of weight 0 left out of X, y and the weights, as if
    removed."""
    weights = fit_weights(estimator, sample_weight, labels, X.shape[0])
    if weights is not None and not weights.all():
        kept = weights > 0
        X, y, weights = X[kept], y[kept], weights[kept]
    return X, y, weights


def _cv(random_state, y=None, name: str = "", searched: str = "") -> StratifiedKFold:
    """The inner folds of the parameter search on labels ``y``: stratified, shuffled
    from ``random_state``, 5 as the GDT paper's "5-fold cross-validation" (§IV), or as
    many as the smallest class has rows when it has fewer, so that every inner test
    part holds each class and every training part too (with 5 folds a class of one
    row is missing from one training part, which then has a single class: no plane,
    no SVC, to score). A class of a single row leaves no such split: a DataError
    naming estimator ``name`` and the parameters it ``searched`` (given, no search).
    ``y`` None (the SVM's search): 5 folds whatever the classes, as
    ``GridSearchCV(cv=5)``."""
    seed = int(as_rng(random_state).integers(2**31 - 1))
    if y is None:  # the SVM's search: 5 folds whatever the classes (GridSearchCV's cv=5)
        return StratifiedKFold(5, shuffle=True, random_state=seed)
    codes, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        raise DataError(f"{name}: its parameter search by cross-validation needs 2 rows "
                        f"(of positive weight) of each class; class "
                        f"{codes[counts.argmin()].item()!r} has 1 (give {searched} to skip "
                        f"the search)")
    return StratifiedKFold(min(5, int(counts.min())), shuffle=True, random_state=seed)


def spread(A: np.ndarray, weights: np.ndarray | None = None) -> float:
    """d var(A), var over every entry: the mean squared distance of A's rows is about
    twice it, so 1 / spread(A) is scikit-learn's ``SVC(gamma="scale")`` on A (which
    takes 1 where A is constant, as here). ``weights``: None, or the rows' weights, each
    entry weighing its row's (the var of the rows repeated by integer weights)."""
    if weights is not None:
        mean = np.average(A, weights=np.broadcast_to(weights[:, None], A.shape))
        variance = np.average((A - mean) ** 2, weights=np.broadcast_to(weights[:, None],
                                                                       A.shape))
        return A.shape[1] * variance if variance != 0 else 1.0
    variance = A.var()
    return A.shape[1] * variance if variance != 0 else 1.0


def relative_gamma(A: np.ndarray, g: float, unit: str = "scale") -> float:
    """The gamma that grid value g means on the scaled training part A: g / spread(A)
    (``unit="scale"``; g = 1 is scikit-learn's ``gamma="scale"``) or g itself
    (``"absolute"``)."""
    return g / spread(A) if unit == "scale" else g


PREDICT_ROWS = 512
"""Test rows whose Gaussian kernel against an inner training part the grid search holds
at once (512 x 7,600 on magic's benchmark folds: 31 MB; all 1,900 rows took 116 MB)."""


def gaussian_kernel(distances: np.ndarray, gamma: float) -> np.ndarray:
    """exp(-gamma * distances), written over ``distances`` (returned): the numbers of
    ``np.exp(-gamma * distances)`` without its two new arrays of the same size."""
    np.multiply(distances, -gamma, out=distances)
    return np.exp(distances, out=distances)


def grid_scores(X, y, kernel: str, c_grid, gamma_grid, cv,
                gamma_unit: str = "scale", sample_weight=None) -> np.ndarray:
    """Mean 5-fold accuracy of every (C, gamma) pair, C outer, gamma inner (the order of
    ``GridSearchCV``'s candidates; one gamma, unused, for the linear kernel).

    Each split is scaled to [-1, 1] on its own training part, as the pipeline would be,
    and a grid value means ``relative_gamma`` of that scaled part; its kernel matrices
    are computed once per width and shared by all C values (``SVC(kernel=
    "precomputed")``), instead of libsvm computing them again in each of the |C| x
    |gamma| fits. The values are those libsvm computes up to rounding.

    Memory: one n x n matrix at a time, n the rows of an inner training part (7,600 on
    magic's benchmark folds: 460 MB). Each width computes its distances again
    (``squared_distances_within``, each pair once) and turns them into its kernel in
    place (``gaussian_kernel``), rather than keeping the distances beside every width's
    kernel and its temporaries (four n x n arrays: 2.4 GB at magic's peak); the kernel
    is freed once the width's SVCs are fitted, and the test rows' kernels are made
    ``PREDICT_ROWS`` rows at a time, each block predicted by every C's SVC. Each
    value is computed as before, so every score is the same.

    ``sample_weight``: None, or each row's positive weight; each split's SVC is then
    fitted with its training rows' weights (libsvm's per-row C_i = C w_i) and scored by
    weighted accuracy (the share of its test rows' weight predicted right), the score
    ``GridSearchCV`` gives with weights routed to both the fit and the scorer.
    """
    scores = np.zeros((len(c_grid), len(gamma_grid), cv.get_n_splits()))
    for split, (train, test) in enumerate(cv.split(X, y)):
        scaler = MinMaxScaler((-1, 1)).fit(X[train])
        A, B = scaler.transform(X[train]), scaler.transform(X[test])
        weighed = {} if sample_weight is None else {"sample_weight": sample_weight[train]}
        for g, value in enumerate(gamma_grid):
            if kernel == "rbf":
                gamma = relative_gamma(A, value, gamma_unit)
                K_train = gaussian_kernel(squared_distances_within(A), gamma)
            else:
                K_train = A @ A.T
            models = [SVC(kernel="precomputed", C=C).fit(K_train, y[train], **weighed)
                      for C in c_grid]
            K_train = None  # freed before the test rows' kernels and the next width's
            predicted = [[] for _ in c_grid]
            # the linear kernel's products in one block: BLAS may round a block otherwise
            step = PREDICT_ROWS if kernel == "rbf" else max(1, B.shape[0])
            for start in range(0, B.shape[0], step):
                rows = B[start:start + step]
                K_test = (gaussian_kernel(squared_distances(rows, A), gamma)
                          if kernel == "rbf" else rows @ A.T)
                for c, svc in enumerate(models):
                    predicted[c].append(svc.predict(K_test))
            for c in range(len(c_grid)):
                right = np.concatenate(predicted[c]) == y[test]
                scores[c, g, split] = (np.mean(right) if sample_weight is None else
                                       np.average(right, weights=sample_weight[test]))
    return np.average(scores.reshape(len(c_grid) * len(gamma_grid), -1), axis=1)


@register_algorithm("svm", "SVM (libsvm via scikit-learn), C and width tuned by 5-fold CV",
                    # scikit-learn's estimator checks fit many times: a 1 x 2 grid
                    check_params={"c_grid": (1.0,), "gamma_grid": (0.5, 2.0)},
                    expected_failed_checks={
                        "check_sample_weight_equivalence_on_dense_data": INNER_FOLDS},
                    # [-1, 1] scaling per column: power-of-two scaling is exact there
                    invariances={
                        "rows": NotKept("its cross-validation draws the folds by row "
                                        "position, and libsvm's solver visits the rows in "
                                        "order"),
                        "columns": EXACT,
                        "constant": NotKept("the Gaussian width is relative to d var(X') "
                                            "over all entries of the scaled features, "
                                            "which a constant column changes"),
                        "duplicate": NotKept("a copied column counts twice in the Gaussian "
                                             "kernel's distances"),
                        "combination": NotKept("a combined column adds to the Gaussian "
                                               "kernel's distances"),
                        "scale": EXACT, "classes2": EXACT,
                        "classes3": NotKept("libsvm's one-vs-one vote goes to the first "
                                            "class on a tie", shown=False),
                        "nominal": NO_NOMINAL, "levels": NO_NOMINAL})
class SVMClassifier(_NotATree, ObliqClassifier):
    """kernel 'rbf' (Gaussian) or 'linear'; ``c_grid`` and ``gamma_grid`` are searched.

    gamma_unit : 'scale' (default): a ``gamma_grid`` value g is gamma = g / (d var(X')),
        X' the [-1, 1]-scaled training features (scikit-learn's ``gamma="scale"`` times
        g; module docstring); 'absolute': g is gamma itself.
    class_weight : None, "balanced" or {label: weight}: each row's weight is its
        ``sample_weight`` times its class's (``base.fit_weights``, "balanced" over the
        rows of the fit).

    After ``fit``, ``best_params_`` holds the chosen grid values and ``gamma_`` the
    gamma of the refitted model (None for the linear kernel).

    Weights (``fit``'s ``sample_weight`` and ``class_weight``) reach libsvm as
    scikit-learn's ``SVC.fit(..., sample_weight)`` (C_i = C w_i, so a row of weight w
    costs its slack w times) in the inner grid search and in the refit, and the grid
    is scored by weighted accuracy (``grid_scores``). Rows of weight 0 are left out
    before anything else, as if removed; the [-1, 1] scaling and the relative gamma
    read the remaining rows unweighted (a range has no weight, and scikit-learn's
    ``gamma="scale"`` ignores weights too). Integer weights are not duplicated rows
    here: the inner folds split a row of weight 2 where they would split its copies
    between folds, and libsvm's solution with C w_i matches the copies' only up to its
    stopping tolerance.
    """

    _parameter_constraints = {"kernel": _KERNEL, "c_grid": _C_GRID,
                              "gamma_grid": _POSITIVE_GRID, "gamma_unit": _GAMMA_UNIT,
                              "random_state": RANDOM_STATE, "class_weight": CLASS_WEIGHT}

    def __init__(self, kernel: str = "rbf", c_grid=(0.5, 2.0, 8.0, 32.0, 128.0, 512.0),
                 gamma_grid=(2.0**-4, 2.0**-2, 1.0, 2.0**2, 2.0**4),
                 gamma_unit: str = "scale", random_state=None, class_weight=None):
        self.kernel = kernel
        self.c_grid = c_grid
        self.gamma_grid = gamma_grid
        self.gamma_unit = gamma_unit
        self.random_state = random_state
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        """Grid search by 5-fold CV (the first best pair in grid order, as GridSearchCV
        picks it), then the scaled SVC refitted on all of X with that pair; rows
        weighted by ``sample_weight`` and ``class_weight`` (class docstring)."""
        self.validate_params()
        X, codes = fit_input(self, X, y)
        y = self.classes_[codes]
        X, y, weights = _positive_rows(self, X, y, y, sample_weight)
        rbf = self.kernel == "rbf"
        gammas = list(self.gamma_grid) if rbf else ["scale"]
        means = grid_scores(X, y, self.kernel, list(self.c_grid), gammas,
                            _cv(self.random_state), self.gamma_unit, weights)
        best = int(np.flatnonzero(means == means.max())[0])
        C, value = list(self.c_grid)[best // len(gammas)], gammas[best % len(gammas)]
        self.best_params_ = {"svc__C": C}
        scaler = MinMaxScaler((-1, 1)).fit(X)
        self.gamma_ = None
        if rbf:
            self.best_params_["svc__gamma"] = value
            self.gamma_ = relative_gamma(scaler.transform(X), value, self.gamma_unit)
        self.model_ = make_pipeline(scaler, SVC(
            kernel=self.kernel, C=C, gamma=self.gamma_ if rbf else "scale",
            decision_function_shape="ovr"))
        if weights is None:
            self.model_.fit(X, y)
        else:
            self.model_.fit(X, y, svc__sample_weight=weights)
        return self

    def predict(self, X):
        X = predict_input(self, X)  # NotFittedError before fit
        return self.model_.predict(X)


def _rbf(X: np.ndarray, C: np.ndarray, sigma: float) -> np.ndarray:
    sq = (X**2).sum(1)[:, None] + (C**2).sum(1)[None, :] - 2 * X @ C.T
    return np.exp(-np.maximum(sq, 0) / (2 * sigma**2))


def proximal_planes(E: np.ndarray, F: np.ndarray, deltas,
                    penalty: np.ndarray | None = None) -> np.ndarray:
    """Column k: the z minimising (|E z|^2 + delta_k |z|^2) / |F z|^2, close to rows E
    and far from rows F (Mangasarian & Wild 2006, eq. 9-11), for every delta at once.

    ``penalty``: the diagonal of the Tikhonov term, delta_k diag(penalty) instead of
    delta_k I (e.g. zero on the offset, to regularise w only); such a term is solved as
    the dense N x N pencil, which is slow for the kernel version's N = n + 1.

    The smallest eigenvalue of (E'E + delta I) z = lambda F'F z is the largest mu of
    F'F z = mu G z, G = E'E + delta I (positive definite), and only that eigenpair is
    computed. With N columns and fewer rows of F (the kernel version: N = n + 1), it is
    the top eigenpair of the m_F x m_F matrix P = F G^-1 F' (same nonzero spectrum; if
    P u = mu u then z = G^-1 F' u solves the pencil). G^-1 comes from one thin SVD of E
    shared by all deltas: on E's row space V it is V diag(1/(s^2 + delta)) V', on the
    rest 1/delta. So the cost is one SVD of E and per delta one m_F x m_F eigenpair,
    instead of an N x N generalized eigenproblem per delta. Otherwise (N <= m_F, the
    linear version) the N x N pencil is solved directly. Each z is scaled to z'Gz = 1,
    as scipy's generalized solver scales it; the sign is arbitrary (only |E z| counts).
    """
    deltas = np.asarray(deltas, dtype=np.float64)
    n_cols = E.shape[1]
    out = np.empty((n_cols, deltas.size))
    identity = penalty is None or bool(np.all(np.asarray(penalty) == 1.0))
    if n_cols <= F.shape[0] or not identity:
        right = F.T @ F
        tikhonov = np.eye(n_cols) if identity else np.diag(np.asarray(penalty, float))
        for k, delta in enumerate(deltas):
            left = E.T @ E + delta * tikhonov
            out[:, k] = scipy.linalg.eigh(right, left,
                                          subset_by_index=[n_cols - 1, n_cols - 1])[1][:, 0]
        return out
    _, s, Vt = scipy.linalg.svd(E, full_matrices=False)
    FV = F @ Vt.T  # F on E's row space
    F_rest = F - FV @ Vt  # F off E's row space, where G = delta I
    rest_gram = F_rest @ F_rest.T
    for k, delta in enumerate(deltas):
        inverse = 1.0 / (s**2 + delta)
        u = _top_eigenvector(FV, inverse, rest_gram, delta)
        z = Vt.T @ (inverse * (FV.T @ u)) + (F_rest.T @ u) / delta
        out[:, k] = z / np.sqrt(np.sum((E @ z) ** 2) + delta * (z @ z))
    return out


def _top_eigenvector(FV, inverse, rest_gram, delta) -> np.ndarray:
    """The eigenvector of the largest eigenvalue of P = FV diag(inverse) FV' + rest_gram /
    delta, by Lanczos iteration (ARPACK from a fixed start, to machine precision) on P's
    products with a vector; the dense solver where ARPACK does not converge."""
    m = rest_gram.shape[0]
    if m > 2:
        def product(u):
            return FV @ (inverse * (FV.T @ u)) + rest_gram @ u / delta

        operator = scipy.sparse.linalg.LinearOperator((m, m), matvec=product,
                                                      dtype=np.float64)
        try:
            return scipy.sparse.linalg.eigsh(operator, k=1, which="LA", v0=np.ones(m),
                                             tol=0)[1][:, 0]
        except scipy.sparse.linalg.ArpackNoConvergence:
            pass
    P = (FV * inverse) @ FV.T + rest_gram / delta
    return scipy.linalg.eigh(P, subset_by_index=[m - 1, m - 1])[1][:, 0]


def proximal_plane(E: np.ndarray, F: np.ndarray, delta: float) -> np.ndarray:
    """``proximal_planes`` for one delta."""
    return proximal_planes(E, F, [delta])[:, 0]


@dataclass
class _Planes:
    """One fitted GEPSVM: standardisation, kernel support and width, the two planes
    (columns, augmented: last row the offset) and their norms in feature space."""

    center: np.ndarray
    scale: np.ndarray
    sigma: float
    support: np.ndarray
    planes: np.ndarray
    norms: np.ndarray


def _fit_planes(X, codes, kernel: str, sigma: float, deltas, scaling: str = "standardize",
                regularize: str = "augmented", weights=None) -> list[_Planes]:
    """GEPSVM fitted on (X, codes) for each delta (one kernel and one SVD for all);
    ``scaling`` and ``regularize`` as the estimator's parameters.

    ``weights``: None, or each row's positive weight w_i. A row then counts w_i times:
    E'E and F'F become E'W E and F'W F (the rows of [A e] and [B e] scaled by sqrt(w_i),
    so |E z|^2 = sum_i w_i (e_i z)^2 in eq. 9-11), and the standardisation and the
    Gaussian width take weighted means and variances. The kernel version's columns
    K(., C') stay one per training row: a weight is a row's count, not a new support
    point (so there integer weights differ from copied rows, which add columns)."""
    if weights is None and scaling == "standardize":
        center, scale = X.mean(0), X.std(0) + 1e-12
    elif scaling == "standardize":
        center = np.average(X, axis=0, weights=weights)
        scale = np.sqrt(np.average((X - center) ** 2, axis=0, weights=weights)) + 1e-12
    else:
        center, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
    Z = (X - center) / scale
    # The Gaussian width relative to the data's spread, as the SVM's (module docstring).
    width = float(sigma) * np.sqrt(spread(Z, weights))
    K = _rbf(Z, Z, width) if kernel == "rbf" else Z
    aug = np.hstack([K, np.ones((K.shape[0], 1))])
    A, B = aug[codes == 0], aug[codes == 1]
    if weights is not None:
        root = np.sqrt(weights)
        A, B = A * root[codes == 0, None], B * root[codes == 1, None]
    penalty = None
    if regularize == "weights":  # no Tikhonov term on the offset b
        penalty = np.append(np.ones(K.shape[1]), 0.0)
    first = proximal_planes(A, B, deltas, penalty)
    second = proximal_planes(B, A, deltas, penalty)
    fitted = []
    for k in range(len(deltas)):
        planes = np.column_stack([first[:, k], second[:, k]])
        if kernel == "rbf":  # |w| in feature space: sqrt(w' K w), K the training Gram
            weights = planes[:-1]
            norms = np.sqrt(np.maximum(np.sum((K @ weights) * weights, axis=0), 1e-300))
        else:
            norms = np.linalg.norm(planes[:-1], axis=0)
        fitted.append(_Planes(center, scale, width, Z, planes, norms))
    return fitted


def _nearer_plane(fit: _Planes, kernel: str, X) -> np.ndarray:
    """Index (0 or 1) of the plane nearer to each row of X."""
    Z = (X - fit.center) / fit.scale
    K = _rbf(Z, fit.support, fit.sigma) if kernel == "rbf" else Z
    distance = np.abs(K @ fit.planes[:-1] + fit.planes[-1]) / fit.norms
    return np.argmin(distance, axis=1)


@register_algorithm("gepsvm", "GEPSVM (Mangasarian & Wild 2006), linear or Gaussian kernel",
                    check_params={"delta_grid": (1e-3, 1.0)},
                    expected_failed_checks={
                        "check_sample_weight_equivalence_on_dense_data": INNER_FOLDS,
                        "check_class_weight_classifiers": (
                            "each proximal plane's quotient (eq. 9-11) has one class in "
                            "its numerator and the other in its denominator, so a "
                            "class's common weight scales the quotient, not the plane "
                            "that minimises it (only against delta): class weights "
                            "barely move GEPSVM's planes")},
                    # standardised columns: power-of-two scaling is exact there
                    invariances={
                        "rows": ROW_ORDER_FOLDS, "columns": EXACT, "constant": EXACT,
                        "duplicate": TIKHONOV, "combination": TIKHONOV, "scale": EXACT,
                        "classes2": EXACT, "classes3": TWO_CLASSES_ONLY,
                        "nominal": NO_NOMINAL, "levels": NO_NOMINAL})
class GEPSVMClassifier(_NotATree, ObliqClassifier):
    """kernel 'linear' or 'rbf'; delta (and the Gaussian width sigma) tuned by 5-fold CV
    over ``delta_grid`` and ``sigma_grid`` unless ``delta`` / ``sigma`` are given.
    sigma is relative to the data: the kernel's width is sigma sqrt(d var(Z)), Z the
    (standardised or raw) training features (module docstring); ``sigma_`` after fit
    is that width.

    scaling : 'standardize' (default): each feature centred and divided by its sd on
        the training rows; 'none': the raw features. Neither the GDT paper (§IV: "We
        have implemented GEPSVM in MATLAB") nor Mangasarian & Wild prescribe a scaling;
        with a small delta the planes are the same in either space, the nearest-plane
        distance ``|w'x + b| / |w|`` that classifies is not (magic6000: 66.8 %
        standardised, 73.6 % raw; the GDT paper 74.5 %, docs/ablations/gdt.md).
    regularize : 'augmented' (default): delta I added to [A e]'[A e], Mangasarian &
        Wild's Tikhonov term on z = [w; b] (the eq. 9-11 solved here, for both planes);
        'weights': on w only, the offset b unpenalised (for the Gaussian kernel this is
        solved densely, n x n per delta: slow).
    class_weight : None, "balanced" or {label: weight}: each row's weight is its
        ``sample_weight`` times its class's (``base.fit_weights``).

    Weights (``fit``'s ``sample_weight`` and ``class_weight``; Mangasarian & Wild have
    none): a row of weight w counts w times in the proximal planes' E'E and F'F
    (``_fit_planes``: E'W E, F'W F, for both kernels) and in the standardisation; the
    delta (and width) search fits each split with its training rows' weights and scores
    weighted accuracy. Rows of weight 0 are left out first, as if removed. With a fixed
    delta (and sigma) and the linear kernel, integer weights give the planes of the
    copied rows up to rounding; the search's folds split a weighted row where they
    would split its copies, and the Gaussian kernel keeps one column per row.
    """

    _parameter_constraints = {
        "kernel": _KERNEL,
        "delta": [_DELTA, None],
        "sigma": [_WIDTHS, None],
        "delta_grid": [ListOf(_DELTA, min_len=1, max_len=100)],
        "sigma_grid": _POSITIVE_GRID,
        "scaling": [StrOptions({"standardize", "none"})],
        "regularize": [StrOptions({"augmented", "weights"})],
        "random_state": RANDOM_STATE,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, kernel: str = "linear", delta: float | None = None,
                 sigma: float | None = None,
                 delta_grid=tuple(10.0**i for i in range(-7, 8, 2)),
                 sigma_grid=(0.25, 0.5, 1.0, 2.0), scaling: str = "standardize",
                 regularize: str = "augmented", random_state=None, class_weight=None):
        self.kernel = kernel
        self.delta = delta
        self.sigma = sigma
        self.delta_grid = delta_grid
        self.sigma_grid = sigma_grid
        self.scaling = scaling
        self.regularize = regularize
        self.random_state = random_state
        self.class_weight = class_weight

    def _validate_params_together(self) -> None:
        # The Gaussian version divides by delta off E's row space (``proximal_planes``):
        # delta 0 there is a division by zero (an ARPACK error in every task).
        if self.kernel != "rbf":
            return
        name, values = (("delta", [self.delta]) if self.delta is not None
                        else ("delta_grid", list(self.delta_grid)))
        if any(v == 0 for v in values):
            detail = (f"must be above 0 with kernel 'rbf' (got "
                      f"{self.delta if self.delta is not None else list(values)!r})")
            raise ParameterError(f"{name} {detail}", name, detail)

    def check_n_classes(self, n_classes: int) -> None:
        if n_classes != 2:
            raise binary_only(f"gepsvm separates two classes (got {n_classes} "
                              f"class{'es' if n_classes != 1 else ''})")

    def fit(self, X, y, sample_weight=None):
        """Tune what is not given by 5-fold CV (fewer folds when a class has fewer
        rows, ``_cv``; the first best pair, delta outer and sigma inner, as GridSearchCV
        orders and picks them), then fit on all of X. Each
        split computes its kernel once per width and shares it by every delta. Rows
        weighted by ``sample_weight`` and ``class_weight`` (class docstring)."""
        self.validate_params()
        X, codes = fit_input(self, X, y)
        self.check_n_classes(self.classes_.size)
        X, codes, weights = _positive_rows(self, X, codes, self.classes_[codes],
                                           sample_weight)
        if weights is not None and np.unique(codes).size < 2:
            raise binary_only(f"gepsvm separates two classes, and only class "
                              f"{self.classes_[codes[0]]!r} has rows of positive weight")
        deltas = list(self.delta_grid) if self.delta is None else [self.delta]
        sigmas = [self.sigma or 1.0]
        if self.kernel == "rbf" and self.sigma is None:
            sigmas = list(self.sigma_grid)
        delta, sigma = deltas[0], sigmas[0]
        if len(deltas) * len(sigmas) > 1:
            cv = _cv(self.random_state, self.classes_[codes], "gepsvm",
                     "delta and sigma" if len(sigmas) > 1 else "delta")
            scores = np.zeros((len(deltas), len(sigmas), cv.get_n_splits()))
            for split, (train, test) in enumerate(cv.split(X, codes)):
                for j, width in enumerate(sigmas):
                    fits = _fit_planes(X[train], codes[train], self.kernel, width, deltas,
                                       self.scaling, self.regularize,
                                       None if weights is None else weights[train])
                    for i, fit in enumerate(fits):
                        predicted = _nearer_plane(fit, self.kernel, X[test])
                        if weights is None:
                            scores[i, j, split] = np.mean(predicted == codes[test])
                        else:  # weighted accuracy
                            scores[i, j, split] = np.average(predicted == codes[test],
                                                             weights=weights[test])
            means = np.average(scores.reshape(len(deltas) * len(sigmas), -1), axis=1)
            best = int(np.flatnonzero(means == means.max())[0])
            delta, sigma = deltas[best // len(sigmas)], sigmas[best % len(sigmas)]
            self.best_params_ = {}
            if self.delta is None:
                self.best_params_["delta"] = delta
            if self.kernel == "rbf" and self.sigma is None:
                self.best_params_["sigma"] = sigma
        fit = _fit_planes(X, codes, self.kernel, sigma, [delta], self.scaling,
                          self.regularize, weights)[0]
        self.center_, self.scale_, self.sigma_ = fit.center, fit.scale, fit.sigma
        self.support_, self.planes_, self.norms_ = fit.support, fit.planes, fit.norms
        return self

    def predict(self, X):
        X = predict_input(self, X)  # NotFittedError before fit
        fit = _Planes(self.center_, self.scale_, self.sigma_, self.support_, self.planes_,
                      self.norms_)
        return self.classes_[_nearer_plane(fit, self.kernel, X)]
