"""Columns sorted once per fit and partitioned at every split (scikit-learn's presort).

The builder sorts every feature's column of the training rows once; at each split it
partitions every feature's order stably, keeping the rows that went each way, so a
child's orders are sorted without a sort. Equal values keep ascending row order.
"""

from __future__ import annotations

import numpy as np

from . import compiled


def root_order(X: np.ndarray) -> np.ndarray:
    """Every column's ascending order of all rows (ties in row order), [d, n]."""
    index = np.int32 if X.shape[0] < 2**31 else np.int64
    return np.argsort(X.T, axis=1, kind="stable").astype(index, copy=False)


@compiled
def split_order(order, goes_left, n_left, keep_left, keep_right):
    """The children's orders from the parent's ``order`` [d, m] (row indices).

    ``goes_left`` is indexed by row index (only the parent's rows are read); each row of
    ``order`` is split in one pass, keeping its order. A side not kept comes back with
    zero columns.
    """
    d, m = order.shape
    left = np.empty((d, n_left if keep_left else 0), dtype=order.dtype)
    right = np.empty((d, m - n_left if keep_right else 0), dtype=order.dtype)
    for f in range(d):
        a = 0
        b = 0
        for i in range(m):
            r = order[f, i]
            if goes_left[r]:
                if keep_left:
                    left[f, a] = r
                a += 1
            else:
                if keep_right:
                    right[f, b] = r
                b += 1
    return left, right
