"""Which weight each row a pruner reads carries: one rule for every pruner.

Every pruner takes ``sample_weight`` (the growing rows' weights, as given to ``fit``) and
``prune_weight`` (a separate pruning part's own), both before ``class_weight``; the rows
then weigh what ``obliq_cli.weights.row_weights`` says under the estimator's
``class_weight``: the growing rows exactly what the tree was grown with, the pruning
rows their own weight times their class's weight computed on the pruning part. Every
count a pruner reads is then a weighted sum (Breiman et al. 1984 §3.3: R(t) with the
cases weighted; Quinlan 1993 ch. 4: N and E are sums of case weights already), and a
row of weight 0 is dropped before anything is drawn, as if it had been removed. None
(every row weighing the same) keeps each pruner's unweighted path, bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..weights import row_weights


def part_weights(estimator, y, sample_weight) -> np.ndarray | None:
    """The weights of the rows with labels ``y`` (a growing or a pruning part) for the
    pruning of ``estimator``, or None when all are equal (module docstring)."""
    if y is None:
        return None
    y = np.asarray(y)
    return row_weights(getattr(estimator, "class_weight", None), sample_weight, y, len(y),
                       check_names=False)


def drop_weightless(weights, *arrays):
    """``(weights, *arrays)`` without the rows of weight 0 (None stays None: no row is
    dropped); weights left all equal become None, as the removed rows' would be."""
    if weights is None or weights.all():
        return (weights, *arrays)
    kept = weights > 0
    weights = weights[kept]
    if (weights == weights[0]).all():
        weights = None
    return (weights, *(None if a is None else a[kept] for a in arrays))
