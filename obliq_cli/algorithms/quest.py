"""QUEST with linear-combination splits (Loh & Shih 1997, "Split selection methods for
classification trees", Statistica Sinica 7:815-840), as the HHCART paper runs it for
its mixed-feature comparison (Wickramarachchi et al. 2016, §4.2, Table 7): "estimated
priors, unit misclassification cost, zero standard error for pruning, linear splits,
linear discriminant analysis for the split point, minimum node size for splitting 2".
Pruning is the separate ``cc`` pruner with 0-SE.

QUEST's linear splits follow FACT (Loh & Vanichsetakul 1988, JASA 83:715-725): the split
direction comes from linear discriminant analysis of the node's rows, so no search over
hyperplanes is made. At a node (this module, ``find_quest_split``):

1. **Features.** The node's quantitative columns plus one CRIMCOORD per qualitative
   column (Loh & Shih §3.3, built by the shared base class, ``obliq_cli.tree.crimcoord``);
   this finder only sees a numeric matrix.
2. **Rank reduction** (FACT's principal-component step, which QUEST's linear splits
   reuse): columns are standardised by the node's mean and standard deviation
   (constant columns get weight 0), the correlation matrix R is diagonalised, and only
   the principal components with eigenvalue > ``EIG_TOL`` x the largest are kept. In
   the whitened coordinates u = Lambda^{-1/2} V'z of the kept components the total
   covariance is the identity. The papers' exact cut-off was not available to us; the
   default is a numerical-rank tolerance, so when R is invertible nothing is dropped.
3. **Two superclasses** (Loh & Shih's split-point selection, applied to the linear
   combination as QUEST applies it to a selected variable): with two classes present
   they are the superclasses. With more, the class means are projected on the node's
   largest discriminant coordinate (the top eigenvector of the between-class scatter
   B = sum_k (n_k/n) u_k u_k' in the whitened space, i.e. of T^{-1}B) and two-means
   clustering (QUEST uses Hartigan & Wong 1979, per StatSoft's description of QUEST's
   splits) is run on those J numbers, one point per class (unweighted), starting from
   the two most extreme class means as initial centres; plain Lloyd iterations to a
   fixed point are used instead of Hartigan-Wong's transfer steps (the two can stop at
   different partitions in rare cases). Superclass A is the cluster holding the
   lowest class code (the discriminant coordinate's sign is arbitrary, so "the
   cluster with the smaller mean" would depend on it); step 4 orients the split so
   that A projects lower, as Loh & Shih's superclass A has the smaller mean. When the
   class means coincide no linear split separates them and the node is a leaf.
4. **Direction** (LDA between the two superclasses): a = S_W^{-1}(m_B - m_A) with the
   pooled within-superclass covariance S_W. Because the total covariance is
   T = S_W + c (m_B - m_A)(m_B - m_A)', T^{-1}(m_B - m_A) is the same direction
   (Sherman-Morrison), and it stays defined when S_W is singular but T is not, e.g.
   a column (or crimcoord) constant within each superclass, where LDA's limit is that
   column. So a = T^+(m_B - m_A) on the kept components, which in the whitened
   coordinates is just u_B - u_A. Singular T (constant or duplicated columns, fewer
   rows than features) is handled by step 2. The orientation makes a'm_A < a'm_B, so
   superclass A goes left.
5. **Split point** ("linear discriminant analysis for the split point"): on z = a'x,
   two normal populations with a common variance s^2 and priors p_A, p_B meet at
       d = (zbar_A + zbar_B)/2 + s^2 log(p_B / p_A) / (zbar_A - zbar_B)
   (the LDA boundary in one dimension, FACT's split point for two groups). s^2 is the
   pooled unbiased within-superclass variance of z (divisor n - 2) and the priors are
   estimated: p_A = n_A / n at the node (unit costs, so no cost adjustment). When d
   leaves one side empty (it falls outside the range of z, possible with very unequal
   priors) the midpoint (zbar_A + zbar_B)/2 is used, the fallback QUEST's quadratic
   split-point rule takes when its equation has no real root (as secondary
   descriptions of QUEST state it; the paper's text was not available to us); the
   midpoint always has rows on both sides, as zbar_A < zbar_B.
6. **Stopping**: minimum node size for splitting 2, and pure nodes are leaves (the
   builder). A node whose superclass means coincide, or whose rows are all identical,
   is a leaf.

Row weights (``sample_weight``, ``class_weight``). Loh & Shih count rows; a weight is
read as that many copies of the row (the reading C4.5 and scikit-learn give case
weights), so every moment above is the copied rows' one: the node's means, standard
deviations and correlations in step 2, the class sizes (the between-class scatter's
n_k/n) and class means in step 3, the superclass means in step 4, and in step 5 the
estimated priors p_A = W_A / W (W the summed weights), the superclass means of z and the
pooled variance with divisor W - 2. The CRIMCOORDs of qualitative columns come from the
node's weighted level-by-class table. QUEST's univariate splits choose their variable
by ANOVA F and Levene tests, which would become weighted F statistics; the linear
splits run here select no variable, so no test statistic is weighted.

The split is returned as the hyperplane ``a . x <= d`` in the node's original columns
(left iff a.x <= d, the builder's rule), with d computed on the same product X @ a the
builder evaluates (with qualitative columns the builder evaluates coded @ (P a), equal
up to rounding). The finder is deterministic: the random generator is not used.
All per-row work is matrix products; the Python loops run over two-means iterations
(at most a few per node) only.
"""

from __future__ import annotations

import numpy as np

from ..invariances import EXACT, MIN_NORM, ROUNDING, NotKept
from ..kernels import linalg
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from .base import TreeClassifier
from .unweighted import GROWN_UNTIL_PURE

EIG_TOL = 1e-9
"""Principal components of the node's correlation matrix with an eigenvalue at most this
times the largest are dropped (step 2 of the module docstring)."""

_CONST_TOL = 1e-10
"""A column whose standard deviation is at most this times its largest magnitude is
constant at the node (rounding in the mean makes an exact zero unreliable)."""

_MAX_TWO_MEANS_ITER = 100


def whitened_components(X: np.ndarray, w: np.ndarray | None = None):
    """(usable, scale, W, U): the node's standardised principal components.

    ``usable`` marks the non-constant columns, ``scale`` their standard deviations,
    ``W`` [n_usable, r] maps standardised columns z to whitened components u = z W
    (kept components of the correlation matrix, each scaled to unit variance), and
    ``U`` = Z W [n, r] has mean 0 and identity covariance (divisor n). None when every
    column is constant. ``w``: the rows' weights (None: each counts once); the means,
    standard deviations and correlations are then weighted ones (divisor the total
    weight), so ``U`` has weighted mean 0 and weighted covariance the identity.
    """
    X = np.asarray(X, dtype=np.float64)
    if w is None:
        n = X.shape[0]
        mean = X.mean(axis=0)
        sd = X.std(axis=0)
    else:
        n = float(w.sum())
        mean = linalg.matvec(np.ascontiguousarray(X.T), w) / n
        sd = np.sqrt(linalg.matvec(np.ascontiguousarray(((X - mean) ** 2).T), w) / n)
    usable = (sd > 0) & (sd > _CONST_TOL * np.abs(X).max(axis=0))
    if not usable.any():
        return None
    scale = sd[usable]
    Z = (X[:, usable] - mean[usable]) / scale
    # fixed-order products and Jacobi eigenvectors (kernels/linalg.py), not the CPU's BLAS
    corr = linalg.crossprod(Z, Z if w is None else Z * w[:, None]) / n
    lam, vec = linalg.eigh(corr)
    keep = lam > EIG_TOL * lam[-1]
    W = vec[:, keep] / np.sqrt(lam[keep])
    # C order whatever the node: a single kept component made W C contiguous where it is
    # otherwise Fortran, and numba compiled matmul once more, for that layout, inside a
    # timed fit (tests/experiment/test_warm_up.py)
    return usable, scale, W, linalg.matmul(np.ascontiguousarray(Z), np.ascontiguousarray(W))


def two_means_1d(points: np.ndarray) -> np.ndarray | None:
    """Two-means clustering of numbers, started from the smallest and the largest.

    Returns a boolean array, True for points in the upper cluster (superclass B), or
    None when all points are equal. Each point is assigned to the nearer centre (a tie
    goes to the lower cluster), centres are recomputed as cluster means, until the
    assignment no longer changes. Both clusters stay non-empty: the minimum is always
    nearer the lower centre and the maximum nearer the upper one.
    """
    points = np.asarray(points, dtype=np.float64)
    lo, hi = float(points.min()), float(points.max())
    if not hi > lo:
        return None
    upper = None
    for _ in range(_MAX_TWO_MEANS_ITER):
        new = np.abs(points - hi) < np.abs(points - lo)
        if upper is not None and np.array_equal(new, upper):
            break
        upper = new
        lo, hi = float(points[~upper].mean()), float(points[upper].mean())
    return upper


def superclass_of_classes(class_means: np.ndarray, class_sizes: np.ndarray):
    """Which of the node's classes form superclass B (boolean per class), given the
    class means in whitened coordinates (rows) and the class sizes.

    Two classes: the second is B. More: two-means on the class means projected on the
    largest discriminant coordinate (module docstring, step 3), with A the cluster that
    holds the first class. None when the class means do not differ.
    """
    k = class_means.shape[0]
    if k == 2:
        return np.array([False, True])
    weights = class_sizes / class_sizes.sum()
    between = linalg.crossprod(class_means * weights[:, None], class_means)
    mu, nu = linalg.eigh(between)
    if not mu[-1] > 1e-12:
        return None
    upper = two_means_1d(linalg.matvec(class_means, nu[:, -1]))
    # The eigenvector's sign is arbitrary; label the cluster holding the lowest class
    # code A so the labelling (hence which side is left) does not depend on it.
    return None if upper is None else upper ^ upper[0]


def lda_split_point(z: np.ndarray, in_b: np.ndarray,
                    w: np.ndarray | None = None) -> float | None:
    """The LDA boundary between superclass A (``~in_b``) and B on the projection z,
    with estimated priors and the pooled unbiased variance; the midpoint of the means
    when the boundary leaves a side empty; None unless mean_A < mean_B. ``w``: the
    rows' weights, read as numbers of copies (priors, means and the pooled variance
    with divisor W - 2 are the copied rows' ones).
    """
    z_a, z_b = z[~in_b], z[in_b]
    if w is None:
        n_a, n_b = z_a.size, z_b.size
    else:
        w_a, w_b = w[~in_b], w[in_b]
        n_a, n_b = float(w_a.sum()), float(w_b.sum())
    n = n_a + n_b
    if z_a.size == 0 or z_b.size == 0:
        return None
    if w is None:
        mean_a, mean_b = float(z_a.mean()), float(z_b.mean())
    else:
        mean_a, mean_b = float(z_a @ w_a) / n_a, float(z_b @ w_b) / n_b
    if not mean_a < mean_b:
        return None
    midpoint = (mean_a + mean_b) / 2.0
    if w is None:
        within = float(((z_a - mean_a) ** 2).sum() + ((z_b - mean_b) ** 2).sum())
    else:
        within = float(((z_a - mean_a) ** 2) @ w_a + ((z_b - mean_b) ** 2) @ w_b)
    s2 = within / (n - 2) if n > 2 else 0.0
    d = midpoint + s2 * np.log(n_b / n_a) / (mean_a - mean_b)
    if not (np.isfinite(d) and z.min() <= d < z.max()):
        d = midpoint
    return float(d)


def quest_direction(X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    """(a, in_b): the LDA direction between the node's two superclasses (in the original
    columns, oriented so superclass A projects lower) and the rows' superclass
    membership; None when no direction separates the superclass means. ``w``: the
    rows' weights (class sizes and means weighted)."""
    comps = whitened_components(X, w)
    if comps is None:
        return None
    usable, scale, W, U = comps
    codes, y_local = np.unique(y, return_inverse=True)
    if codes.size < 2 or U.shape[1] == 0:
        return None
    sizes = np.bincount(y_local, weights=w).astype(np.float64)
    onehot = np.zeros((y_local.size, codes.size))
    onehot[np.arange(y_local.size), y_local] = 1.0 if w is None else w
    class_means = linalg.crossprod(onehot, U) / sizes[:, None]
    b_classes = superclass_of_classes(class_means, sizes)
    if b_classes is None:
        return None
    in_b = b_classes[y_local]
    if w is None:
        diff = U[in_b].mean(axis=0) - U[~in_b].mean(axis=0)
    else:
        diff = (linalg.matvec(np.ascontiguousarray(U[in_b].T), w[in_b]) / w[in_b].sum()
                - linalg.matvec(np.ascontiguousarray(U[~in_b].T), w[~in_b]) / w[~in_b].sum())
    norm = float(linalg.norm(diff))
    if not norm > 1e-12:
        return None
    a = np.zeros(X.shape[1])
    a[usable] = linalg.matvec(W, diff / norm) / scale
    return a, in_b


def find_quest_split(X: np.ndarray, y: np.ndarray,
                     w: np.ndarray | None = None) -> Split | None:
    """QUEST's linear-combination split of a node (module docstring, steps 2-5);
    ``w`` the rows' weights (None: each row counts once)."""
    X = np.asarray(X, dtype=np.float64)
    found = quest_direction(X, y, w)
    if found is None:
        return None
    a, in_b = found
    z = linalg.matvec(X, a)  # the product the builder evaluates (goes_left)
    d = lda_split_point(z, in_b, w)
    if d is None:
        return None
    return Split(threshold=d, weights=a)


@register_algorithm(
    "quest",
    "QUEST with linear-combination splits (Loh & Shih 1997): LDA between two "
    "superclasses, LDA split point; prune with 'cc'",
    # means and scatter are summed in row (and class) order; the columns are standardised
    # (power-of-two scaling is exact there) and constant ones get weight 0
    invariances={"rows": NotKept("where the between-class scatter's largest eigenvalue is "
                                 "repeated (a node of barely more rows than columns), "
                                 "rounding, which follows the row order, picks the "
                                 "coordinate that groups the classes (step 3)"),
                 "columns": ROUNDING, "constant": EXACT,
                 "duplicate": MIN_NORM, "combination": MIN_NORM, "scale": EXACT,
                 "classes2": ROUNDING, "classes3": ROUNDING, "nominal": EXACT,
                 "levels": ROUNDING},
    expected_failed_checks={
        **GROWN_UNTIL_PURE,
        "check_sample_weight_equivalence_on_dense_data":
            "the check's 9 rows of positive weight in 30 columns leave 8 whitened "
            "components in which its 3 classes lie apart, so the between-class "
            "scatter's largest eigenvalue (1) is repeated and any vector of its plane is "
            "the largest discriminant coordinate of step 3; which one the eigensolver "
            "returns follows rounding (a row of weight 3 added once, its copies three "
            "times), and the root groups the classes otherwise. The papers give no rule "
            "for the tie, and a rule of our own would change unweighted trees",
    },
)
class QUESTClassifier(TreeClassifier):
    """QUEST with linear splits and the LDA split point (module docstring).

    Parameters
    ----------
    min_samples_split : nodes with fewer rows are leaves (2: QUEST's "minimum node size
        for splitting" in the HHCART paper's §4.2 setting).
    max_depth : maximum depth, None for unlimited.
    categorical_features : indices of qualitative columns, mapped to CRIMCOORDs at each
        node (Loh & Shih §3.3); None lets the runner take them from the dataset.
    random_state : unused (the split is computed, not searched); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight in the means, priors and variances (``base.fit_weights``).

    Integer weights grow the copied rows' tree up to rounding, except at a node whose
    between-class scatter has a repeated largest eigenvalue (step 3: a node of barely
    more distinct rows than columns, where the classes lie apart in every kept
    component): any vector of that eigenspace is a largest discriminant coordinate,
    Loh & Shih give no rule to pick one, and the one returned follows the rounding of
    the scatter, which differs between a weighted row summed once and its copies
    summed one by one (as it differs with the row order, the 'rows' invariance).
    scikit-learn's weight-equivalence check meets such a root.
    """

    def __init__(
        self,
        min_samples_split: int = 2,
        max_depth: int | None = None,
        categorical_features=None,
        random_state=None,
        class_weight=None,
    ):
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return QUESTSplitFinder()


class QUESTSplitFinder(SplitFinder):
    """QUEST's linear-combination split at one node (``find_quest_split``)."""

    def split(self, node: Node) -> Split | None:
        return find_quest_split(*self.node_data(node), node.weights)
