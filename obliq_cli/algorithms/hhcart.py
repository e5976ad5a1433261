"""HHCART(A) and HHCART(D): oblique splits found as axis-parallel splits of data
reflected by Householder matrices (Wickramarachchi, Robertson, Reale, Price & Brown
2016, "HHCART: an oblique decision tree", CSDA 96:12-23).

At a node (Algorithm 1, §3): the best axis-parallel split h_ap first; then for every
class with at least two distinct points the eigenvectors of its estimated covariance
matrix (HHCART(A): all of them; HHCART(D): the dominant one); for each eigenvector d a
Householder matrix H = I - 2 u u', u = (e_1 - d) / ||e_1 - d|| (eq. 2), which maps d onto
e_1; the node's rows reflected, X H, and the best axis-parallel split searched in the
reflected space. The best of all these wins, h_ap on ties. A split on reflected axis j,
``(X H)_j <= t``, is the hyperplane ``H[:, j] . x <= t`` in the original space, which is
how it is stored (H is symmetric). Reflected axis 1 is d itself (H e_1 = d).

Choices, with where they come from:
- tau (§3.1): an eigenvector with ||e - d|| <= tau for some basis vector e is not
  used (tau = 0.05 in the experiments). An eigenvector is only defined up to sign, so
  e and -e are both taken as "parallel" (the paper's Fig. 1 logic does not depend on
  the sign). The reflection does depend on it (u = e_1 - d and e_1 + d give different
  H), and LAPACK builds return different signs, so each eigenvector is taken with its
  largest-magnitude component positive (the first such component on a tie): the tree
  then depends on the data alone, not on the numpy/OpenBLAS build.
- Small samples (§3.1): classes with one point or only identical points are left out
  of the eigen-analysis; a singular covariance still gives its eigenvectors and they
  are used ("the reflection is done using the available eigenvectors"); oblique
  splits are searched only when the node has more than twice as many rows as features
  (the rule §3.1 quotes from OC1). Otherwise, and when no class qualifies, the
  split is axis-parallel.
- Whether the covariance is the sample (n - 1) or the ML (n) estimate does not matter:
  the two differ by a factor, which changes no eigenvector and no eigenvalue order.

Readings the text leaves open, each a parameter (defaults as above; the ablation
``configs/ablation_hhcart_uci.yaml`` and docs/ablations/hhcart.md compare them):
- ``min_class_rows`` (§3.1 "classes with only one example ... are disregarded"): the
  rows a class needs at the node to enter the eigen-analysis, 2 (the text's minimum)
  or more, or 'full_rank' (p + 1 rows, so its covariance can be of full rank).
- ``null_eigenvectors`` (§3.1, item 1): 'use' the eigenvectors of zero eigenvalues of a
  singular covariance too (HHCART(A)), or 'skip' them, reading "the available
  eigenvectors" as the informative ones. HHCART(D)'s dominant one is never null.
- ``axis_parallel`` (§3, Algorithm 1: "Out of h_t and h_t^ap the better one is
  chosen"): True lets the original space's split h_ap compete (the text); False keeps
  only the reflected splits, with the original axes searched only where §3 says no
  reflection is done: an eigenvector within tau of an axis, no class qualifying, or a
  node too small for oblique splits.
- ``eigenvector_sign`` (eq. 2): H maps d onto e_1, and H for -d is another matrix whose
  other p - 1 axes differ, so the sign an eigenvector is taken with chooses the
  directions searched; the paper does not say which. 'largest_positive' (the default,
  above), 'first_positive' (its first non-zero component positive, another fixed
  rule), or 'both' (reflect with d and with -d: twice the reflections, and no sign
  rule at all).
- ``oblique_rows_per_feature`` (§3.1 (a)): oblique splits are searched only in nodes
  with more than this many rows per feature, 2 (OC1's suggestion, quoted in §3.1) or
  0 (always; §3.1 quotes the rule without saying HHCART applies it).
- Stopping (§3): a node stops when its misclassification rate is 0 or at most MisRate,
  or when it has at most MinParent rows. MinParent = 2 and MisRate = 0 in §4.1.1, so
  ``min_samples_split = 3`` (a node with 2 rows is a leaf) and
  ``max_misclassification_rate = 0``.
- The twoing rule (§4.1.1) is the default criterion; pruning is a separate step
  (``pruner: cc``, 0-SE on a 10 % pruning set in the paper's experiments).
- Qualitative features (§3.2) are mapped at each node to CRIMCOORDs (Loh & Shih 1997)
  by the shared base class when ``categorical_features`` is set; the eigen-analysis then
  runs on the quantitative columns and the crimcoords together.

The reflections of one class are formed as one [p * m, n] matrix (p features, m
eigenvectors; one reflected column per row, so each sorts along memory) with
``X H = X - 2 (X u) u'`` (``kernels.hhcart.reflected_rows``), so the node's whole search
is one compiled sorted sweep per class (``find_best_projection_split`` over all
reflected columns at once). A reflected column with u_j = 0 is column j of X itself
(common where a class is constant in a feature: its covariance has a zero row, and
the other eigenvectors are exactly 0 there); with ``axis_parallel`` and unweighted
rows it is not searched again, as none of its splits can beat h_ap.

Where a 26-class fit spends its time (letter): Algorithm 1 reflects the node's rows
by every eigenvector of every class, K p reflections of p columns each (26 x 16 x 16
= 6,656 sorted columns at a node of letter, 2 x 10 x 10 = 200 on magic), each sorted
and swept once; the sort and the sweep are linear-logarithmic and linear per column
and take about 80 % of the fit. The count of columns is the algorithm's, so the
per-class factor stays.
"""

from __future__ import annotations

import numpy as np

from ..invariances import EXACT, ON_THE_SPLIT, ROUNDING, NotKept
from ..kernels import linalg
from ..kernels.hhcart import reflected_rows
from ..parameters import MAX_COUNT, Integral, Interval, Real, StrOptions
from ..registry import register_algorithm
from ..tree.axis_first import best_axis_split, strictly_better
from ..tree.axis_search import find_best_projection_split
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import split_criterion
from ..tree.orientation import canonical_signs
from .base import TreeClassifier
from .cart import CRITERION
from .unweighted import GROWN_UNTIL_PURE

COVARIANCE = NotKept("a copied or combined column changes the class covariances and their "
                     "eigenvectors")
REFLECTION_TIES = NotKept("equally good reflected splits go to the first class's "
                          "eigenvectors (and twoing's sum over classes rounds in class "
                          "order)")

# Reflected columns are searched in chunks of at most this many values, so that
# HHCART(A) on a large node does not hold every reflection at once.
_CHUNK_VALUES = 4_000_000


def householder_vector(d: np.ndarray) -> np.ndarray:
    """u = (e_1 - d) / ||e_1 - d|| for the unit vector along d (eq. 2); zero if d = e_1."""
    # norms summed in a fixed order (kernels/linalg.py), not by the CPU's BLAS kernel
    d = np.asarray(d, dtype=np.float64)
    u = -d / linalg.norm(d)
    u[0] += 1.0
    norm = linalg.norm(u)
    return u / norm if norm > 0 else u


def householder_matrix(d: np.ndarray) -> np.ndarray:
    """H = I - 2 u u' (eq. 2): symmetric, orthogonal, and H d = e_1 for a unit vector d
    (the identity when d = e_1)."""
    u = householder_vector(d)
    return np.eye(u.size) - 2.0 * np.outer(u, u)


def class_eigenvectors(X: np.ndarray, mode: str, min_rows: int = 2,
                       skip_null: bool = False, sign: str = "largest_positive",
                       weights=None) -> np.ndarray:
    """Unit eigenvectors (as columns) of the covariance of ``X`` (one class's rows):
    all of them for mode 'A', the dominant one for mode 'D'; none (shape [p, 0]) when
    the class has fewer than ``min_rows`` rows or fewer than two distinct points
    (§3.1). ``skip_null`` leaves out the eigenvectors of (numerically) zero
    eigenvalues, those at most p * eps * the largest (``numpy.linalg.matrix_rank``'s
    tolerance). ``sign``: each vector with its largest-magnitude component positive
    ('largest_positive'), its first non-zero one positive ('first_positive'), or both
    signs, v then -v ('both'). ``weights``: None or the rows' weights, which the class's
    size (``min_rows`` counts weight, a row of weight 3 as three rows) and its
    covariance (weighted means and scatter) count."""
    p = X.shape[1]
    size = X.shape[0] if weights is None else float(weights.sum())
    if size < max(2, min_rows) or not np.any(X.max(axis=0) > X.min(axis=0)):
        return np.zeros((p, 0))
    # covariance and eigenvectors by kernels/linalg.py's fixed-order kernels: LAPACK's
    # depend on the CPU in the last bits, and in the basis of a repeated eigenvalue.
    lam, vec = linalg.eigh(linalg.covariance(np.ascontiguousarray(X), weights))
    if mode == "D":
        vec = vec[:, [int(np.argmax(lam))]]
    elif skip_null:
        vec = vec[:, lam > lam.max() * p * np.finfo(np.float64).eps]
    vec = vec * canonical_signs(vec)
    if sign == "first_positive" and vec.shape[1]:
        # "non-zero" relative to the vector's largest entry (rounding leaves 1e-17s)
        nonzero = np.abs(vec) > 1e-12 * np.abs(vec).max(axis=0)
        first = vec[np.argmax(nonzero, axis=0), np.arange(vec.shape[1])]
        vec = vec * np.where(first < 0, -1.0, 1.0)
    elif sign == "both":
        vec = np.repeat(vec, 2, axis=1) * np.tile([1.0, -1.0], vec.shape[1])
    return vec


def parallel_to_axes(vectors: np.ndarray, tau: float) -> np.ndarray:
    """Whether ||e - d|| <= tau for a basis vector e or its negative (§3.1), for every
    column d of ``vectors`` [p, m]."""
    cols = np.arange(vectors.shape[1])
    j = np.argmax(np.abs(vectors), axis=0)
    pivot = vectors[j, cols]
    diff = -vectors
    diff[j, cols] += np.where(pivot != 0, np.sign(pivot), 1.0)
    return np.sqrt(np.einsum("ij,ij->j", diff, diff)) <= tau


def find_householder_split(X, y, n_classes, criterion, mode="A", tau=0.05,
                           min_oblique_ratio=2.0, min_class_rows=2, null_eigenvectors="use",
                           axis_parallel=True, eigenvector_sign="largest_positive",
                           row_weights=None, threads=None) -> Split | None:
    """The best split of HHCART(A) (mode 'A') or HHCART(D) (mode 'D') at a node.

    ``min_oblique_ratio``, ``min_class_rows``, ``null_eigenvectors`` and
    ``axis_parallel`` are the estimator's ``oblique_rows_per_feature``,
    ``min_class_rows``, ``null_eigenvectors``, ``axis_parallel`` and ``eigenvector_sign``
    (module docstring). ``row_weights``: None or the rows' weights: the class covariances,
    every split's class counts and the size rules count them (a row of weight 3 as
    three copies of it). ``threads``: None or the fit's ``FitThreads``, over which a
    node of at least ``THREADED_MIN_VALUES`` reflected values spreads its reflections
    (each chunk of a class's eigenvectors one unit); the best is then chosen in the
    order of one thread, so the split is the same for any number of threads.
    """
    axis_split = best_axis_split(X, y, n_classes, criterion, weights=row_weights)
    if axis_split is None:
        return None
    n, p = X.shape
    size = n if row_weights is None else float(row_weights.sum())
    if size <= min_oblique_ratio * p or p < 2:
        return axis_split
    min_rows = p + 1 if min_class_rows == "full_rank" else int(min_class_rows)
    # The candidates in the order Algorithm 1 compares them: per class, h_ap again (None)
    # where an eigenvector along an axis is not reflected, then the class's eigenvectors
    # in chunks, each chunk's reflections searched at once (``_reflected_split``).
    candidates: list[np.ndarray | None] = []
    for k in np.unique(y):
        mine = y == k
        vectors = class_eigenvectors(X[mine], mode, min_rows, null_eigenvectors == "skip",
                                     eigenvector_sign,
                                     None if row_weights is None else row_weights[mine])
        parallel = parallel_to_axes(vectors, tau)
        if parallel.any() and not axis_parallel:
            # "no reflection is done" for an eigenvector along an axis: its space is the
            # original one, searched by h_ap.
            candidates.append(None)
        vectors = vectors[:, ~parallel].T
        per_chunk = max(1, _CHUNK_VALUES // (n * p))
        candidates += [vectors[start:start + per_chunk]
                       for start in range(0, len(vectors), per_chunk)]
    chunks = [c for c in candidates if c is not None]
    Xt = np.ascontiguousarray(X.T)

    def search(vectors):
        return _reflected_split(X, Xt, y, vectors, n_classes, criterion, axis_parallel,
                                row_weights)

    # every chunk of m eigenvectors reflects and sweeps m p columns of n values
    values = n * p * sum(len(c) for c in chunks)
    spread = threads is not None and values >= THREADED_MIN_VALUES
    found = iter(threads.map(search, chunks) if spread else map(search, chunks))
    # Ties keep the earlier candidate: h_ap first (Algorithm 1), then the classes in order.
    split = axis_split if axis_parallel else None
    for candidate in candidates:
        candidate = axis_split if candidate is None else next(found)
        if candidate is not None:
            split = candidate if split is None else strictly_better(split, candidate)
    # No class reflected anything: "axis parallel splits are performed" (§3.1).
    return axis_split if split is None else split


# A node spreads its reflections over the fit's threads from this many reflected values
# (rows x reflected columns) on: below it a thread's hand-over costs more than it saves.
# Measured on letter's nodes, two threads against one: 0.91-1.06x up to 256,000 values,
# 1.17x at 320,000, 1.4-1.6x from 768,000 on (docs/internals.md).
THREADED_MIN_VALUES = 200_000


def _reflected_split(X, Xt, y, vectors, n_classes, criterion, axis_parallel,
                     row_weights) -> Split | None:
    """The best axis-parallel split of the node's rows ``X`` reflected by each of the
    eigenvectors ``vectors`` [m, p] (rows), as a hyperplane in the original space, or
    None; ``Xt`` is ``X`` transposed and contiguous. Reads its arguments only, so the
    chunks of a node may be searched on several threads at once."""
    n, p = X.shape
    # u for each eigenvector; X H = X - 2 (X u) u' for all of them at once, as rows
    # [m * p, n]: row i * p + j is column j of X H_i.
    U = np.array([householder_vector(v) for v in vectors])
    T = np.ascontiguousarray((2.0 * linalg.matmul(X, U.T)).T)
    rows = np.arange(U.size)
    if axis_parallel and row_weights is None and np.isfinite(T).all():
        # Where u_j = 0, column j of X H is column j of X itself: its splits are h_ap's
        # candidates with h_ap's scores (integer counts, the same formula), none strictly
        # better than h_ap, which competes here. Not searching it again changes no
        # split. (Weighted counts are summed across the columns searched together, so
        # there a copy's scores could round below h_ap's: it is searched.)
        rows = rows[U.ravel() != 0.0]
    found = find_best_projection_split(reflected_rows(Xt, T, U, rows), y, n_classes,
                                       criterion, weights=row_weights)
    if found is None:
        return None
    which, column = divmod(int(rows[found[0]]), p)
    u = U[which]
    weights = -2.0 * u[column] * u
    weights[column] += 1.0  # column j of H = e_j - 2 u_j u
    return Split(threshold=found[1], weights=weights, score=found[2])


# What HHCART keeps (obliq_cli.invariances): the class covariances are summed in row
# order, and each eigenvector is reflected onto the first axis (eq. 2).
HHCART_INVARIANCES = {
    "rows": ROUNDING,
    "columns": NotKept("each eigenvector is reflected onto the first axis, so the other "
                       "reflected axes depend on which column is first; equally good "
                       "splits go to the first column"),
    "constant": NotKept("a constant column first becomes the axis eigenvectors are "
                        "reflected onto; anywhere it counts in the rule of more than 2 rows "
                        "per column for an oblique search"),
    "duplicate": COVARIANCE, "combination": COVARIANCE,
    "scale": NotKept("the eigenvectors of a covariance turn with the units of a column"),
    "classes2": REFLECTION_TIES, "classes3": REFLECTION_TIES,
    # the crimcoords of a node come from its level-by-class table, in any level order
    "nominal": EXACT, "levels": ROUNDING,
}


class _HHCARTBase(TreeClassifier):
    _mode = "A"
    _parameter_constraints = {
        "criterion": CRITERION,
        # ||e - d|| of unit vectors is at most 2: tau >= 2 would skip every eigenvector
        "tau": [Interval(Real, 0, 2, closed="left")],
        "min_class_rows": [Interval(Integral, 2, MAX_COUNT, closed="both"),
                           StrOptions({"full_rank"})],
        "null_eigenvectors": [StrOptions({"use", "skip"})],
        "axis_parallel": ["boolean"],
        "eigenvector_sign": [StrOptions({"largest_positive", "first_positive", "both"})],
        # a ratio of rows to features: above MAX_COUNT no data set has the rows
        "oblique_rows_per_feature": [Interval(Real, 0, MAX_COUNT, closed="both")],
    }

    def __init__(
        self,
        criterion: str = "twoing",
        tau: float = 0.05,
        min_samples_split: int = 3,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        categorical_features=None,
        random_state=None,
        min_class_rows: int | str = 2,
        null_eigenvectors: str = "use",
        axis_parallel: bool = True,
        oblique_rows_per_feature: float = 2.0,
        eigenvector_sign: str = "largest_positive",
        class_weight=None,
        n_threads: int | None = None,
    ):
        self.criterion = criterion
        self.tau = tau
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.min_class_rows = min_class_rows
        self.null_eigenvectors = null_eigenvectors
        self.axis_parallel = axis_parallel
        self.oblique_rows_per_feature = oblique_rows_per_feature
        self.eigenvector_sign = eigenvector_sign
        self.class_weight = class_weight
        self.n_threads = n_threads

    def _make_split_finder(self) -> SplitFinder:
        return HouseholderSplitFinder(
            criterion=split_criterion(self.criterion), mode=self._mode, tau=float(self.tau),
            oblique_rows_per_feature=float(self.oblique_rows_per_feature),
            min_class_rows=self.min_class_rows, null_eigenvectors=self.null_eigenvectors,
            axis_parallel=bool(self.axis_parallel), eigenvector_sign=self.eigenvector_sign)


class HouseholderSplitFinder(SplitFinder):
    """HHCART(A) or HHCART(D)'s search at one node (``find_householder_split``); its
    parameters are the estimator's, under the same names (``criterion`` as the
    criterion's function, ``mode`` 'A' or 'D')."""

    def __init__(self, *, criterion, mode="A", tau=0.05, oblique_rows_per_feature=2.0,
                 min_class_rows=2, null_eigenvectors="use", axis_parallel=True,
                 eigenvector_sign="largest_positive"):
        self.criterion, self.mode, self.tau = criterion, mode, tau
        self.oblique_rows_per_feature = oblique_rows_per_feature
        self.min_class_rows, self.null_eigenvectors = min_class_rows, null_eigenvectors
        self.axis_parallel, self.eigenvector_sign = axis_parallel, eigenvector_sign

    def split(self, node: Node) -> Split | None:
        X, y = self.node_data(node)
        return find_householder_split(
            X, y, self.n_classes, self.criterion, self.mode, self.tau,
            min_oblique_ratio=self.oblique_rows_per_feature,
            min_class_rows=self.min_class_rows, null_eigenvectors=self.null_eigenvectors,
            axis_parallel=self.axis_parallel, eigenvector_sign=self.eigenvector_sign,
            row_weights=node.weights, threads=self.threads)


@register_algorithm(
    "hhcart-a",
    "HHCART(A) (Wickramarachchi et al. 2016): Householder reflections on every "
    "eigenvector of each class covariance; prune with 'cc'",
    # null eigenvectors (used by A) reflect rows that tie in exact arithmetic
    invariances={**HHCART_INVARIANCES, "rows": ON_THE_SPLIT},
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class HHCARTAClassifier(_HHCARTBase):
    """HHCART(A): all eigenvectors of every class's covariance matrix (§3).

    Parameters
    ----------
    criterion : 'twoing' (default, §4.1.1), 'gini' or 'entropy'.
    tau : skip eigenvectors within tau of a coordinate axis (0.05, §3.1).
    min_samples_split : 3, i.e. MinParent = 2 (a node with <= 2 rows is a leaf).
    max_depth : None for unlimited.
    max_misclassification_rate : MisRate (0).
    categorical_features : indices of qualitative columns, mapped to CRIMCOORDs at
        each node (§3.2); None lets the runner take them from the dataset.
    random_state : unused (the search is deterministic); kept for a uniform API.
    min_class_rows : rows a class needs at a node to enter the eigen-analysis: an int
        >= 2 (2, the default: any class with two distinct points, §3.1) or 'full_rank'
        (p + 1 rows).
    null_eigenvectors : 'use' (default) or 'skip' the eigenvectors of zero eigenvalues
        of a singular class covariance (§3.1, "the available eigenvectors").
    axis_parallel : whether the best split in the original space competes with the
        reflected ones (True, Algorithm 1); False keeps it only where no reflection is
        done (module docstring).
    oblique_rows_per_feature : reflected splits are searched only in nodes with more
        than this many rows per feature (2.0, the OC1 rule quoted in §3.1; 0: always).
    eigenvector_sign : the sign each eigenvector is reflected with (eq. 2):
        'largest_positive' (default), 'first_positive', or 'both' signs.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in every count of the search and the leaves
        and in the class
        covariances (weighted means and scatter; ``base.fit_weights``).
    n_threads : the threads a large node spreads its reflections over (each class's
        eigenvectors, a chunk at a time, reflect the node's rows and search them); None
        (default) takes what the run leaves free (``obliq_cli.fit_threads``). The tree
        is the same for every thread count: the search draws nothing at random, and the
        reflections' best splits are compared, once all are scored, in the order one
        thread compares them (h_ap, then the classes and their eigenvectors in order).
    """

    _mode = "A"


@register_algorithm(
    "hhcart-d",
    "HHCART(D) (Wickramarachchi et al. 2016): Householder reflections on the dominant "
    "eigenvector of each class covariance; prune with 'cc'",
    invariances=HHCART_INVARIANCES,
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class HHCARTDClassifier(_HHCARTBase):
    """HHCART(D): the dominant eigenvector of each class's covariance matrix (§3).
    Parameters as ``HHCARTAClassifier``."""

    _mode = "D"
