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
  dsygv uses); :func:`eigh_generalized_factored` when L is at hand.

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
    C = _lower_symmetric(C)
    VT = np.eye(n)
    _jacobi(C, VT)
    # x = L^-T z by back substitution, column by column (z = row c of VT)
    X = np.empty((n, n))
    for c in range(n):
        for i in range(n - 1, -1, -1):
            s = VT[c, i]
            for k in range(i + 1, n):
                s -= L[k, i] * X[k, c]
            X[i, c] = s / L[i, i]
    w = np.empty(n)
    for i in range(n):
        w[i] = C[i, i]
    return _orient_and_sort(w, X)
