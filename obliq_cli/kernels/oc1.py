"""OC1's hill climbing (Murthy, Kasif & Salzberg 1994, §3; ``obliq_cli.algorithms.oc1``):
the lockstep climb of the restarts with random jumps, and the OC1 program's CART-LC
cycles.
"""

from __future__ import annotations

import numpy as np

from . import compiled

# the CART-LC mode (``cart_perturb``) tries the gammas of Breiman et al.'s CART-LC
from .cart_lc import GAMMAS as CART_GAMMAS
from .line_search import (
    RULE_RANDOM,
    RULE_SMALLEST,
    SCORE_EPS,
    line_search,
    line_search_scratch,
    line_search_with,
    partition_score,
)

TOLERANCE = 1e-4
"""``TOLERANCE`` of ``oc1.h``: a coefficient change smaller than this is no change
(``alter_coefficients``) and the CART-LC cycles stop on an improvement below it."""



@compiled
def hyperplane_values(Xa, a, out):
    """``out = Xa @ a``, each point's value of the hyperplane ``a``."""
    n, n_coef = Xa.shape
    for j in range(n):
        v = 0.0
        for i in range(n_coef):
            v += Xa[j, i] * a[i]
        out[j] = v


@compiled
def values_by_column(XaT, a, out):
    """``out = XaT.T @ a`` from the columns ``XaT`` [d+1, n]: the sums of
    :func:`hyperplane_values` term by term in the same order (so the same rounding), a
    column at a time, which the compiler vectorises over the points."""
    n_coef, n = XaT.shape
    for j in range(n):
        out[j] = 0.0
    for i in range(n_coef):
        c = a[i]
        col = XaT[i]
        for j in range(n):
            out[j] += col[j] * c


@compiled
def start_values(A, XaT, y, total, code, V, cur, perfect, weights=None):
    """Each start's values ``V[r] = Xa @ A[r]``, score ``cur[r]`` and ``perfect[r]``."""
    for r in range(A.shape[0]):
        values_by_column(XaT, A[r], V[r])
        cur[r], perfect[r] = partition_score(V[r], y, total, code, weights)


@compiled
def coefficient_move(r, m, A, V, XaT, y, total, code, draws, cur, perfect, stagnant,
                     improved, max_stagnant, fwork, iwork, V_new, trial, weights=None):
    """Restart ``r``'s step on coefficient ``m`` of :func:`climb` with its ``n + 1``
    tie-break ``draws``: the best value of the 1-D sweep, taken when strictly better, or
    equal while the restart's stagnation counter allows. Writes only row ``r`` of the
    state arrays (so restarts may move at once on different threads) and the scratch
    ``fwork, iwork, V_new, trial``."""
    delta, _ = line_search_with(V[r], XaT[m], y, total, code, RULE_RANDOM, draws,
                                fwork, iwork, weights)
    if not abs(delta) > TOLERANCE:
        return
    trial[:] = A[r]
    trial[m] += delta
    values_by_column(XaT, trial, V_new)
    s, p_new = partition_score(V_new, y, total, code, weights)
    better = s < cur[r] - SCORE_EPS
    equal = (not better and s <= cur[r] + SCORE_EPS
             and stagnant[r] <= max_stagnant)
    if better:
        stagnant[r] = 0
    elif equal:
        stagnant[r] += 1
    else:
        return
    A[r] = trial
    V[r] = V_new
    perfect[r] = p_new
    cur[r] = min(cur[r], s)
    improved[r] = True


@compiled
def jump_move(r, direction, A, V, XaT, y, total, code, draws, cur, perfect, stagnant,
              improved, need, fwork, iwork, jump, V_new, trial, weights=None):
    """Restart ``r``'s random jump along ``direction`` with its ``n + 1`` tie-break
    ``draws`` (:func:`climb`): only a strict improvement is taken. Writes only row ``r``
    of the state arrays and the scratch ``fwork, iwork, jump, V_new, trial``."""
    n_coef = direction.size
    values_by_column(XaT, direction, jump)
    alpha, _ = line_search_with(V[r], jump, y, total, code, RULE_RANDOM, draws,
                                fwork, iwork, weights)
    moved = False
    for c in range(n_coef):
        trial[c] = alpha * direction[c]
        if abs(trial[c]) > TOLERANCE:
            moved = True
    if not moved:
        return
    for c in range(n_coef):
        trial[c] += A[r, c]
    values_by_column(XaT, trial, V_new)
    s, p_new = partition_score(V_new, y, total, code, weights)
    if s < cur[r] - SCORE_EPS:
        A[r] = trial
        V[r] = V_new
        cur[r] = s
        perfect[r] = p_new
        stagnant[r] = 0
        improved[r] = True
        need[r] = False


@compiled
def climb(A, Xa, y, total, code, rng, max_stagnant, n_jumps, weights=None):
    """The lockstep hill climbing of ``algorithms.oc1._NodeSearch.climb``, compiled.

    Restarts are visited in order within every step (each coefficient, each jump), so
    the random draws come in the order of the batched search this replaces: per
    coefficient, ``n + 1`` tie-break draws for each climbing restart in turn; per jump,
    the directions of all restarts needing one, then their tie-break draws. Returns
    (scores, perfect, the score of the first start). ``weights``: None or each point's
    weight (``total`` their class sums), which every score and line search counts.
    The threaded climb (``algorithms.oc1._NodeSearch``) runs the same steps through the
    same draw and move kernels, dealing each step's restarts to its threads.
    """
    k, n_coef = A.shape
    n = Xa.shape[0]
    XaT = np.ascontiguousarray(Xa.T)
    V = np.empty((k, n))
    cur = np.empty(k)
    perfect = np.zeros(k, dtype=np.bool_)
    start_values(A, XaT, y, total, code, V, cur, perfect, weights)
    first = cur[0]  # the caller compares the restarts against the first start
    stagnant = np.zeros(k, dtype=np.int64)
    running = ~perfect
    improved = np.zeros(k, dtype=np.bool_)
    need = np.zeros(k, dtype=np.bool_)
    # a step's draws, taken in the order of coefficient_draws / jump_draws (which deal
    # them to the threaded climb's threads; here to one)
    draws = np.empty((1, k, n + 1))
    directions = np.empty((1, k, n_coef))
    jump = np.empty(n)
    V_new = np.empty(n)
    trial = np.empty(n_coef)
    fwork, iwork = line_search_scratch(n, total.size)  # one set for every search
    while running.any():
        improved[:] = False
        for m in range(n_coef):
            rows = np.flatnonzero(running & ~perfect)
            coefficient_draws(rng, rows.size, draws)
            coefficient_moves(rows, 0, 1, m, A, V, XaT, y, total, code, draws[0], cur,
                              perfect, stagnant, improved, max_stagnant, fwork, iwork,
                              V_new, trial, weights)
        for r in range(k):
            need[r] = running[r] and not improved[r] and not perfect[r]
        for _ in range(n_jumps):
            rows = np.flatnonzero(need)
            if rows.size == 0:
                break
            jump_draws(rng, rows.size, directions, draws)
            jump_moves(rows, 0, 1, directions[0], A, V, XaT, y, total, code, draws[0], cur,
                       perfect, stagnant, improved, need, fwork, iwork, jump, V_new, trial,
                       weights)
        for r in range(k):
            running[r] = improved[r] and not perfect[r]
    return cur, perfect, first


@compiled
def coefficient_draws(rng, count, out):
    """The tie-break draws of one coefficient step of :func:`climb` for ``count``
    climbing restarts, in its order, dealt to ``out`` [threads, places, n + 1]: the i-th
    restart's ``n + 1`` draws go to ``out[i % threads, i // threads]``."""
    n_threads = out.shape[0]
    for i in range(count):
        for p in range(out.shape[2]):
            out[i % n_threads, i // n_threads, p] = rng.random()


@compiled
def jump_draws(rng, count, directions, draws):
    """The draws of one round of random jumps of :func:`climb` for ``count`` restarts,
    in its order (every direction, then each one's tie-breaks), dealt as in
    :func:`coefficient_draws` to ``directions`` [threads, places, d + 1] and ``draws``
    [threads, places, n + 1]."""
    n_threads = directions.shape[0]
    for i in range(count):
        for c in range(directions.shape[2]):
            directions[i % n_threads, i // n_threads, c] = rng.uniform(-1.0, 1.0)
    for i in range(count):
        for p in range(draws.shape[2]):
            draws[i % n_threads, i // n_threads, p] = rng.random()


@compiled
def coefficient_moves(rows, first, stride, m, A, V, XaT, y, total, code, draws, cur,
                      perfect, stagnant, improved, max_stagnant, fwork, iwork, V_new, trial,
                      weights=None):
    """:func:`coefficient_move` of the restarts ``rows[first::stride]`` in turn, the one
    at place i of ``rows`` with ``draws[i // stride]``: one thread's share of a
    coefficient step, the draws dealt by :func:`coefficient_draws`."""
    for i in range(first, rows.size, stride):
        coefficient_move(rows[i], m, A, V, XaT, y, total, code, draws[i // stride], cur,
                         perfect, stagnant, improved, max_stagnant, fwork, iwork, V_new,
                         trial, weights)


@compiled
def jump_moves(rows, first, stride, directions, A, V, XaT, y, total, code, draws, cur,
               perfect, stagnant, improved, need, fwork, iwork, jump, V_new, trial,
               weights=None):
    """:func:`jump_move` of the restarts ``rows[first::stride]`` in turn, the one at
    place i along ``directions[i // stride]`` with ``draws[i // stride]``: one thread's
    share of a round of jumps, dealt by :func:`jump_draws`."""
    for i in range(first, rows.size, stride):
        jump_move(rows[i], directions[i // stride], A, V, XaT, y, total, code,
                  draws[i // stride], cur, perfect, stagnant, improved, need, fwork, iwork,
                  jump, V_new, trial, weights)


@compiled
def cart_lc_cycles(Xa, y, total, code, a, max_cycles, weights=None):
    """The cycles of ``algorithms.oc1.cart_lc_climb``, compiled; ``a`` is updated in place
    and the final score returned; ``weights`` as in :func:`climb`."""
    n, n_coef = Xa.shape
    d = n_coef - 1
    gammas = np.array(CART_GAMMAS)
    no_draws = np.empty(0)
    V = np.empty(n)
    V_new = np.empty(n)
    D = np.empty(n)
    trial = np.empty(n_coef)
    hyperplane_values(Xa, a, V)
    cur, perfect = partition_score(V, y, total, code, weights)
    for cycle in range(max_cycles):
        if perfect:
            break
        start = cur
        for m in range(d + 1):
            if m < d:
                lam, best, gamma = 0.0, np.inf, 0.0
                lams = np.empty(gammas.size)
                scores = np.empty(gammas.size)
                for g in range(gammas.size):
                    for j in range(n):
                        D[j] = -(Xa[j, m] + gammas[g])
                    lams[g], scores[g] = line_search(V, D, y, total, code, RULE_SMALLEST,
                                                     no_draws, weights)
                    best = min(best, scores[g])
                if not np.isfinite(best):
                    continue
                for g in range(gammas.size):  # the first gamma within noise of the best
                    if scores[g] <= best + SCORE_EPS:
                        lam, gamma = lams[g], gammas[g]
                        break
            else:
                D[:] = -1.0
                lam, _ = line_search(V, D, y, total, code, RULE_SMALLEST, no_draws, weights)
                gamma = 1.0  # the constant alone: a_{d+1} -= lambda
            if max(abs(lam), abs(lam * gamma)) <= TOLERANCE:
                continue
            trial[:] = a
            if m < d:
                trial[m] -= lam
            trial[d] -= lam * gamma
            hyperplane_values(Xa, trial, V_new)
            s, p_new = partition_score(V_new, y, total, code, weights)
            if s <= cur + SCORE_EPS:
                a[:] = trial
                V[:] = V_new
                cur = min(s, cur)
                perfect = p_new
                if perfect:
                    break
        if cycle > 0 and start - cur < TOLERANCE:
            break
    return cur
