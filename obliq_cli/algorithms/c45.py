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

Pruning is the separate ``pessimistic`` pruner (C4.5 error-based pruning, CF = 0.25).
Compiled: every attribute is sorted once per node (one batched argsort) and swept with
running class counts in one call (``evaluate_attributes``).
"""

from __future__ import annotations

import numpy as np

from ..parameters import StrOptions
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import entropy_of_counts, entropy_split
from ..tree.sorted_sweep import (
    SHORTLIST_TOLERANCE,
    left_counts_at,
    shortlist,
    sweep_entropy_with_min_split,
    xlogx_table,
)
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


def choose_attribute(results: list) -> int | None:
    """Index of the attribute with the best gain ratio among those with at least the
    average gain (``build.c: FindBestAtt/Worth``), or None."""
    gains = [r["gain"] for r in results if r is not None]
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
)
class C45Classifier(TreeClassifier):
    """C4.5 on continuous attributes (module docstring for the rules).

    Parameters
    ----------
    threshold : 'c45' (largest training value not above the midpoint) or 'midpoint'.
    min_samples_split : default 4 = 2 * MINOBJS (C4.5's leaf rule).
    max_depth : optional depth cap (not in C4.5).
    random_state : unused (C4.5 is deterministic); kept for a uniform API.
    """

    _parameter_constraints = {"threshold": [StrOptions({"c45", "midpoint"})]}

    def __init__(self, threshold: str = "c45", min_samples_split: int = 4,
                 max_depth: int | None = None, random_state=None):
        self.threshold = threshold
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.random_state = random_state

    def _make_split_finder(self) -> SplitFinder:
        return C45SplitFinder(self.threshold == "c45")


class C45SplitFinder(SplitFinder):
    """C4.5's test at one node (module docstring), on columns presorted once per fit."""

    presort = True

    def __init__(self, greatest_value_below: bool):
        self.greatest_value_below = greatest_value_below

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        # Sorted distinct training values per attribute, for GreatestValueBelow.
        self.values = [np.unique(X[:, j]) for j in range(X.shape[1])]
        self.XT = np.ascontiguousarray(X.T)

    def split(self, node: Node) -> Split | None:
        rows, n_classes = node.rows, self.n_classes
        # The node's columns as rows ([d, n], transposed back as a view).
        columns = self.XT.take(rows, axis=1)
        results = evaluate_attributes(columns.T, self.y[rows], n_classes, n_classes,
                                      self.local_order(node))
        a = choose_attribute(results)
        if a is None:
            return None
        r = results[a]
        mid = r["low"] / 2.0 + r["high"] / 2.0
        if self.greatest_value_below:
            vals = self.values[a]
            t = float(vals[np.searchsorted(vals, mid, side="right") - 1])
        else:
            t = mid if mid < r["high"] else r["low"]
        return Split(threshold=t, feature=a, score=-r["gain"] / r["info"])
