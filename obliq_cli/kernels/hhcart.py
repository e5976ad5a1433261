"""HHCART's reflected columns (``obliq_cli.algorithms.hhcart``): the node's rows
reflected by Householder matrices, written straight into the layout its sorted sweep
reads.
"""

from __future__ import annotations

import numpy as np

from . import compiled


@compiled
def reflected_rows(Xt, T, U, rows):
    """Columns of ``X H_i`` with ``H_i = I - 2 u_i u_i'``, as rows [len(rows), n]:
    ``rows[a] = i * p + j`` asks for column j of ``X H_i``, which is
    ``Xt[j] - T[i] * U[i, j]`` elementwise (the subtraction of one rounded product:
    ``Xt`` is X' [p, n], ``T`` is ``2 (X U')'`` [m, n] and ``U`` holds the u_i [m, p]),
    numpy's ``Xt[None] - T[:, None, :] * U[:, :, None]`` value for value."""
    p, n = Xt.shape
    out = np.empty((rows.size, n))
    for a in range(rows.size):
        i = rows[a] // p
        j = rows[a] % p
        u = U[i, j]
        for r in range(n):
            out[a, r] = Xt[j, r] - T[i, r] * u
    return out
