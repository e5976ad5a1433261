"""Columns of extreme magnitude brought into range by exact powers of two.

The oblique and standardising searches square, sum and invert their inputs (variances,
scatter matrices, eigenvectors, normal equations). A column near the float limit
(values near 1e308, or 1e300 times ordinary data) overflows those to inf; a subnormal
column (1e-310) underflows them to 0 and looks constant. Both then give one-leaf or
random trees with pages of numpy warnings.

A tree is therefore grown on the input with each such column multiplied by 2**k, k
chosen so that the column's largest magnitude lands in [1, 2). Scaling by a power of
two is exact (the mantissas are unchanged), so nothing is rounded, and ``apply`` scales
new rows the same way before reading the tree. A column whose largest magnitude lies
within [2**-LIMIT, 2**LIMIT] is left alone: there, n squares and their sums stay far
from both ends of the float range, and ordinary data grow exactly the trees they grew
before (an all-ordinary matrix is returned as the same object).
"""

from __future__ import annotations

import numpy as np

LIMIT = 100  # 2**100 ~ 1.3e30; 2**-100 ~ 7.9e-31


def column_exponents(X: np.ndarray) -> np.ndarray | None:
    """Per column the exponent k that scales an extreme column's largest magnitude into
    [1, 2) (0 for the other columns), or None when no column is extreme."""
    if X.size == 0:
        return None
    largest = np.fmax.reduce(np.abs(X), axis=0)  # NaN (a missing value) ignored
    _, exponent = np.frexp(largest)  # largest = m * 2**exponent, m in [0.5, 1)
    extreme = (largest > 0) & ((largest > 2.0 ** LIMIT) | (largest < 2.0 ** -LIMIT))
    if not extreme.any():
        return None
    return np.where(extreme, 1 - exponent, 0).astype(np.int64)


def scale_columns(X: np.ndarray, exponents: np.ndarray | None) -> np.ndarray:
    """``X`` with column j multiplied by 2**exponents[j] (``X`` itself when None)."""
    if exponents is None:
        return X
    return np.ldexp(X, exponents[None, :].astype(np.int32))
