"""numpy's pairwise float64 summation, in a compiled loop, so that a kernel's sum rounds
exactly as ``ndarray.sum`` (and ``np.mean``) does along a contiguous axis.

numpy sums blocks of at most 128 values with eight running partial sums combined as a
tree, and splits longer runs in two (the first part a multiple of 8 values), adding the
halves (``pairwise_sum`` in numpy's ``loops_utils.h.src``).
"""

from __future__ import annotations

import numpy as np

from . import compiled


@compiled
def pairwise_sum(a):
    """Sum of a short 1-D array (at most 128 values) in numpy's pairwise order (eight
    running partial sums combined as a tree, then the rest), so that it rounds as
    ``ndarray.sum`` does along a contiguous axis."""
    n = a.size
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r = a[:8].copy()
    i = 8
    while i < n - (n % 8):
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[i]
        i += 1
    return res


PAIRWISE_MAX = 128  # the longest run numpy sums without splitting it in two


@compiled
def numpy_pairwise_sum(a, start, n):
    """``a[start:start + n].sum()`` in numpy's order for a contiguous float64 run:
    blocks of at most 128 values summed by ``pairwise_sum``, longer runs split in two
    (the first part a multiple of 8 values) and the halves added. Written with an
    explicit stack: numba's cached recursive functions are not reliable."""
    if n <= PAIRWISE_MAX:
        return pairwise_sum(a[start:start + n])
    depth = 64
    st_start = np.empty(depth, dtype=np.int64)
    st_n = np.empty(depth, dtype=np.int64)
    st_stage = np.zeros(depth, dtype=np.int64)  # 0: left half pending, 1: right half
    st_left = np.zeros(depth)
    top = 0
    st_start[0], st_n[0], st_stage[0] = start, n, 0
    top = 1
    value = 0.0
    returned = False
    while top > 0:
        t = top - 1
        m = st_n[t]
        half = m // 2
        half -= half % 8
        if returned:
            if st_stage[t] == 0:
                st_left[t] = value
                st_stage[t] = 1
                returned = False
                top += 1
                st_start[top - 1] = st_start[t] + half
                st_n[top - 1] = m - half
                st_stage[top - 1] = 0
            else:
                value = st_left[t] + value
                top -= 1
        elif m <= PAIRWISE_MAX:
            value = pairwise_sum(a[st_start[t]:st_start[t] + m])
            returned = True
            top -= 1
        else:
            top += 1
            st_start[top - 1] = st_start[t]
            st_n[top - 1] = half
            st_stage[top - 1] = 0
    return value
