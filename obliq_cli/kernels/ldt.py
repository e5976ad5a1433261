"""The univariate LDT's threshold lookup (``obliq_cli.algorithms.ldt``): where each of
many thresholds falls among the sorted distinct values of its own column.
"""

from __future__ import annotations

import numpy as np

from . import compiled


@compiled
def count_rows_at(values, starts, columns, thresholds):
    """Row ``i`` of the result is ``starts[f] + f + c`` for ``f = columns[i]``, with
    ``c`` the number of column f's values at or below ``thresholds[i]``
    (``numpy.searchsorted(..., side="right")``, a NaN threshold above every value).

    ``values`` holds the columns' distinct values, each ascending, one column after
    another: column f's are ``values[starts[f]:starts[f + 1]]``. The result indexes a
    table laid out alike with one more row per column (the counts at or below none,
    then at or below each value), whose column f starts at row ``starts[f] + f``.
    """
    out = np.empty(columns.size, dtype=np.int64)
    for i in range(columns.size):
        f = columns[i]
        lo = starts[f]
        hi = starts[f + 1]
        t = thresholds[i]
        while lo < hi:  # the first value above t (NaN: above none)
            mid = (lo + hi) // 2
            if not t < values[mid]:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo + f
    return out


@compiled
def group_sums(parts, columns, n_c, s1, s2):
    """The class sums of two-group partitions: for each row i of ``parts`` [m, K]
    (True = group L) on column ``f = columns[i]``, with ``L_j`` 1.0 or 0.0 as class j is
    in L and ``R_j = 1.0 - L_j``, the rows of the result [6, m] are ``sum_j L_j
    n_c[j]``, ``sum_j R_j n_c[j]``, ``sum_j L_j s1[f, j]``, ``sum_j R_j s1[f, j]``,
    ``sum_j L_j s2[f, j]`` and ``sum_j R_j s2[f, j]``, each added from 0.0 in class
    order: ``linalg.matvec`` and ``linalg.rowwise_dot`` of the 0/1 matrices (the same
    products, zeros included, in the same order), without forming them."""
    m, k = parts.shape
    out = np.empty((6, m))
    for i in range(m):
        f = columns[i]
        nl = 0.0
        nr = 0.0
        al = 0.0
        ar = 0.0
        bl = 0.0
        br = 0.0
        for j in range(k):
            left = 1.0 if parts[i, j] else 0.0
            right = 1.0 - left
            nl += left * n_c[j]
            nr += right * n_c[j]
            al += left * s1[f, j]
            ar += right * s1[f, j]
            bl += left * s2[f, j]
            br += right * s2[f, j]
        out[0, i] = nl
        out[1, i] = nr
        out[2, i] = al
        out[3, i] = ar
        out[4, i] = bl
        out[5, i] = br
    return out
