"""CART-LC's coefficient cycle (Breiman et al. 1984, §5.2.1; ``obliq_cli.algorithms.cart_lc``):
each coefficient's exact line search over the shift delta, for every gamma.
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .linalg import matvec
from .line_search import (
    RULE_FIRST,
    RULE_THRESHOLD,
    SCORE_EPS,
    line_search,
    line_search_scratch,
    line_search_with,
)

GAMMAS = (-0.25, 0.0, 0.25)
"""The gamma values tried per coefficient (Breiman et al. 1984, §5.2.1)."""


@compiled
def coefficient_pass(Z, y, total, code, beta, c, score, features, weights=None):
    """One cycle of ``algorithms.cart_lc._Search.improve`` over ``features``, compiled;
    ``beta`` is updated in place, (c, score) returned; ``weights``: None or each row's
    weight (``total`` their class sums), which the line searches count."""
    n = Z.shape[0]
    slack = np.empty(n)
    D = np.empty(n)
    no_draws = np.empty(0)
    # the line searches' scratch, allocated once (line_search_with: the same operations
    # as line_search); the slack is computed once and again only after a step moves
    # the hyperplane, so every search sees the slack of the current beta and c
    fwork, iwork = line_search_scratch(n, total.size)
    slack_values(Z, beta, c, slack)
    for i in features:
        for gamma in GAMMAS:
            for j in range(n):
                D[j] = -(Z[j, i] + gamma)
            delta, s = line_search_with(slack, D, y, total, code, RULE_FIRST, no_draws,
                                        fwork, iwork, weights)
            if s < score - SCORE_EPS:
                beta[i] -= delta
                c += delta * gamma
                score = s
                slack_values(Z, beta, c, slack)
    return c, score


@compiled
def slack_values(Z, beta, c, out):
    """``out = Z @ beta - c``, summed in column order (``kernels/linalg.matvec``; numba's
    ``np.dot`` would call BLAS, whose order depends on the CPU), so that rows whose
    projections tie exactly tie on every machine."""
    out[:] = matvec(Z, beta) - c


@compiled
def best_threshold(Z, beta, y, total, code, weights=None):
    """(t, score) of the best split ``Z @ beta <= t`` (the axis-parallel search on the
    one projected column); score inf when every row projects to the same value;
    ``weights`` as in :func:`coefficient_pass`."""
    n = Z.shape[0]
    v = np.empty(n)
    slack_values(Z, beta, 0.0, v)
    minus_one = np.full(n, -1.0)
    return line_search(v, minus_one, y, total, code, RULE_THRESHOLD, np.empty(0), weights)
