"""ID3 (Quinlan 1986) with Fayyad & Irani's binary splits of continuous attributes.

Quinlan (1986, "Induction of decision trees", §4) chooses at every node the test with the
largest information gain ``gain(A) = I(node) - E(A)``: I the class entropy in bits of the
node, E the size-weighted entropy of the children. Fayyad & Irani (1992, "On the handling
of continuous-valued attributes in decision tree generation", Machine Learning 8) extend
it to a continuous attribute A with binary tests ``A <= T``: after sorting the node's
examples by A, a cut T between two consecutive distinct values is a *boundary point* when
some example of the lower value and some example of the upper value belong to different
classes (their Definition 2); their Theorem 1 shows that the cut maximising the gain is
always a boundary point, so only boundary points are evaluated (the same best gain as
trying every midpoint, with fewer candidates). The cut is the midpoint of the two values
(the house rule of ``axis_search`` and CART §2.4; Fayyad & Irani evaluate cuts between
consecutive values). Every attribute is treated as continuous, as in the APDT paper's
numeric problems. Ties in gain go to the lowest feature index, then the lowest cut.

Row weights (``sample_weight``, ``class_weight``): Quinlan's counts become sums of the
rows' weights (a weight is a number of copies of the row, the reading C4.5 gives its
fractional cases, Quinlan 1993 ch. 3), in the gains, the nominal tests and the leaves;
the boundary points stay where the class of the (positive-weight) rows changes.

Nominal attributes (``categorical_features``, category codes 0..m-1) are ID3's own
tests (Quinlan 1986, §4): one branch per value, scored by the same gain; a nominal
attribute competes at a node when at least two of its values occur there. A value
never seen in training goes, at prediction, down the branch that held the most
training cases (the tree's default rule; ID3 has no rule for unknown values).

Growth is ID3's: split until a node is pure or no attribute has a boundary point (all
examples of the node share their values on every attribute). Shah & Sastry (1999, §III)
ran Utgoff's program (ITI, Utgoff 1994), "which also includes pruning". What that
pruning is could not be established from the sources at hand (ITI's documentation only
names a "virtual pruning mechanism"), and Fayyad & Irani (1992) grew their trees without
pruning, so this algorithm does not prune; pair it with a registered pruner (e.g.
``cc``) in a config if wanted, and note that the APDT paper's ID3 rows used ITI's own.

Vectorised as ``obliq_cli.tree.axis_search``: each feature is sorted once per node, class
counts are taken per block of equal values with one bincount, and cumulative sums give
the left/right counts of every candidate cut of every feature at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..invariances import CLASS_SUM_ROUNDING, EXACT, axis_parallel
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import entropy_of_counts, entropy_split
from .base import TreeClassifier
from .unweighted import GROWN_UNTIL_PURE


@dataclass(frozen=True)
class BoundaryCuts:
    """Every boundary-point cut of every feature of one node.

    feature, threshold, gain : arrays, one entry per candidate (feature-major, increasing
    thresholds); left_counts : [m, K] class counts of ``x <= threshold``.
    """

    feature: np.ndarray
    threshold: np.ndarray
    gain: np.ndarray
    left_counts: np.ndarray


def information_gain(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Quinlan's gain (bits) of binary partitions given their class counts [m, K]."""
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    return entropy_of_counts(left + right) - entropy_split(left, right)


def boundary_cuts(X: np.ndarray, y: np.ndarray, n_classes: int,
                  w: np.ndarray | None = None) -> BoundaryCuts:
    """All boundary-point cuts (Fayyad & Irani 1992, Definition 2) with their gains.

    ``w``: None (every row counts once) or the rows' positive weights, which replace
    the row counts in every class count (a row of weight 2 is two copies of it). The
    boundary points themselves do not move: they are where the classes of the rows
    change along a feature, and a weight changes how much a row counts, not its class
    (zero-weight rows never reach a node: ``TreeClassifier.fit`` removes them)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    n, d = X.shape
    empty = BoundaryCuts(np.zeros(0, np.int64), np.zeros(0), np.zeros(0),
                         np.zeros((0, n_classes)))
    if n < 2 or d == 0:
        return empty
    order = np.argsort(X, axis=0, kind="stable")
    x_sorted = np.take_along_axis(X, order, axis=0)
    block = np.zeros((n, d), dtype=np.int64)
    np.cumsum(x_sorted[1:] > x_sorted[:-1], axis=0, out=block[1:])
    n_blocks = block[-1] + 1
    offset = np.concatenate([[0], np.cumsum(n_blocks)[:-1]])
    total_blocks = int(n_blocks.sum())
    k = n_classes
    cell = ((block + offset) * k + y[order]).ravel()
    per_block = np.bincount(cell, minlength=total_blocks * k,
                            weights=None if w is None else w[order].ravel()
                            ).reshape(total_blocks, k)
    # A block is pure when one class holds all its examples; the cut after block b is a
    # boundary point unless blocks b and b+1 are pure in the same class.
    pure = (per_block > 0).sum(axis=1) == 1
    label = per_block.argmax(axis=1)
    is_last = np.zeros(total_blocks, dtype=bool)
    is_last[offset + n_blocks - 1] = True
    cand = np.flatnonzero(~is_last)
    same = pure[cand] & pure[cand + 1] & (label[cand] == label[cand + 1])
    cand = cand[~same]
    if cand.size == 0:
        return empty
    running = np.cumsum(per_block, axis=0)
    before = np.vstack([np.zeros((1, k), dtype=running.dtype), running[offset[1:] - 1]])
    feat = np.searchsorted(offset, cand, side="right") - 1
    left = running[cand] - before[feat]
    node_counts = np.bincount(y, minlength=k, weights=w)
    right = node_counts - left
    # The values on both sides of a cut: last row of block b and first row of block b+1.
    if w is None:
        p = left.sum(axis=1) - 1
    else:  # the weighted counts are no row positions: count the rows of the blocks
        rows_running = np.cumsum(np.bincount((block + offset).ravel(),
                                             minlength=total_blocks))
        rows_before = np.concatenate([[0], rows_running[offset[1:] - 1]])
        p = rows_running[cand] - rows_before[feat] - 1
    lo, hi = x_sorted[p, feat], x_sorted[p + 1, feat]
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)  # midpoint rounding to hi
    return BoundaryCuts(feat.astype(np.int64), threshold, information_gain(left, right),
                        left.astype(np.float64))


def best_boundary_cut(X: np.ndarray, y: np.ndarray, n_classes: int,
                      w: np.ndarray | None = None):
    """(feature, threshold, gain) of the largest-gain boundary cut, or None (``w``: the
    rows' weights, as ``boundary_cuts``)."""
    cuts = boundary_cuts(X, y, n_classes, w)
    if cuts.gain.size == 0:
        return None
    best = int(np.argmax(cuts.gain))  # first maximum: lowest feature, then lowest cut
    return int(cuts.feature[best]), float(cuts.threshold[best]), float(cuts.gain[best])


@register_algorithm(
    "id3",
    "ID3 (Quinlan 1986) with Fayyad-Irani binary cuts at boundary points; no pruning",
    # a nominal split has a branch per code, in any code order
    invariances=axis_parallel(classes3=CLASS_SUM_ROUNDING.unshown(), nominal=EXACT, levels=EXACT),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class ID3Classifier(TreeClassifier):
    """ID3 with information gain and binary boundary-point cuts.

    Parameters
    ----------
    min_samples_split : nodes with fewer rows are leaves (default 2: ID3 grows until pure).
    max_depth : maximum depth, None for unlimited.
    categorical_features : indices of the nominal columns (category codes 0..m-1), split
        multiway by gain; None: every column is continuous.
    random_state : unused (the search is deterministic); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: every class count of the gains
        and the leaves is weighed by it (``base.fit_weights``).
    """

    _native_nominal = True
    _importance_impurity = "entropy"  # its splits are chosen by information gain

    def __init__(self, min_samples_split: int = 2, max_depth: int | None = None,
                 categorical_features=None, random_state=None, class_weight=None):
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return ID3SplitFinder()


def nominal_gains(codes: np.ndarray, y: np.ndarray, n_classes: int,
                  categories: list[int], w: np.ndarray | None = None) -> np.ndarray:
    """ID3's gain of the multiway test on each column of ``codes`` [n, q] (category
    codes; column i has ``categories[i]`` values), -inf where fewer than two values
    occur (no test); ``w`` the rows' weights (None: each counts once)."""
    q = codes.shape[1]
    n = codes.shape[0] if w is None else float(w.sum())
    out = np.full(q, -np.inf)
    base = float(entropy_of_counts(np.bincount(y, minlength=n_classes, weights=w)))
    for i in range(q):  # a loop over nominal attributes
        m = categories[i]
        freq = np.bincount(codes[:, i].astype(np.int64) * n_classes + y,
                           minlength=m * n_classes, weights=w).reshape(m, n_classes)
        size = freq.sum(axis=1)
        if np.count_nonzero(size) < 2:
            continue
        out[i] = base - float((size * entropy_of_counts(freq)).sum()) / n
    return out


class ID3SplitFinder(SplitFinder):
    """ID3's split at one node: the test of largest information gain (a boundary cut
    of a continuous attribute, or a nominal attribute's multiway test); ties go to the
    lowest feature index, then the lowest cut."""

    nominal: dict = {}  # column -> number of codes; set by the estimator before prepare

    def split(self, node: Node) -> Split | None:
        X, y = self.node_data(node)
        w = node.weights
        if not self.nominal:
            best = best_boundary_cut(X, y, self.n_classes, w)
            if best is None:
                return None
            feature, threshold, gain = best
            # Split.score is lower-is-better across the house: minus the gain.
            return Split(threshold=threshold, feature=feature, score=-gain)
        nominal = sorted(self.nominal)
        continuous = np.setdiff1d(np.arange(X.shape[1]), nominal)
        best = best_boundary_cut(X[:, continuous], y, self.n_classes, w)
        gains = nominal_gains(X[:, nominal], y, self.n_classes,
                              [self.nominal[j] for j in nominal], w)
        i = int(np.argmax(gains)) if gains.size else -1  # the first: lowest index
        use_nominal = i >= 0 and np.isfinite(gains[i])
        if best is not None:
            feature = int(continuous[best[0]])
            if not use_nominal or best[2] > gains[i] or (
                    best[2] == gains[i] and feature < nominal[i]):
                return Split(threshold=best[1], feature=feature, score=-best[2])
        if not use_nominal:
            return None
        return Split(feature=nominal[i], categories=self.nominal[nominal[i]],
                     score=-float(gains[i]))


__all__ = ["BoundaryCuts", "ID3Classifier", "best_boundary_cut", "boundary_cuts",
           "information_gain", "nominal_gains"]
