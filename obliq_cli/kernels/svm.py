"""The squared distances of the SVM family's RBF kernels (``obliq_cli.algorithms.svm``).
"""

from __future__ import annotations

import numpy as np

from . import compiled


@compiled
def squared_distances(A, B):
    """||a_i - b_j||^2 for every row pair, summed feature by feature."""
    out = np.empty((A.shape[0], B.shape[0]))
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            total = 0.0
            for k in range(A.shape[1]):
                diff = A[i, k] - B[j, k]
                total += diff * diff
            out[i, j] = total
    return out


@compiled
def squared_distances_within(A):
    """``squared_distances(A, A)`` in half the work: each pair once, its value mirrored.
    The same numbers: (a - b)^2 and (b - a)^2 are equal in floating point (negation is
    exact), summed in the same feature order."""
    n = A.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        out[i, i] = 0.0
        for j in range(i + 1, n):
            total = 0.0
            for k in range(A.shape[1]):
                diff = A[i, k] - A[j, k]
                total += diff * diff
            out[i, j] = total
            out[j, i] = total
    return out
