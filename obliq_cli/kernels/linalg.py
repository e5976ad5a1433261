"""Linear algebra whose every result is fixed by the data alone, not by the BLAS/LAPACK
kernel numpy happens to load.

numpy's ``@``, ``np.dot``, ``np.linalg.norm``, ``np.cov`` and ``eigh`` go to OpenBLAS,
which picks a kernel for the CPU at run time (``OPENBLAS_CORETYPE``): each sums a dot
product in its own order (SIMD width, unrolling, blocking, threads), and LAPACK's
eigensolvers inherit those orders. The results differ in the last bits, and wherever
such a number feeds a discrete decision (which side of a hyperplane a row lies on, a
threshold between tied projections, an argmax, the basis a degenerate eigenspace is
given) a tree grown on one machine differs from the tree grown on another.

Everything here is a plain loop compiled by numba without ``fastmath``, so no sum is
reordered and no multiply-add is fused: a dot product is always
``((x_0 y_0 + x_1 y_1) + x_2 y_2) + ...``. Running the same functions as Python
(``NUMBA_DISABLE_JIT=1``) gives bit-for-bit the same numbers
(tests/kernels/test_linalg.py checks it, and checks each result against LAPACK's).

- products: :func:`dot`, :func:`norm`, :func:`matvec`, :func:`rows_matvec`,
  :func:`rowwise_dot`, :func:`matmul`, :func:`crossprod` (``A' B`` summed over rows),
  :func:`covariance`.
- symmetric eigenproblems: :func:`eigh`, the cyclic Jacobi method (Golub & Van Loan,
  *Matrix Computations*, 4th ed., §8.5.2-8.5.3; the rotation formulas and the
  "negligible against the diagonal" test as in Press et al., *Numerical Recipes*,
  §11.1), which sweeps the pairs (p, q) in one fixed order and so returns one fixed
  basis even for repeated eigenvalues; :func:`eigh_generalized` for ``A x = lambda B x``
  with B symmetric positive definite, through the Cholesky factor B = L L' and the
  standard problem of L^-1 A L^-T (Golub & Van Loan §8.7.2, the reduction LAPACK's
  dsygv uses), whose standard problem goes to :func:`eigh_ql`;
  :func:`eigh_generalized_factored` when L is at hand.
- :func:`eigh_ql`, :func:`eigh`'s contract by Householder tridiagonalisation and the
  implicit QL method with Wilkinson's shift (the scheme of EISPACK's tred2 and tql2;
  Golub & Van Loan §8.3), also in one fixed order and so with one fixed basis for a
  repeated eigenvalue, though another than Jacobi's: about 2.8x faster at p = 17 and
  30x at p = 300. GDT solves its eigenproblems with it; the other callers keep
  :func:`eigh`, whose bases their stored trees were grown with.

Eigenvalues come in ascending order (LAPACK's), eigenvectors as columns; each
eigenvector is returned with its largest-magnitude entry positive (the first of equal
magnitude), ``orientation.canonical_signs``'s rule, so no caller sees a sign that
depends on rounding. Generalized eigenvectors are B-normalised (x' B x = 1), as
dsygv returns them. Only the lower triangles of the symmetric inputs are read (numpy's
and scipy's default).

These are for the small matrices of a node's search (p x p, p the features) and for
projections of rows onto one hyperplane; the sorted sweeps themselves are already
compiled loops elsewhere.
"""

from __future__ import annotations

import math

import numpy as np

from . import compiled

_MAX_SWEEPS = 100
"""Jacobi sweeps before giving up (convergence is quadratic: 6-10 sweeps in practice)."""


# ------------------------------------------------------------------ products
@compiled
def dot(a, b):
    """sum_i a[i] b[i], summed from i = 0 upwards."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@compiled
def norm(a):
    """The Euclidean norm sqrt(a . a) (no scaling against overflow, as BLAS's ddot
    route of ``np.linalg.norm`` has none)."""
    return math.sqrt(dot(a, a))


@compiled
def matvec(A, x):
    """``A @ x`` for a 2-D ``A``: row i is ``dot(A[i], x)``."""
    n, p = A.shape
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(p):
            s += A[i, j] * x[j]
        out[i] = s
    return out


@compiled
def rows_matvec(A, rows, x):
    """``A[rows] @ x`` without copying the rows: entry i is ``dot(A[rows[i]], x)``."""
    n = rows.shape[0]
    p = A.shape[1]
    out = np.empty(n)
    for i in range(n):
        r = rows[i]
        s = 0.0
        for j in range(p):
            s += A[r, j] * x[j]
        out[i] = s
    return out


@compiled
def rowwise_dot(A, B):
    """``dot(A[i], B[i])`` for every row i of two equally shaped 2-D arrays."""
    n, p = A.shape
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(p):
            s += A[i, j] * B[i, j]
        out[i] = s
    return out


@compiled
def matmul(A, B):
    """``A @ B`` for 2-D arrays; entry (i, k) is summed over j from 0 upwards."""
    n, m = A.shape
    q = B.shape[1]
    C = np.zeros((n, q))
    for i in range(n):
        for j in range(m):
            a = A[i, j]
            for k in range(q):
                C[i, k] += a * B[j, k]
    return C


@compiled
def crossprod(A, B):
    """``A.T @ B`` for 2-D arrays with the same rows; entry (j, k) is summed over the
    rows from the first to the last."""
    n, p = A.shape
    q = B.shape[1]
    C = np.zeros((p, q))
    for i in range(n):
        for j in range(p):
            a = A[i, j]
            for k in range(q):
                C[j, k] += a * B[i, k]
    return C


@compiled
def covariance(X, weights=None):
    """The sample covariance (divisor n - 1) of the rows of ``X`` [n, p], n >= 2,
    as ``np.cov(X, rowvar=False)`` defines it: column means first (summed in row
    order), then the centred cross products summed in row order.

    ``weights``: None, or each row's (frequency) weight, summing to W > 1: weighted
    means and cross products over ``W - 1`` (``np.cov(X, rowvar=False, fweights=w)``
    for integer weights), so weights of 1 give the unweighted covariance to the bit and
    integer weights that of the rows repeated up to rounding (``3 x`` is added once,
    not ``x`` three times). numba compiles the unweighted case without the weighted
    branches."""
    n, p = X.shape
    mean = np.zeros(p)
    total = float(n)
    if weights is not None:
        total = 0.0
        for i in range(n):
            total += weights[i]
    for i in range(n):
        for j in range(p):
            if weights is None:
                mean[j] += X[i, j]
            else:
                mean[j] += weights[i] * X[i, j]
    for j in range(p):
        mean[j] /= total
    C = np.zeros((p, p))
    d = np.empty(p)
    for i in range(n):
        for j in range(p):
            d[j] = X[i, j] - mean[j]
        for j in range(p):
            for k in range(j + 1):
                if weights is None:
                    C[j, k] += d[j] * d[k]
                else:
                    C[j, k] += weights[i] * d[j] * d[k]
    for j in range(p):
        for k in range(j + 1):
            C[j, k] /= total - 1
            C[k, j] = C[j, k]
    return C


# ------------------------------------------------------------------ eigenproblems
@compiled
def _orient_and_sort(w, V):
    """Sort eigenpairs by ascending eigenvalue (stable: equal values keep their
    order) and give every eigenvector its largest-magnitude entry positive."""
    n = w.shape[0]
    order = np.arange(n)
    for i in range(1, n):  # insertion sort: n is small and the order must be stable
        k = order[i]
        j = i - 1
        while j >= 0 and w[order[j]] > w[k]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = k
    m = V.shape[0]
    w_out = np.empty(n)
    V_out = np.empty((m, n))
    for c in range(n):
        src = order[c]
        w_out[c] = w[src]
        big = 0
        for r in range(m):
            if abs(V[r, src]) > abs(V[big, src]):
                big = r
        sign = -1.0 if V[big, src] < 0.0 else 1.0
        for r in range(m):
            V_out[r, c] = sign * V[r, src]
    return w_out, V_out


@compiled
def _jacobi(A, VT):
    """Diagonalise the symmetric ``A`` by cyclic Jacobi rotations, applying them to the
    rows of ``VT`` too (the eigenvectors are its rows: rows are contiguous). ``A`` is
    full and kept symmetric: a rotation updates rows p and q along memory and copies
    them into columns p and q. Pairs are visited row by row, (0, 1), (0, 2), ...,
    (n - 2, n - 1), in every sweep.

    Each rotation's c and s come from three divisions and two square roots that
    depend on the rotation before it, so the sweep is a serial chain: the rotations
    themselves bound the time, not the row updates."""
    n = A.shape[0]
    m = VT.shape[1]
    for sweep in range(_MAX_SWEEPS):
        off = 0.0
        for p in range(n):
            for q in range(p + 1, n):
                off += abs(A[p, q])
        if off == 0.0 or off != off:  # diagonal, or NaN input: nothing to gain
            return
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                app = A[p, p]
                aqq = A[q, q]
                g = 100.0 * abs(apq)
                if sweep > 3 and abs(app) + g == abs(app) and abs(aqq) + g == abs(aqq):
                    # below the last bit of both diagonal entries: rotating would not
                    # change them, so the entry is rounding noise (Numerical Recipes).
                    A[p, q] = 0.0
                    A[q, p] = 0.0
                    continue
                h = aqq - app
                if abs(h) + g == abs(h):
                    t = apq / h  # theta huge: t = 1 / (2 theta) without overflowing
                else:
                    theta = 0.5 * h / apq
                    t = 1.0 / (abs(theta) + math.sqrt(1.0 + theta * theta))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = t * c
                # J' A J: entries (k, p) and (k, q) for every k, as rows p and q; the
                # (p, q) block is then set in closed form (rotated pivots, the pair
                # annihilated) and the rows copied into the columns
                row_p = A[p]
                row_q = A[q]
                for k in range(n):
                    akp = row_p[k]
                    akq = row_q[k]
                    row_p[k] = c * akp - s * akq
                    row_q[k] = s * akp + c * akq
                row_p[p] = app - t * apq
                row_q[q] = aqq + t * apq
                row_p[q] = 0.0
                row_q[p] = 0.0
                for k in range(n):
                    A[k, p] = row_p[k]
                    A[k, q] = row_q[k]
                for k in range(m):
                    vkp = VT[p, k]
                    vkq = VT[q, k]
                    VT[p, k] = c * vkp - s * vkq
                    VT[q, k] = s * vkp + c * vkq


_MAX_QL_ITERATIONS = 60
"""QL iterations for one eigenvalue before giving up (EISPACK's tql2 allows 30; two to
three are typical, since convergence with Wilkinson's shift is cubic)."""


@compiled
def _pythag(a, b):
    """sqrt(a^2 + b^2) without overflow or harmful underflow, in one fixed formula
    (``math.hypot`` is libm's in numba and Python's own in Python: they may round
    differently)."""
    x = abs(a)
    y = abs(b)
    if x < y:
        x, y = y, x
    if x == 0.0:
        return 0.0
    r = y / x
    return x * math.sqrt(1.0 + r * r)


@compiled
def _tridiagonalize(A):
    """Householder reduction of the full symmetric ``A`` (overwritten; its lower
    triangle is worked on) to tridiagonal form: ``(d, e, QT)`` with Q' A Q the
    tridiagonal matrix of diagonal ``d`` and subdiagonal ``e`` (``e[i]`` couples i - 1
    and i, ``e[0] = 0``), Q orthogonal and ``QT`` = Q' (Q's columns as rows).

    Rows are reduced from the last upwards, as EISPACK's tred2 does (Golub & Van Loan,
    *Matrix Computations*, 4th ed., §8.3.1; Wilkinson & Reinsch, *Handbook for
    Automatic Computation* II, contribution II/2): for row i the reflector
    H = I - u u' / h maps x = A[i, :i] onto a multiple of e_{i-1}, x scaled by its
    1-norm first so no square overflows, and u's last entry x_{i-1} - g with g of the
    opposite sign to x_{i-1} (no cancellation); the leading i x i block becomes
    H B H = B - u q' - q u' with p = B u / h and q = p - (u'p / 2h) u. Q' is then
    accumulated as H_1 H_2 ... H_{n-1} (each H symmetric), applied to rows."""
    n = A.shape[0]
    d = np.empty(n)
    e = np.zeros(n)
    U = np.zeros((n, n))  # row i: the reflector of row i (entries 0..i-1)
    hs = np.zeros(n)  # its u'u / 2; 0 where row i needed none
    p = np.empty(n)
    for i in range(n - 1, 0, -1):
        scale = 0.0
        for k in range(i):
            scale += abs(A[i, k])
        if i == 1 or scale == 0.0:  # nothing left of the subdiagonal to annihilate
            e[i] = A[i, i - 1]
            continue
        u = U[i]
        h = 0.0
        for k in range(i):
            u[k] = A[i, k] / scale
            h += u[k] * u[k]
        f = u[i - 1]
        g = math.sqrt(h)
        if f >= 0.0:
            g = -g
        e[i] = scale * g
        h -= f * g
        u[i - 1] = f - g
        hs[i] = h
        # p = B u / h over the leading block B, read from its lower triangle
        up = 0.0
        for j in range(i):
            s = 0.0
            for k in range(j + 1):
                s += A[j, k] * u[k]
            for k in range(j + 1, i):
                s += A[k, j] * u[k]
            p[j] = s / h
            up += u[j] * p[j]
        half = up / (h + h)
        for j in range(i):
            p[j] -= half * u[j]  # q
        for j in range(i):
            uj = u[j]
            qj = p[j]
            for k in range(j + 1):
                A[j, k] -= uj * p[k] + qj * u[k]
    for i in range(n):
        d[i] = A[i, i]
    # Q' = H_1 H_2 ... H_{n-1}: start from the identity and multiply by H_{n-1} first,
    # then H_{n-2}, ... from the left (H M = M - u (u'M) / h; u lives in rows 0..i-1)
    QT = np.eye(n)
    r = np.empty(n)
    for i in range(n - 1, 0, -1):
        h = hs[i]
        if h == 0.0:
            continue
        u = U[i]
        for c in range(n):
            r[c] = 0.0
        for k in range(i):
            uk = u[k]
            for c in range(n):
                r[c] += uk * QT[k, c]
        for k in range(i):
            f = u[k] / h
            for c in range(n):
                QT[k, c] -= f * r[c]
    return d, e, QT


@compiled
def _tridiagonal_ql(d, e, ZT):
    """Diagonalise the symmetric tridiagonal matrix of diagonal ``d`` and subdiagonal
    ``e`` (``e[i]`` couples i - 1 and i; both overwritten, ``d`` ends as the
    eigenvalues, unsorted) by the implicit QL method with Wilkinson's shift, applying
    every rotation to the rows of ``ZT`` as well (so rows of Q' become the eigenvectors
    of Q T Q').

    The scheme of EISPACK's tql2 / imtql2 (Golub & Van Loan §8.3.5 for the implicit
    shifted step, written for QL; Press et al., *Numerical Recipes*, §11.3): for each l
    from the top, find the first m >= l whose coupling e to m + 1 is negligible
    (|e| + |d_m| + |d_{m+1}| == |d_m| + |d_{m+1}|, so in working precision, not
    against a tolerance); while m > l, shift by the eigenvalue of the leading 2 x 2
    block of rows l..l+1 nearer d_l and chase the bulge from m up to l with plane
    rotations. Every step is in one fixed order, and the only roots are the ones
    written (``_pythag``), so the same input gives the same bits anywhere."""
    n = d.shape[0]
    for i in range(1, n):  # e[i] now couples i and i + 1
        e[i - 1] = e[i]
    if n > 0:
        e[n - 1] = 0.0
    m_cols = ZT.shape[1]
    for l in range(n):
        for _ in range(_MAX_QL_ITERATIONS):
            m = l
            while m < n - 1:
                dd = abs(d[m]) + abs(d[m + 1])
                if abs(e[m]) + dd == dd:
                    break
                m += 1
            if m == l:
                break
            # Wilkinson's shift: g = d_m - mu, mu the eigenvalue of rows l, l+1 near d_l
            g = (d[l + 1] - d[l]) / (2.0 * e[l])
            r = _pythag(g, 1.0)
            g = d[m] - d[l] + e[l] / (g + (r if g >= 0.0 else -r))
            s = 1.0
            c = 1.0
            p = 0.0
            underflow = False
            for i in range(m - 1, l - 1, -1):
                f = s * e[i]
                b = c * e[i]
                r = _pythag(f, g)
                e[i + 1] = r
                if r == 0.0:  # the bulge vanished: the block splits at i + 1
                    d[i + 1] -= p
                    e[m] = 0.0
                    underflow = True
                    break
                s = f / r
                c = g / r
                g = d[i + 1] - p
                r = (d[i] - g) * s + 2.0 * c * b
                p = s * r
                d[i + 1] = g + p
                g = c * r - b
                row_i = ZT[i]
                row_j = ZT[i + 1]
                for k in range(m_cols):
                    zi = row_i[k]
                    zj = row_j[k]
                    row_j[k] = s * zi + c * zj
                    row_i[k] = c * zi - s * zj
            if underflow:
                continue
            d[l] -= p
            e[l] = g
            e[m] = 0.0


@compiled
def _ql_eigen(A):
    """(eigenvalues unsorted, eigenvectors as rows) of the full symmetric ``A``
    (overwritten): :func:`_tridiagonalize`, then :func:`_tridiagonal_ql`."""
    d, e, ZT = _tridiagonalize(A)
    _tridiagonal_ql(d, e, ZT)
    return d, ZT


@compiled
def eigh_ql(a):
    """(eigenvalues ascending, unit eigenvectors as columns) of the symmetric ``a``
    (its lower triangle), by Householder tridiagonalisation and implicit QL with
    Wilkinson's shift (module docstring): :func:`eigh`'s contract, about three times
    faster on GDT's 17 x 17 scatters, with other last bits and, for a repeated
    eigenvalue, another (equally fixed) basis of its eigenspace.

    Order and signs are :func:`eigh`'s (``_orient_and_sort``): eigenvalues ascending,
    equal ones in the order the QL sweep leaves them (a stable sort); each eigenvector
    with its largest-magnitude entry positive, the first of equal magnitude. A NaN in
    ``a`` gives NaNs after at most ``_MAX_QL_ITERATIONS`` per eigenvalue, not a hang."""
    w, ZT = _ql_eigen(_lower_symmetric(a))
    return _orient_and_sort(w, ZT.T)


@compiled
def _lower_symmetric(a):
    """A full symmetric copy of ``a`` built from its lower triangle."""
    n = a.shape[0]
    A = np.empty((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = a[i, j]
            A[j, i] = a[i, j]
    return A


@compiled
def eigh(a):
    """(eigenvalues ascending, unit eigenvectors as columns) of the symmetric ``a``
    (its lower triangle), by cyclic Jacobi (module docstring)."""
    n = a.shape[0]
    A = _lower_symmetric(a)
    VT = np.eye(n)
    _jacobi(A, VT)
    w = np.empty(n)
    for i in range(n):
        w[i] = A[i, i]
    return _orient_and_sort(w, VT.T)


@compiled
def cholesky(b):
    """(L, ok): the lower Cholesky factor of the symmetric ``b`` (its lower triangle),
    b = L L'; ok is False (and L unusable) when a pivot is not positive, i.e. b is not
    positive definite to working precision (LAPACK dpotrf's test)."""
    n = b.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        d = b[j, j]
        for k in range(j):
            d -= L[j, k] * L[j, k]
        if not d > 0.0:  # also catches NaN
            return L, False
        ljj = math.sqrt(d)
        L[j, j] = ljj
        for i in range(j + 1, n):
            s = b[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / ljj
    return L, True


@compiled
def eigh_generalized(a, b):
    """(eigenvalues ascending, eigenvectors as columns, ok) of ``a x = lambda b x`` with
    ``a`` symmetric and ``b`` symmetric positive definite (lower triangles read). The
    eigenvectors are b-normalised (x' b x = 1) and sign-fixed; ok is False when b's
    Cholesky factorisation fails (then the other two are unusable)."""
    n = a.shape[0]
    L, ok = cholesky(b)
    if not ok:
        return np.zeros(n), np.zeros((n, n)), False
    w, X = eigh_generalized_factored(a, L)
    return w, X, True


@compiled
def eigh_generalized_factored(a, L):
    """(eigenvalues ascending, eigenvectors as columns) of ``a x = lambda b x`` given
    b's lower Cholesky factor ``L`` (from :func:`cholesky`): :func:`eigh_generalized`
    for a caller that has factored b already."""
    n = a.shape[0]
    A = _lower_symmetric(a)
    # Y = L^-1 A by forward substitution, one column at a time
    Y = np.empty((n, n))
    for c in range(n):
        for i in range(n):
            s = A[i, c]
            for k in range(i):
                s -= L[i, k] * Y[k, c]
            Y[i, c] = s / L[i, i]
    # C = L^-1 Y' = L^-1 A L^-T (A symmetric); only its lower triangle is kept
    C = np.empty((n, n))
    for c in range(n):
        for i in range(n):
            s = Y[c, i]
            for k in range(i):
                s -= L[i, k] * C[k, c]
            C[i, c] = s / L[i, i]
    w, VT = _ql_eigen(_lower_symmetric(C))
    # x = L^-T z by back substitution, column by column (z = row c of VT)
    X = np.empty((n, n))
    for c in range(n):
        for i in range(n - 1, -1, -1):
            s = VT[c, i]
            for k in range(i + 1, n):
                s -= L[k, i] * X[k, c]
            X[i, c] = s / L[i, i]
    return _orient_and_sort(w, X)
