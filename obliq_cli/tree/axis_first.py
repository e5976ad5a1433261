"""The axis-parallel split first; an oblique split only where it is strictly better.

OC1 (Murthy et al. 1994, §3; the v3 program's ``ap_bias`` = 1), OC1-LC, CART-LC
(Breiman et al. 1984, §5.2: the linear-combination search starts from the best
univariate split) and HHCART (Wickramarachchi et al. 2016, Algorithm 1: h_ap wins
ties) all search the best axis-parallel split of a node first and replace it only by
a better oblique one. The three pieces they share live here: the axis-parallel start
as a ``Split``, the oblique candidate re-scored on the partition the builder will
make, and the comparison.
"""

from __future__ import annotations

import numpy as np

from .axis_search import find_best_axis_split
from .builder import Split
from .structure import go_left


def best_axis_split(X, y, n_classes: int, criterion, order=None,
                    weights=None) -> Split | None:
    """The best axis-parallel split of the rows ``X`` as a ``Split`` (None when no
    feature has two distinct values); ``order`` is an optional per-column ascending
    order of the rows, ``weights`` None or the rows' weights (``find_best_axis_split``)."""
    found = find_best_axis_split(X, y, n_classes, criterion, order=order, weights=weights)
    if found is None:
        return None
    return Split(threshold=found.threshold, feature=found.feature, score=found.score)


def rescored_oblique(X, y, n_classes: int, criterion, weights, threshold,
                     row_weights=None) -> Split | None:
    """The oblique split ``weights . x <= threshold`` of the rows ``X``, scored by
    ``criterion`` on the partition the builder makes (``X @ w <= t``), so the score
    belongs to the split that will be grown; None when it sends every row one way.
    ``row_weights``: None or each row's weight, the class counts then weighted sums."""
    split = Split(threshold=threshold, weights=weights)
    left_mask = go_left(split.projection(X), threshold)  # the builder's partition
    n_left = int(np.count_nonzero(left_mask))
    if not 0 < n_left < X.shape[0]:
        return None
    onehot = np.eye(n_classes)[y]
    if row_weights is not None:
        onehot *= row_weights[:, None]
    left = left_mask[None, :].astype(np.float64) @ onehot
    right = onehot.sum(axis=0) - left
    score = float(criterion(left, right)[0])
    return Split(threshold=threshold, weights=weights, score=score)


def strictly_better(incumbent: Split, challenger: Split | None,
                    margin: float = 0.0) -> Split:
    """``challenger`` if its score is below ``incumbent``'s by more than ``margin``,
    else ``incumbent``: ties (and a NaN score) keep the incumbent.

    The callers differ only in their arguments: OC1 and OC1-LC keep the axis-parallel
    split unless the re-scored oblique one is lower by more than 1e-12 (noise);
    HHCART keeps its running best (h_ap first) unless a reflected split is strictly
    lower (margin 0); CART-LC makes its oblique result the incumbent and the
    axis-parallel start the challenger, so there a tie keeps the oblique split.
    """
    if challenger is not None and challenger.score < incumbent.score - margin:
        return challenger
    return incumbent
