"""C4.5 release 8 on continuous attributes (Quinlan 1993, "C4.5: Programs for Machine
Learning", ch. 2; Quinlan 1996, "Improved use of continuous attributes in C4.5", JAIR 4).

Per node and attribute (release 8 ``contin.c: EvalContinuousAtt``, as read in the JAIR
paper §2-3 and the release-8 sources' documentation):

* Binary tests ``A <= Z``; the cut candidates lie between consecutive distinct values of
  the node's sorted cases, and a cut is tried only when both sides hold at least
  ``MinSplit = 0.10 N / K`` cases, clipped to [MINOBJS, 25] (MINOBJS = 2, K = number of
  classes), "we can't have a split without at least 2 cases in each subset".
* The cut of an attribute is the one with the largest information *gain* (not gain
  ratio, JAIR §3); its gain is then charged the MDL cost of choosing the cut,
  ``gain - log2(Tries) / N``, Tries being the number of cuts tried (N_distinct - 1 when
  MinSplit excludes none). An attribute whose corrected gain is not > 0 offers no test.
* Among the attributes that offer a test, only those whose corrected gain is at least
  the average corrected gain (less Epsilon = 1e-3) compete, by gain ratio = gain / split
  information of the two-way partition (ch. 2.2; ``build.c: Worth``). Ties keep the
  first attribute.
* Threshold: C4.5 replaces the midpoint of the cut by the largest value of that
  attribute in the *whole training set* not exceeding it (``GreatestValueBelow``), so
  thresholds are data values; ``threshold='midpoint'`` keeps the midpoint. Both put the
  same node cases on each side.
* A node with fewer than 2 * MINOBJS = 4 cases is a leaf (``min_samples_split=4``), as is
  a pure node or one with no test.

Nominal attributes and unknown values (Quinlan 1993, ch. 2.2 and ch. 3; release 8
``discr.c: EvalDiscreteAtt``, ``info.c: ComputeGain``, ``build.c: FormTree``):

* A column of ``categorical_features`` holds category codes 0..m-1 and is tested with
  one branch per code (m = largest training code + 1; ``SUBSET`` grouping is not
  offered). Fewer than two subsets of at least MINOBJS cases: no test (``ComputeGain``);
  an attribute of at least 0.3 x (training cases) values does not enter the average gain
  unless every attribute is such (``MultiVal``), as ``FormTree``. C4.5 does not test a
  nominal attribute again below its own test (``Tested``); here it is evaluated, but
  its known cases there share one value, so it offers no test either.
* Unknown values (NaN). The gain of an attribute is computed on the cases whose value
  is known and multiplied by their (weighted) fraction F: ``gain = F (info(T_known) -
  info_A(T_known))``; the split information counts the unknown cases as one more
  subset, ``split = H(|T_1|/|T|, ..., |T_m|/|T|, |T_?|/|T|)``. For a continuous
  attribute MinSplit, the cut candidates and the entropies use the known cases, the MDL
  charge ``log2(Tries) / |T|`` all cases (``contin.c``). Quinlan's golf example with
  one outlook unknown: gain 13/14 x (0.961 - 0.747) = 0.199, split 1.809.
* A case whose tested value is unknown goes down every branch that received known cases,
  its weight times that branch's share of the known weight (``Group`` and ``Factor`` in
  ``FormTree``); a branch without known cases is an empty leaf (C4.5's leaf with its
  parent's class). From then on cases carry fractional weights and every count above
  is a weighted sum (the builder's weight path). At prediction a case with an unknown
  value is spread the same way over the branches, by their training weight
  (``classify.c``), and the class is the largest weighted sum of the leaves' class
  distributions (``Tree.predict_proba``); a code not seen in training is treated as
  unknown.

A node whose cases have no unknown value and whose attributes are all continuous goes
through the compiled sweep below (the release-8 rules of the first list); any other node
through ``evaluate_general``, which computes the same quantities with weights (on such a
node both choose the same test; tests/algorithms/test_c45.py checks it).

Pruning is the separate ``pessimistic`` pruner (C4.5 error-based pruning, CF = 0.25).
Compiled: every attribute is sorted once per node (one batched argsort) and swept with
running class counts in one call (``evaluate_attributes``).
"""

from __future__ import annotations

import numpy as np

from ..invariances import CLASS_SUM_ROUNDING, EXACT, NotKept, axis_parallel
from ..kernels.sweep import (
    left_counts_at,
    shortlist,
    sweep_entropy_with_min_split,
    xlogx_table,
)
from ..parameters import StrOptions
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import entropy_of_counts, entropy_split
from ..tree.sorted_sweep import SHORTLIST_TOLERANCE
from ..tree.structure import MISSING_DISTRIBUTE
from .base import TreeClassifier

MINOBJS = 2
EPSILON = 1e-3


def _h2(p: np.ndarray) -> np.ndarray:
    """Binary entropy in bits."""
    p = np.clip(p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
        b = np.where(p < 1, -(1 - p) * np.log2(np.where(p < 1, 1 - p, 1.0)), 0.0)
    return a + b


def evaluate_attribute(x: np.ndarray, y: np.ndarray, k: int, n_classes_total: int):
    """C4.5 release 8's test on one continuous attribute.

    Returns None (no test) or a dict with ``gain`` (MDL-corrected), ``raw_gain``,
    ``info`` (split information), ``tries``, ``low``/``high`` (the values either side of
    the chosen cut) and ``n_left``.
    """
    return evaluate_attributes(np.asarray(x, dtype=np.float64)[:, None], y, k,
                               n_classes_total)[0]


def evaluate_attributes(X: np.ndarray, y: np.ndarray, k: int, n_classes_total: int,
                        order: np.ndarray | None = None) -> list:
    """``evaluate_attribute`` for every column of ``X`` [n, d] at once; ``order`` is an
    optional [d, n] argsort of every column (e.g. presorted), saving the sort.

    One compiled sorted sweep scores every allowed cut of every attribute with a closed
    form of the child entropy (``tree.sorted_sweep``); the cuts within 1e-10 of each
    attribute's best are rescored with ``impurity.entropy_split`` itself, so gains,
    ties and the chosen cuts are those of scoring every cut with it.
    """
    n, d = X.shape
    min_split = 0.10 * n / n_classes_total
    min_split = MINOBJS if min_split <= MINOBJS else min(min_split, 25.0)
    if n < 2:
        return [None] * d
    values = np.ascontiguousarray(X.T, dtype=np.float64)
    if order is None:
        order = np.argsort(values, axis=1)
    y = np.ascontiguousarray(y, dtype=np.int64)
    scores = np.empty((d, n - 1))
    tries = np.zeros(d, dtype=np.int64)
    best = sweep_entropy_with_min_split(values, order, y, k, float(min_split),
                                        xlogx_table(n), scores, tries)
    results = [None] * d
    has_cut = tries > 0
    if not has_cut.any():
        return results
    bounds = np.where(has_cut, best + SHORTLIST_TOLERANCE * np.maximum(1.0, np.abs(best)),
                      -np.inf)
    near = shortlist(scores, bounds)
    feats, pos = near // (n - 1), near % (n - 1)
    left = left_counts_at(order, y, k, feats, pos)
    total = np.bincount(y, minlength=k)
    base = float(entropy_of_counts(total))
    gains = base - entropy_split(left, total - left)
    corrected = gains - np.log2(tries[feats]) / n
    # Per attribute the first cut of largest corrected gain.
    rank = np.lexsort((pos, -corrected, feats))
    first = rank[np.r_[True, feats[rank][1:] != feats[rank][:-1]]]
    first = first[corrected[first] > 0]
    info = _h2((pos[first] + 1) / n)
    for t, h in zip(first.tolist(), info.tolist()):
        f, i = int(feats[t]), int(pos[t])
        results[f] = {"gain": float(corrected[t]), "raw_gain": float(gains[t]),
                      "info": h, "tries": int(tries[f]),
                      "low": float(values[f, order[f, i]]),
                      "high": float(values[f, order[f, i + 1]]), "n_left": i + 1}
    return results


def _info(parts: np.ndarray) -> np.ndarray:
    """Entropy in bits of the proportions of each row of weights [..., m]."""
    return entropy_of_counts(parts)


def evaluate_general(columns: np.ndarray, y: np.ndarray, w: np.ndarray, k: int,
                     n_classes_total: int, nominal: dict, n_train: int,
                     order: np.ndarray | None = None, multival: bool = False) -> list:
    """C4.5's evaluation of every attribute of one node with case weights and unknown
    values (module docstring): ``columns`` [d, n] the node's values (NaN = unknown),
    ``w`` [n] the cases' weights, ``nominal`` column -> number of codes, ``order`` an
    optional [d, n] argsort of each column with NaN last (presorted).

    Returns per attribute None (no test) or a dict with ``gain`` (after the unknown
    fraction and, for a continuous attribute, the MDL charge), ``info``, ``tries``,
    ``categories`` (0 for a continuous attribute), ``low``/``high`` (continuous: the
    values either side of the cut) and ``in_average`` (False for a nominal attribute of
    at least 0.3 x ``n_train`` values unless ``multival``: C4.5's ``MultiVal``, every
    attribute is such).
    """
    d, n = columns.shape
    items = float(w.sum())
    out: list = [None] * d
    if n < 2 or items <= 0:
        return out
    for j in range(d):  # a loop over attributes; every step inside is vectorised
        x = columns[j]
        known = ~np.isnan(x)
        known_w = float(w[known].sum())
        unknown_w = items - known_w
        if j in nominal:
            m = int(nominal[j])
            if known_w <= 0 or m < 2:
                continue
            codes = x[known].astype(np.int64)
            freq = np.bincount(codes * k + y[known], weights=w[known],
                               minlength=m * k).reshape(m, k)
            subset = freq.sum(axis=1)
            if np.count_nonzero(subset >= MINOBJS) < 2:
                continue  # ComputeGain: fewer than two reasonable subsets
            base = float(entropy_of_counts(freq.sum(axis=0)))
            rest = float((subset * entropy_of_counts(freq)).sum()) / known_w
            gain = known_w / items * (base - rest)
            if gain <= -EPSILON:
                continue
            out[j] = {"gain": gain, "raw_gain": gain,
                      "info": float(_info(np.r_[subset, unknown_w])), "tries": 0,
                      "categories": m, "in_average": multival or m < 0.3 * n_train}
            continue
        if known_w < 2 * MINOBJS:
            continue
        n_known = int(known.sum())
        if order is not None:
            o = order[j, :n_known]  # NaN sorts last
        else:
            where = np.flatnonzero(known)
            o = where[np.argsort(x[where], kind="stable")]
        xs, ws, ys = x[o], w[o], y[o]
        running = np.zeros((n_known, k))
        running[np.arange(n_known), ys] = ws
        np.cumsum(running, axis=0, out=running)
        low = running[:-1].sum(axis=1)
        min_split = 0.10 * known_w / n_classes_total
        min_split = MINOBJS if min_split <= MINOBJS else min(min_split, 25.0)
        cut = np.flatnonzero((xs[:-1] < xs[1:]) & (low >= min_split)
                             & (low <= known_w - min_split))
        if cut.size == 0:
            continue
        left = running[cut]
        right = running[-1] - left
        base = float(entropy_of_counts(running[-1]))
        rest = (left.sum(axis=1) * entropy_of_counts(left)
                + right.sum(axis=1) * entropy_of_counts(right)) / known_w
        gains = known_w / items * (base - rest)
        corrected = gains - np.log2(cut.size) / items
        best = int(np.argmax(corrected))  # the first cut of largest gain
        if corrected[best] <= 0:
            continue
        i = int(cut[best])
        out[j] = {"gain": float(corrected[best]), "raw_gain": float(gains[best]),
                  "info": float(_info(np.array([low[i], known_w - low[i], unknown_w]))),
                  "tries": int(cut.size), "categories": 0,
                  "low": float(xs[i]), "high": float(xs[i + 1]), "in_average": True}
    return out


def choose_attribute(results: list) -> int | None:
    """Index of the attribute with the best gain ratio among those with at least the
    average gain (``build.c: FindBestAtt/Worth``), or None. The average leaves out the
    results marked ``in_average: False`` (nominal attributes of very many values,
    ``FormTree``); with none left to average C4.5's average is 1E6, so no test."""
    gains = [r["gain"] for r in results if r is not None and r.get("in_average", True)]
    if not gains:
        return None
    av_gain = sum(gains) / len(gains)
    best, best_val = None, -EPSILON
    for a, r in enumerate(results):  # a loop per attribute
        if r is None:
            continue
        if r["gain"] >= av_gain - EPSILON and r["info"] > EPSILON:
            val = r["gain"] / r["info"]
        else:
            val = -EPSILON
        if val > best_val:
            best, best_val = a, val
    return best


@register_algorithm(
    "c45", "C4.5 release 8 (Quinlan 1993/1996): gain ratio, binary continuous tests with "
    "MDL-corrected gain; prune with pruner 'pessimistic'",
    # thresholds are training values or midpoints, both exact under power-of-two scaling
    invariances=axis_parallel(
        duplicate=NotKept("a copy counts twice in the average gain that an attribute must "
                          "reach to compete (build.c)", shown=False),
        classes3=CLASS_SUM_ROUNDING.unshown(), nominal=EXACT, levels=EXACT),
)
class C45Classifier(TreeClassifier):
    """C4.5 (module docstring for the rules).

    Parameters
    ----------
    threshold : 'c45' (largest training value not above the midpoint) or 'midpoint'.
    min_samples_split : default 4 = 2 * MINOBJS (C4.5's leaf rule; weighted cases).
    max_depth : optional depth cap (not in C4.5).
    categorical_features : indices of the nominal columns (category codes 0..m-1), split
        multiway; None: every column is continuous (the runner fills it from the
        dataset's qualitative columns).
    random_state : unused (C4.5 is deterministic); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: each case enters with its class's
        weight, as C4.5 carries fractional cases (ch. 3; ``base.fit_weights``).

    NaN in ``X`` is a missing value (``input_tags.allow_nan``), handled as C4.5 does.
    """

    _parameter_constraints = {"threshold": [StrOptions({"c45", "midpoint"})]}
    _allow_nan = True
    _native_nominal = True
    _importance_impurity = "entropy"  # its splits are chosen by information gain

    def __init__(self, threshold: str = "c45", min_samples_split: int = 4,
                 max_depth: int | None = None, categorical_features=None,
                 random_state=None, class_weight=None):
        self.threshold = threshold
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return C45SplitFinder(self.threshold == "c45")


class C45SplitFinder(SplitFinder):
    """C4.5's test at one node (module docstring), on columns presorted once per fit."""

    presort = True
    nominal: dict = {}  # column -> number of codes; set by the estimator before prepare

    def __init__(self, greatest_value_below: bool):
        self.greatest_value_below = greatest_value_below

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        # Sorted distinct training values per attribute, for GreatestValueBelow.
        self.values = [np.unique(X[:, j][~np.isnan(X[:, j])]) for j in range(X.shape[1])]
        self.XT = np.ascontiguousarray(X.T)
        self.has_nan = np.isnan(self.XT).any(axis=1)  # per attribute
        self.nominal = dict(self.nominal)
        # build.c: MultiVal, every attribute nominal with many values (a continuous one
        # counts as having none)
        d = X.shape[1]
        self.multival = len(self.nominal) == d and all(
            m >= 0.3 * X.shape[0] for m in self.nominal.values())

    def split(self, node: Node) -> Split | None:
        rows, n_classes = node.rows, self.n_classes
        # The node's columns as rows ([d, n], transposed back as a view).
        columns = self.XT.take(rows, axis=1)
        general = (node.weights is not None or bool(self.nominal)
                   or (self.has_nan.any() and np.isnan(columns).any()))
        if general:
            w = np.ones(rows.shape[0]) if node.weights is None else node.weights
            results = evaluate_general(columns, self.y[rows], w, n_classes, n_classes,
                                       self.nominal, self.X.shape[0], self.local_order(node),
                                       self.multival)
        else:
            results = evaluate_attributes(columns.T, self.y[rows], n_classes, n_classes,
                                          self.local_order(node))
        a = choose_attribute(results)
        if a is None:
            return None
        r = results[a]
        score = -r["gain"] / r["info"]
        if r.get("categories", 0):
            return Split(feature=a, categories=r["categories"], score=score,
                         missing=MISSING_DISTRIBUTE)
        mid = r["low"] / 2.0 + r["high"] / 2.0
        if self.greatest_value_below:
            vals = self.values[a]
            t = float(vals[np.searchsorted(vals, mid, side="right") - 1])
        else:
            t = mid if mid < r["high"] else r["low"]
        return Split(threshold=t, feature=a, score=score, missing=MISSING_DISTRIBUTE)
