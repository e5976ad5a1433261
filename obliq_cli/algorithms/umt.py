"""Univariate Margin Tree (UMT), Yildiz 2011, "Univariate decision tree induction using
maximum margin classification", The Computer Journal.

Split search (Section 2, eq. 4, Fig. 1). For a margin C and a feature j the threshold
w0 minimises the summed hinge slack of eq. 4::

    min_w0  sum_t max(0, C - y^t x_j^t - y^t w0),     y^t in {-1, +1}

The paper evaluates this at the N candidates w0 = (C - x^t y^t) / y^t (eq. 9) with an
O(N^2) double loop (Fig. 1 lines 5-13) and notes that sorting gives O(N log N) "like
C4.5". Here the cost is written in terms of the x-threshold tau = -w0 (the paper's
split ``x_j + w0 >= 0`` is ``x_j >= tau``):

    f(tau) = sum_{y=+1} max(0, tau - (x - C)) + sum_{y=-1} max(0, (x + C) - tau),

a convex piecewise-linear function whose breakpoints are u = x - C (class +1) and
v = x + C (class -1). After one sort of the breakpoints, prefix counts and sums give f
at every breakpoint (``hinge_sweep``), for all features and all C together; since
each class's breakpoints keep their order for every C, each class is sorted once per
node and merged per C in a compiled loop (``kernels.umt.hinge_slack_sweep``).
Because f's slope steps by one at every distinct breakpoint, it is zero on a whole
interval [lo, hi] of minimisers; the split threshold is its midpoint, which is what the
author's code does (``svmtree.c: find_best_svmtree_feature`` keeps the midpoint of the
first minimising breakpoint and the next one; docs/reference-programs.md). The paper's own loop
keeps whichever minimiser comes first in data order (tests/test_umt.py writes that loop
out as the sweep's reference).

Choices where the paper is silent, following the author's C code (ISELL,
docs/reference-programs.md; ``svmtree.c``, ``classification.c``):

* Normalisation: "the instances are normalized in order to use the same C value for
  each feature" (§2.2). ISELL normalises SVMTREE's input once, with the mean and
  standard deviation of the training set (``must_normalize``; means/variances are
  stored per model), so features are z-scored with the growing set's mean and standard
  deviation (a constant feature keeps scale 1). Thresholds are mapped back to the raw
  feature, so the tree reads raw X.
* Validation data for C (``optimize_C_for_svmtreenode``): at every node a stratified
  quarter of the node's rows is held out (per class, after a shuffle drawn from the
  finder's rng, positions 3, 7, 11, ... go to validation: ``partition % 4 == 3``), the
  other three quarters ("learn") give the thresholds.
* For every C, the feature is chosen by its error on the learn rows and the C by the
  error on the validation rows, both measured by ``error_of_split`` = 1 - (majority
  count left + majority count right) / N; ties keep the first feature / the first C
  (strict ``<`` in the code). (Fig. 1 compares every (C, feature) pair on V; the code
  compares features on the learn data.)
* The split found on the learn rows with the chosen C is the node's split and is applied
  to all the node's rows (the code merges the quarter back without refitting);
  ``refit=True`` instead recomputes the threshold on all the node's rows with the
  chosen C and feature. A node becomes a leaf when a side would be empty (the builder's
  rule, as ``create_svmtreechildren``). When a node is too small to give a validation
  quarter (every class has fewer than 4 rows), C is chosen by the error on all rows.
* The class with code 0 gets y = -1 and code 1 gets y = +1 (the code gives its
  ``positive`` class t = -1), so in eq. 4 as printed class 1 is expected on the side
  x > threshold. Eq. 4 fixes the univariate discriminant's weight at +1 (``x_j + w0``);
  a one-dimensional SVM's weight may have either sign, and with only +1 a feature on
  which class 1 lies low cannot be used (the hinge optimum runs to an end of the range):
  ``both_sides=True`` also fits ``-x_j + w0`` and lets every (C, feature, side)
  compete; the default ``False`` is eq. 4 as printed. (On segment's one-vs-rest
  problems it raised a member's test accuracy from 0.83 to 0.87, not to C4.5's 0.99:
  the summed hinge slack favours the majority class, so on unbalanced nodes the
  optimum often sends every row one way and the node stops impure.)
* The C grid is -2.0, -1.9, ..., 2.0 (paper, ``c_step=0.1``; the code steps 0.2).

Row weights (``sample_weight``, ``class_weight``; the paper has none). Eq. 4 is a
one-feature SVM's hinge loss; a row of weight w has its slack multiplied by w, as libsvm
weighs a row's C, so ``hinge_sweep`` minimises sum_t w^t eps^t (its prefix counts and
sums become summed weights and weighted sums) and the author's sign sweep counts each
candidate with its row's weight. ``error_of_split`` reads weighted class sums on the
learn and the validation rows, and the z-scoring uses the training set's weighted mean
and standard deviation. The validation quarter is still drawn over rows (ISELL's
``divide_instancelist`` knows no weights): a row of weight 3 is one row held out or not,
where three copies would be split between learn and validation by the shuffle, so an
integer weight equals copied rows only when no quarter is held out (every class of a
node under 4 rows); a weight of 0 is a removed row (the fit drops it) and equal weights
grow the unweighted tree to the bit.

The threshold (``sweep``). The author's sweep tells whether a candidate's hinge rises or
falls by the candidate's sign instead of by its class, so it does not minimise eq. 4: its
threshold sits where the shifted values' counts balance (``sign_rule_thresholds``).
``sweep="eq4"`` minimises eq. 4 exactly (``hinge_sweep``). The default is the code's,
``"sign"``, on the evidence of the ablation in docs/reproduction.md ("UMT tree sizes"):
over the whole of the paper's Tables 2-3 it brings the node counts from 3 to 14 of 14
cells within tolerance and the errors from 8 to 13 of 14 (musk2: 12.1 % against the
paper's 12.7 %, where eq. 4 gives 5.4 %), while eq. 4's trees are 2-10 times the paper's.
The published tables were made by the code, and this is the reading that reproduces
them; ``"eq4"`` is the method as the paper writes it.

Where UMT falls behind (the shipped config ``benchmark``: 5 x 2-fold CV, validation
pruning). On apdt_problem1 (75.3 % against 99.8 for the axis-parallel trees), checker4x4 (69.9
against 88-91) and balance (68.2 against C4.5's 78.6) the trees are faithful to the
program; what they show is the method:

* The score is the split error alone (Fig. 1 line 14, ``error_of_split``), and a cut that
  leaves the same class the majority of both sides scores exactly as no split does. On
  Problem 1 (class 1 the band 0.25 < x1 <= 0.75 above x2 = 0.4, 30 % of the rows) no
  axis cut gives class 1 a majority of a side, so every (C, feature) ties with the
  unsplit node, and on checker4x4 (a rotated checkerboard) every root cut is within
  a few points of 50 % error. An impurity split sees what the error cannot: at the root
  of repetition 0, fold 0 (675 rows, 480 / 195) gini cuts x2 <= 0.405 into [280, 0] and
  [200, 195], and C4.5 ends with 4 leaves and 99.8 %.
* Ties go to the first margin, C = -2.0 (strict ``<``, Fig. 1 line 15 and the code), and
  the program's sign sweep puts that margin's threshold below every row of the node (x1
  <= -0.311 at that root, x1 in [0, 1]), so a side is empty and the node becomes a leaf
  (``create_svmtreechildren``). A tie is thus a stopping rule: every impure leaf of the
  grown trees is one (16 on apdt_problem1, 139 on checker4x4, 91 in balance's member
  trees, over the 10 tasks each); 6 of 10 apdt_problem1 trees are one leaf before
  pruning. Eq. 4's midpoint at C = -2.0 mostly lies inside the node's rows (no empty
  side on apdt_problem1 or checker4x4; 46 on balance against the sign sweep's 91), so
  ``sweep="eq4"`` grows on: 94.2 % (17.9 leaves), 81.2 % and 73.3 %, and 96.7, 82.7 and
  74.4 with ``both_sides``. It still trails the axis trees: the hinge slack counts the
  class-0 rows on both sides of x2 = 0.4, so the root threshold lands at x2 = 0.9
  (C = 1.7), and the tree builds a staircase.
* Validation pruning is not the cause on Problem 1 (75.3 % before, 75.3 after) and
  costs 2.7 points on checker4x4 (72.6 to 69.9). On balance it costs 5.0 (73.2 to 68.2):
  the L-against-R tree is pruned on the 28 L and R rows of the 10 % prune part (17 to 5
  leaves in repetition 1, fold 1, for one validation error fewer: 72.4 to 62.5 % on
  test), while B (49 of 625 rows), never a majority of a side, leaves the B-against-L
  and B-against-R trees one leaf as grown in 8 and 9 of 10 tasks.

Multiclass problems use ``umt-ovo`` / ``umt-ovr`` (``obliq_cli.algorithms.multiclass``).
"""

from __future__ import annotations

import numpy as np

from ..invariances import TWO_CLASSES_ONLY, NotKept, axis_parallel
from ..kernels.umt import choose_margin, hinge_slack_sweep, sign_rule_thresholds
from ..parameters import Interval, ParameterError, Real, StrOptions
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from .base import TreeClassifier, binary_only
from .unweighted import GROWN_UNTIL_PURE

# What UMT keeps (obliq_cli.invariances): an axis-parallel search on z-scored columns
# (power-of-two scaling is exact there; a constant column keeps scale 1 and offers no
# split), but the validation quarter is drawn by position and eq. 4 has a side.
VALIDATION_QUARTER = NotKept("each node holds out a validation quarter drawn by row "
                             "position")
EQ4_SIDE = NotKept("eq. 4 fixes the weight at +1, so the class coded 1 is expected above "
                   "the threshold")
UMT_INVARIANCES = axis_parallel(rows=VALIDATION_QUARTER, classes2=EQ4_SIDE,
                                classes3=TWO_CLASSES_ONLY)

VALIDATION_QUARTER_WEIGHTS = {
    "check_sample_weight_equivalence_on_dense_data":
        "each node holds out a validation quarter drawn over rows: a row of weight k is "
        "held out or kept as one, where the shuffle splits its k copies (module docstring, "
        "Row weights)",
    **GROWN_UNTIL_PURE,
}
"""The scikit-learn checks the UMT wrappers cannot pass (their members' reasons). UMT
alone passes both on the checks' data (an unpruned two-class tree there), so it declares
none."""

# The most margins a grid may hold (``c_step`` is bounded below by it).
MAX_MARGINS = 10_001


def margin_grid(c_min: float, c_max: float, c_step: float) -> np.ndarray:
    """C = c_min, c_min + c_step, ..., c_max (Fig. 1 line 2), rounded to 10 decimals."""
    n = int(np.floor((c_max - c_min) / c_step + 1e-9)) + 1
    return np.round(c_min + c_step * np.arange(n), 10)


def _sorted_by_feature(Z: np.ndarray, weights: np.ndarray | None):
    """Each feature's values of the rows ``Z`` [n, d], sorted: [d, n], and the rows'
    weights in the same order (ones when ``weights`` is None)."""
    if weights is None:
        values = np.sort(Z.T, axis=1)
        return values, np.ones(values.shape)
    order = np.argsort(Z.T, axis=1, kind="stable")
    return (np.take_along_axis(Z.T, order, axis=1),
            np.ascontiguousarray(np.asarray(weights, dtype=np.float64)[order]))


def hinge_sweep(Z: np.ndarray, y_sign: np.ndarray, Cs,
                weights: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Minimum of eq. 4 for every margin and feature, by one sort and prefix sums.

    Parameters
    ----------
    Z : array [n, d] (normalised features); y_sign : array [n] of -1/+1; Cs : [m];
    weights : None, or [n] row weights multiplying each row's slack (module docstring).

    Returns
    -------
    slack, lo, hi : arrays [m, d]. ``slack`` is min over w0 of sum_t eps^t; every
    x-threshold tau in [lo, hi] attains it (tau = -w0), so w0 in [-hi, -lo].
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    Cs = np.atleast_1d(np.asarray(Cs, dtype=np.float64))
    pos = np.asarray(y_sign) > 0
    # Each class's breakpoints are its values shifted by one constant per C, so their
    # order does not depend on C: sort each class once, then merge per C (compiled).
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    z_pos, w_pos = _sorted_by_feature(Z[pos], None if w is None else w[pos])
    z_neg, w_neg = _sorted_by_feature(Z[~pos], None if w is None else w[~pos])
    slack, lo, hi = (np.empty((Cs.size, d)) for _ in range(3))
    hinge_slack_sweep(z_pos, z_neg, Cs, slack, lo, hi, w_pos, w_neg)
    return slack, lo, hi


def error_of_split(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """1 - (majority left + majority right) / N for class counts [..., K] (ISELL)."""
    n = left.sum(axis=-1) + right.sum(axis=-1)
    good = left.max(axis=-1) + right.max(axis=-1)
    return 1.0 - good / np.where(n > 0, n, 1)


def stratified_quarter(y: np.ndarray, rng: np.random.Generator, mod: int = 4) -> np.ndarray:
    """Boolean mask of the held-out rows: within each class, after a random shuffle,
    the rows at positions mod-1, 2 mod-1, ... (ISELL ``divide_instancelist(.., 4)``)."""
    held = np.zeros(y.size, dtype=bool)
    for c in np.unique(y):  # a loop per class
        idx = rng.permutation(np.flatnonzero(y == c))
        held[idx[mod - 1::mod]] = True
    return held


def best_margin_split(X, y, mu, sd, Cs, learn_mask, refit=False, both_sides=False,
                      sweep="sign", feature_by="learn", positive=0, n_classes=2,
                      weights=None):
    """The UMT split of one node (module docstring): (feature, raw threshold, C) or None.

    ``X`` raw node rows, ``y`` class codes in 0..n_classes-1, ``mu``/``sd`` the
    normalisation, ``learn_mask`` the rows used to fit thresholds (the rest validate C).
    The rows of class ``positive`` get y = -1 in eq. 4, all others +1 (with two classes
    and ``positive`` 0 this is the module's convention); the split errors count all
    ``n_classes`` classes. ``both_sides``: also fit eq. 4 with the positive class
    expected on the high side (the univariate discriminant ``-x_j + w0``); every
    (C, feature, side) competes. ``sweep``: "eq4" minimises eq. 4 (``hinge_sweep``),
    "sign" takes the author's code's threshold (``sign_rule_thresholds``).
    ``feature_by``: "learn" or "validation" (``choose_margin``). ``weights``: None or
    the rows' weights, read by eq. 4's slack and every split error (module docstring).
    """
    Z = (X - mu) / sd
    if both_sides:
        # -x_j as a feature of its own: a threshold on it is a threshold on x_j.
        d0 = X.shape[1]
        X, Z, mu, sd = (np.hstack([X, -X]), np.hstack([Z, -Z]), np.concatenate([mu, -mu]),
                        np.concatenate([sd, sd]))
    y_sign = np.where(y == positive, -1.0, 1.0)
    learn = learn_mask
    val = ~learn_mask
    if not val.any():
        learn = val = np.ones(y.size, dtype=bool)
    Xl, yl = X[learn], y[learn]
    varies = Xl.max(axis=0) > Xl.min(axis=0)
    if not varies.any():
        return None
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    tau = _thresholds(Z[learn], y_sign[learn], Cs, sweep,
                      None if w is None else w[learn])  # [m, d], normalised units
    thr = mu + sd * tau  # raw thresholds
    # Learn error of every (C, feature) from per-class sorted columns, then each C's
    # validation error (error_of_split both times).
    order = np.argsort(yl, kind="stable")
    offsets = np.searchsorted(yl[order], np.arange(n_classes + 1)).astype(np.int64)
    blocks = Xl[order]
    for k in range(n_classes):  # a loop per class: sort each class's columns
        blocks[offsets[k]:offsets[k + 1]].sort(axis=0)
    empty = np.empty(0)
    k, best_f = choose_margin(
        blocks, offsets, thr, varies, X[val], y[val].astype(np.int64),
        feature_by == "validation", np.ones(int(val.sum())) if w is None else w[val],
        Xl, yl.astype(np.int64),
        empty if w is None else w[learn])
    feature, threshold, C = int(best_f[k]), float(thr[k, best_f[k]]), float(Cs[k])
    if refit:
        tau_all = _thresholds(Z[:, [feature]], y_sign, np.array([C]), sweep, w)
        threshold = float(mu[feature] + sd[feature] * tau_all[0, 0])
    if both_sides and feature >= d0:
        # -x <= t goes left, i.e. x >= -t: the same partition up to rows exactly at -t,
        # which the midpoint threshold never meets; store it on x_j itself.
        feature, threshold = feature - d0, float(np.nextafter(-threshold, -np.inf))
    return feature, threshold, C


def _thresholds(Z, y_sign, Cs, sweep: str, weights=None) -> np.ndarray:
    """Each (C, feature)'s x-threshold [m, d] in normalised units: eq. 4's minimisers'
    midpoint, or the author's code's (``sign_rule_thresholds``); ``weights`` None or
    the rows' weights."""
    if sweep == "sign":
        Z = np.asarray(Z, dtype=np.float64)
        positive = np.asarray(y_sign) < 0
        tau = np.empty((np.size(Cs), Z.shape[1]))
        # C order whatever the node: a class of one row made its transposed values C
        # contiguous where they are otherwise Fortran, and numba compiled the kernel once
        # more, for that layout, inside a timed fit (tests/experiment/test_warm_up.py)
        (rest, w_rest), (pos, w_pos) = (
            (np.ascontiguousarray(v), w) for v, w in (
                _sorted_by_feature(Z[part], None if weights is None else weights[part])
                for part in (~positive, positive)))
        sign_rule_thresholds(rest, pos, np.asarray(Cs, dtype=np.float64), tau, w_rest, w_pos)
        return tau
    _, lo, hi = hinge_sweep(Z, y_sign, Cs, weights)
    return (lo + hi) / 2.0


@register_algorithm(
    "umt",
    "Univariate margin tree (Yildiz 2011), two classes: hinge-slack thresholds, margin C "
    "chosen on a node validation quarter; multiclass via umt-ovo / umt-ovr",
    invariances=UMT_INVARIANCES,
)
class UMTClassifier(TreeClassifier):
    """UMT for two classes (see the module docstring for every choice).

    Parameters
    ----------
    c_min, c_max, c_step : the margin grid (paper Fig. 1: -2.0 to 2.0 step 0.1).
    refit : False (author's code) keeps the threshold fitted on the node's learn
        quarters; True refits it on all the node's rows with the chosen C.
    normalize : z-score features with the training set's mean and std (paper §2.2).
    both_sides : fit eq. 4 with class 1 on either side of the threshold (see above).
    sweep : "sign" (default, the author's code): the threshold the code keeps, whose
        sweep tells a hinge's direction by the sign of its candidate instead of its class
        (``sign_rule_thresholds``); "eq4": the threshold minimises eq. 4 as printed. See
        the module docstring and the ablation in docs/reproduction.md.
    feature_by : "learn" (default, the author's code): each C's feature by its error on
        the node's learn rows, the C by the validation error; "validation" (paper
        Fig. 1): every (C, feature) pair by its validation error.
    min_samples_split, max_depth : builder stopping rules.
    random_state : seed or Generator for the per-node validation quarter.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight times its ``sample_weight`` (module docstring, "Row weights").
    """

    _parameter_constraints = {
        # C is measured in standard deviations of the z-scored feature
        "c_min": [Interval(Real, -1e6, 1e6, closed="both")],
        "c_max": [Interval(Real, -1e6, 1e6, closed="both")],
        # at most the widest grid's span (c_min -1e6 to c_max 1e6); its least value is
        # checked with the grid's size (``_validate_params_together``)
        "c_step": [Interval(Real, 0, 2e6, closed="right")],
        "refit": ["boolean"],
        "normalize": ["boolean"],
        "both_sides": ["boolean"],
        "sweep": [StrOptions({"eq4", "sign"})],
        "feature_by": [StrOptions({"learn", "validation"})],
    }

    def __init__(self, c_min: float = -2.0, c_max: float = 2.0, c_step: float = 0.1,
                 refit: bool = False, normalize: bool = True, both_sides: bool = False,
                 sweep: str = "sign", feature_by: str = "learn",
                 min_samples_split: int = 2, max_depth: int | None = None,
                 random_state=None, class_weight=None):
        self.c_min = c_min
        self.c_max = c_max
        self.c_step = c_step
        self.refit = refit
        self.normalize = normalize
        self.both_sides = both_sides
        self.sweep = sweep
        self.feature_by = feature_by
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.random_state = random_state
        self.class_weight = class_weight

    def _validate_params_together(self) -> None:
        if self.c_max < self.c_min:
            raise ParameterError(f"c_max must be >= c_min (got {self.c_min!r}..{self.c_max!r})",
                                 "c_max", f"must be >= c_min (got {self.c_min!r}..{self.c_max!r})")
        # Every node sweeps every margin of the grid: its size is bounded (the paper's
        # grid has 41 margins), so that a tiny step cannot take the memory of a run.
        size = (self.c_max - self.c_min) / self.c_step + 1
        if size > MAX_MARGINS:
            lowest = (self.c_max - self.c_min) / (MAX_MARGINS - 1)
            detail = (f"must be at least {lowest:.3g} so that the margin grid has at most "
                      f"{MAX_MARGINS} values (got {self.c_step!r})")
            raise ParameterError(f"c_step {detail}", "c_step", detail)

    def check_n_classes(self, n_classes: int) -> None:
        if n_classes > 2:
            raise binary_only(f"umt handles two classes, got {n_classes}; use umt-ovo or "
                              "umt-ovr")

    def _positive_code(self) -> int:
        """The code of the class whose rows get y = -1 in eq. 4 (code 0)."""
        return 0

    def _make_split_finder(self) -> SplitFinder:
        return UMTSplitFinder(Cs=margin_grid(self.c_min, self.c_max, self.c_step),
                              normalize=bool(self.normalize), refit=bool(self.refit),
                              both_sides=bool(self.both_sides), sweep=self.sweep,
                              feature_by=self.feature_by, positive=self._positive_code())


class UMTSplitFinder(SplitFinder):
    """UMT's split at one node (``best_margin_split``), features z-scored with the
    training set's mean and standard deviation (paper §2.2) when ``normalize``."""

    def __init__(self, Cs, normalize: bool, refit: bool, both_sides: bool,
                 sweep: str = "sign", feature_by: str = "learn", positive: int = 0):
        self.Cs, self.normalize, self.refit, self.both_sides = Cs, normalize, refit, both_sides
        self.sweep, self.feature_by, self.positive = sweep, feature_by, positive

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        self.n_classes = n_classes
        if self.normalize and X.shape[0] > 0:
            sd = X.std(axis=0)
            self.mu, self.sd = X.mean(axis=0), np.where(sd > 0, sd, 1.0)
        else:
            self.mu, self.sd = np.zeros(X.shape[1]), np.ones(X.shape[1])

    def split(self, node: Node) -> Split | None:
        X, y = self.node_data(node)
        if node.weights is not None and node.parent_counts is None and self.normalize:
            # the root holds every row: the weighted mean and standard deviation
            w = node.weights / node.weights.sum()
            mu = w @ X
            sd = np.sqrt(w @ (X - mu) ** 2)
            self.mu, self.sd = mu, np.where(sd > 0, sd, 1.0)
        held = stratified_quarter(y, self.rng)
        found = best_margin_split(X, y, self.mu, self.sd, self.Cs, ~held, self.refit,
                                  self.both_sides, self.sweep, self.feature_by,
                                  self.positive, self.n_classes, node.weights)
        if found is None:
            return None
        feature, threshold, _ = found
        return Split(threshold=threshold, feature=feature)


class UMTOneVsRestMember(UMTClassifier):
    """One tree of the author's one-vs-rest UMT (ISELL ``train_svmtree``): grown on all
    K classes, with the rows of ``positive_class`` on one side of eq. 4 and every
    other row on the other, split errors and leaves counting all K classes, and a node
    split until it is pure in the K classes. Not registered: ``umt-ovr`` with
    ``members="all_classes"`` grows one per class."""

    def __init__(self, positive_class=0, c_min: float = -2.0, c_max: float = 2.0,
                 c_step: float = 0.1, refit: bool = False, normalize: bool = True,
                 both_sides: bool = False, sweep: str = "sign", feature_by: str = "learn",
                 min_samples_split: int = 2, max_depth: int | None = None,
                 random_state=None, class_weight=None):
        super().__init__(c_min, c_max, c_step, refit, normalize, both_sides, sweep,
                         feature_by, min_samples_split, max_depth, random_state,
                         class_weight)
        self.positive_class = positive_class

    def check_n_classes(self, n_classes: int) -> None:
        pass

    def _positive_code(self) -> int:
        """The tree's code of ``positive_class``; -1 (no row is positive) when the
        training rows lack it."""
        found = np.flatnonzero(self.classes_ == self.positive_class)
        return int(found[0]) if found.size else -1
