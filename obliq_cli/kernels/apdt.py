"""APDT's loops (Shah & Sastry 1999; ``obliq_cli.algorithms.apdt`` documents every
choice): the cyclic Perceptron and its separability count (§II), the score F(W, S^t)
of eq. 1 and the Alopex search over it (§II-B).
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .sums import numpy_pairwise_sum


@compiled
def perceptron_errors(Z, s, rows, w, c):
    """Summed weight ``c`` of the ``Z[rows]`` that ``w`` misclassifies (s w.z <= 0):
    their number when every weight is 1 (``c`` is indexed like ``Z``)."""
    d = Z.shape[1]
    wrong = 0.0
    for i in range(rows.size):
        r = rows[i]
        dot = 0.0
        for j in range(d):
            dot += Z[r, j] * w[j]
        if not s[r] * dot > 0.0:
            wrong += c[r]
    return wrong


@compiled
def perceptron(Z, s, rows, n_iter, pocket, c, settle=False, rho=0.6):
    """Cyclic Perceptron over ``Z[rows]`` (presentation order = ``rows``' order).

    Returns (final weights, per-pattern update counts, pocket weights, pocket errors).
    With ``pocket`` the hyperplane in hand at the end of every cycle through the rows
    (and at the end) is scored on all of them and the one with the least weight ``c`` of
    errors is kept (Gallant's pocket; -1 errors when not asked for). With ``settle``
    the run also stops at the end of cycle c once the patterns flagged by §II's rule
    (count >= rho M) have not changed since cycle c/2 (the "settled" reading). See the
    module docstring.
    """
    m, d = rows.size, Z.shape[1]
    w = np.zeros(d)
    counts = np.zeros(m, dtype=np.int64)
    best_w = w.copy()
    best_errors = -1.0
    pos = 0
    clean = 0
    flags = np.zeros(m, dtype=np.bool_)
    cycle = 0
    since = 0  # the last cycle at whose end the flagged set changed
    for _ in range(n_iter):
        r = rows[pos]
        dot = 0.0
        for j in range(d):
            dot += Z[r, j] * w[j]
        if s[r] * dot <= 0.0:
            for j in range(d):
                w[j] += s[r] * Z[r, j]
            counts[pos] += 1
            clean = 0
        else:
            clean += 1
            if clean >= m:
                break
        pos += 1
        if pos == m:
            pos = 0
            cycle += 1
            if settle:
                cut = rho * counts.max()
                changed = False
                for i in range(m):
                    flag = counts[i] >= cut
                    if flag != flags[i]:
                        flags[i] = flag
                        changed = True
                if changed:
                    since = cycle
                elif cycle >= 2 * since:
                    break  # settled for as many cycles as it took to settle
            if pocket:
                wrong = perceptron_errors(Z, s, rows, w, c)
                if best_errors < 0 or wrong < best_errors:
                    best_errors = wrong
                    best_w = w.copy()
                    if wrong == 0:
                        break
    if pocket:
        wrong = perceptron_errors(Z, s, rows, w, c)
        if best_errors < 0 or wrong < best_errors:
            best_errors = wrong
            best_w = w.copy()
    return w, counts, best_w, best_errors


@compiled
def perceptron_iterations(m, min_iterations, per_pass):
    """Presented patterns: max(min_iterations, m) iterations (§III), each one pattern
    (``per_pass`` False) or one full cycle through the m patterns (True)."""
    n_iter = max(min_iterations, m)
    return n_iter * m if per_pass else n_iter


@compiled
def count_nonseparable(Z, s, rows, rho, min_iterations, iteration, separability, c):
    """(nsp, w, separable) of ``Z[rows]``: see ``nonseparable`` (``iteration`` and
    ``separability`` are codes of the readings' tables above). ``nsp`` is the summed
    weight ``c`` (indexed like ``Z``) of the nonseparable patterns: their number when
    every weight is 1."""
    m, d = rows.size, Z.shape[1]
    w = np.zeros(d)
    if m == 0:
        return 0.0, w, False
    first = s[rows[0]]
    single = True
    for i in range(1, m):
        if s[rows[i]] != first:
            single = False
            break
    if single:
        return 0.0, w, False
    n_iter = perceptron_iterations(m, min_iterations, iteration >= 1)
    w, counts, pocket_w, pocket_errors = perceptron(Z, s, rows, n_iter, separability == 2, c,
                                                     iteration == 2, rho)
    if separability == 2:  # the fewest errors of any hyperplane seen
        if pocket_errors == 0:
            return 0.0, pocket_w, True
        return pocket_errors, pocket_w, False
    wrong = perceptron_errors(Z, s, rows, w, c)
    if wrong == 0:
        return 0.0, w, True
    if separability == 1:  # the errors of the final hyperplane
        return wrong, w, False
    cut = rho * counts.max()  # §II: updated at least rho M times
    nsp = 0.0
    for i in range(m):
        if counts[i] >= cut:
            nsp += c[rows[i]]
    return nsp, w, False


@compiled
def separability_score(n_left, n_right, nsp_left, nsp_right, M):
    """F(W, S^t) of eq. (1) from the children's sizes and nonseparable counts: F = R/M
    {I1 (n - n_l)/n + I2 (n - n_r)/n - I1 I2} + (1 - I1)(1 - I2) E, with E = ((nsp_l +
    nsp_r)/n)(1/2 - n_l n_r / n^2), R = 1/(2n), I = [nsp = 0 and the child is not empty]
    (``algorithms.apdt``'s docstring explains the empty child)."""
    n = n_left + n_right
    R = 1.0 / (2.0 * n)
    i1 = 1.0 if (nsp_left == 0 and n_left > 0) else 0.0
    i2 = 1.0 if (nsp_right == 0 and n_right > 0) else 0.0
    E = ((nsp_left + nsp_right) / n) * (0.5 - (n_left / n) * (n_right / n))
    A = (R / M) * (i1 * (n - n_left) / n + i2 * (n - n_right) / n - i1 * i2)
    return A + (1.0 - i1) * (1.0 - i2) * E


@compiled
def next_direction(x, u, dE, j, T, window, scale):
    """Eqs. (3)-(5): the temperature T(j) and x(j) from x(j-1), the uniforms ``u`` and
    the history dE; returns the new temperature (``x`` is updated in place). ``scale``
    multiplies the window's mean |dE| (1, or delta for eq. (5) as printed)."""
    if j % window == 0:
        abs_dE = np.abs(dE[j - window:j])
        T = scale * (numpy_pairwise_sum(abs_dE, 0, window) / window)
    if T > 0:
        p = 1.0 / (1.0 + np.exp(min(dE[j] / T, 700.0)))
    else:
        p = 0.5 if dE[j] == 0 else (1.0 if dE[j] < 0 else 0.0)
    for i in range(x.size):
        if not u[i] < p:
            x[i] = -x[i]
    return T


@compiled
def alopex_split(Z, s, w0, uniforms, delta, temperature0, window, scale, rho, M,
                  min_iterations, iteration, separability, c):
    """Alopex (§II-B) over F(W, S^t) at one node, as ``alopex`` runs it with stop_at=0.

    ``Z`` holds the node's augmented patterns in presentation order, ``s`` labels +-1,
    ``uniforms`` the (n_iter, d) uniform draws: row 0 gives x(0), row k-1 gives x(k-1);
    ``scale`` the temperature's factor, the last three the Perceptron's readings
    (``iteration`` a code of ``PERCEPTRON_ITERATION_CODES``), ``c`` the patterns' weights
    (F reads the children's summed weights and nonseparable weights; all 1 unweighted).
    Returns (the best W that sends rows both ways, whether there is one, the number of
    rows of ``uniforms`` used). F depends on W only through the partition, so each
    partition is scored once: an open-addressing table keyed by the packed partition,
    compared word by word (no hash is trusted).
    """
    m, d = Z.shape
    n_iter = uniforms.shape[0]
    n_words = (m + 63) // 64
    size = 1
    while size < 2 * (n_iter + 1):
        size *= 2
    slots = np.full(size, -1, dtype=np.int64)
    keys = np.zeros((n_iter + 1, n_words), dtype=np.uint64)
    values = np.zeros(n_iter + 1)
    n_keys = 0
    packed = np.zeros(n_words, dtype=np.uint64)
    rows_l = np.empty(m, dtype=np.int64)
    rows_r = np.empty(m, dtype=np.int64)
    best_w = w0.copy()
    found = False
    best_split = np.inf
    w = w0.copy()
    x = np.empty(d)
    dE = np.zeros(n_iter + 1)  # dE[k] = E(W(k)) - E(W(k-1)); dE[0] = 0
    T = temperature0
    e_prev = 0.0
    best_e = np.inf
    used = 0
    for k in range(n_iter + 1):
        if k == 1:
            for i in range(d):
                x[i] = -1.0 if uniforms[0, i] < 0.5 else 1.0
            used = 1
        elif k >= 2:
            T = next_direction(x, uniforms[k - 1], dE, k - 1, T, window, scale)
            used = k
        if k >= 1:
            for i in range(d):
                w[i] = w[i] + delta * x[i]
        # The partition W.z <= 0 (left), packed into bits and as two row lists.
        packed[:] = 0
        n_left = 0
        n_right = 0
        c_left = 0.0
        c_right = 0.0
        for i in range(m):
            dot = 0.0
            for j in range(d):
                dot += Z[i, j] * w[j]
            if dot <= 0.0:
                packed[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
                rows_l[n_left] = i
                n_left += 1
                c_left += c[i]
            else:
                rows_r[n_right] = i
                n_right += 1
                c_right += c[i]
        h = np.uint64(0)  # rotate-and-xor over the words (no overflow, in Python too)
        for q in range(n_words):
            h = ((h << np.uint64(13)) | (h >> np.uint64(51))) ^ packed[q]
        h ^= h >> np.uint64(29)
        h ^= h >> np.uint64(17)
        slot = np.int64(h & np.uint64(size - 1))
        e = np.nan
        while slots[slot] >= 0:
            entry = slots[slot]
            same = True
            for q in range(n_words):
                if keys[entry, q] != packed[q]:
                    same = False
                    break
            if same:
                e = values[entry]
                break
            slot = (slot + 1) & (size - 1)
        if slots[slot] < 0:  # a new partition: run the Perceptron on both children
            nsp_l = nsp_r = 0.0
            if n_left:
                nsp_l = count_nonseparable(Z, s, rows_l[:n_left], rho, min_iterations,
                                      iteration, separability, c)[0]
            if n_right:
                nsp_r = count_nonseparable(Z, s, rows_r[:n_right], rho, min_iterations,
                                      iteration, separability, c)[0]
            e = separability_score(c_left, c_right, nsp_l, nsp_r, M)
            keys[n_keys] = packed
            values[n_keys] = e
            slots[slot] = n_keys
            n_keys += 1
            if 0 < n_left < m and e < best_split:
                best_split = e
                best_w = w.copy()
                found = True
        if k >= 1:
            dE[k] = e - e_prev
        e_prev = e
        if k == 0 or e < best_e:
            best_e = e
            if best_e <= 0.0:  # Table I, step 4: both children separable
                break
    return best_w, found, used
