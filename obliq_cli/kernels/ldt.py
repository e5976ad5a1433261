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
