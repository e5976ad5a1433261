"""GDT's search at a node (Manwani & Sastry, arXiv:1009.3604, eqs. 1-3, §II-B;
``obliq_cli.algorithms.gdt``): the augmented scatter of a class's rows, the columns a
node keeps (those not a linear combination of the bias and earlier columns on its rows)
and the most favoured direction of two scatters, each in one compiled call, on this
layer's fixed-order products and its tridiagonal QL eigensolver (``linalg.eigh_ql``,
``linalg.eigh_generalized_factored``).
"""

from __future__ import annotations

import numpy as np

from . import compiled, linalg

EPS = np.finfo(np.float64).eps


@compiled
def augmented_scatter(rows, weights=None):
    """(1/n) sum x~ x~' over the rows of ``rows`` [n, d], x~ = [x, 1] (G or H).

    ``weights``: None, or each row's positive weight w_i: then (1/W) sum w_i x~ x~',
    W = sum w_i (weights summed in row order), the scatter of a class whose row i
    counts w_i times. Each product is scaled once (``w_i x_ij x_ik``, not added w_i
    times), so integer weights give the scatter of the repeated rows up to rounding.
    numba compiles the unweighted case without the weighted branch, and it stays the
    product and division of old to the bit."""
    n, d = rows.shape
    aug = np.empty((n, d + 1))
    for i in range(n):
        for j in range(d):
            aug[i, j] = rows[i, j]
        aug[i, d] = 1.0
    if weights is None:
        return linalg.crossprod(aug, aug) / n
    total = 0.0
    scaled = np.empty((n, d + 1))
    for i in range(n):
        total += weights[i]
        for j in range(d + 1):
            scaled[i, j] = weights[i] * aug[i, j]
    return linalg.crossprod(scaled, aug) / total


CERTAINTY_MARGIN = 1e4
"""How far a lower bound on den's smallest eigenvalue must clear numpy's rank
tolerance before :func:`most_favoured_direction` trusts it without den's
eigendecomposition (:func:`surely_above_rank_tolerance`)."""


@compiled
def surely_above_rank_tolerance(L, trace):
    """True when ``b = L L'`` (``L`` from ``linalg.cholesky``, ``trace`` b's trace)
    certainly has no eigenvalue within numpy's ``matrix_rank`` tolerance
    lambda_max p eps as ``linalg.eigh_ql`` would compute its eigenvalues; False when
    that is not certain (the caller then computes them).

    Why it is certain: b is positive definite, so lambda_max <= trace(b) and
    lambda_min = 1 / ||L^-1||_2^2 >= 1 / ||L^-1||_F^2 = 1 / trace(b^-1). The test asks
    this lower bound to exceed ``CERTAINTY_MARGIN`` (1e4) times p eps trace(b). The
    eigenvalues the Householder + QL solver returns are exact for b + E, and the
    Cholesky factor is exact for b + F, with ||E|| and ||F|| small multiples of
    p eps ||b|| (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.3 and §4.2.6;
    the multiple grows slowly with p and the QL iterations, two or three an
    eigenvalue), so a computed smallest eigenvalue lies above the tolerance with a
    factor of about 1e4 to spare. ||L^-1||_F^2 costs p^3 / 6 multiplications, against
    the 4p^3 / 3 of the reduction and the accumulated rotations it saves."""
    p = L.shape[0]
    z = np.empty(p)
    inverse_sq = 0.0
    for c in range(p):  # column c of L^-1 by forward substitution on e_c
        for i in range(c, p):
            s = 1.0 if i == c else 0.0
            for k in range(c, i):
                s -= L[i, k] * z[k]
            z[i] = s / L[i, i]
            inverse_sq += z[i] * z[i]
    if not inverse_sq > 0.0 or inverse_sq != inverse_sq or trace != trace:
        return False
    return 1.0 / inverse_sq > CERTAINTY_MARGIN * p * EPS * trace


@compiled
def most_favoured_direction(num, den, trace_num, try_generalized):
    """``(w, found)``: the w maximising w'num w / w'den w, or the null-space rule.

    With ``den`` positive definite (no eigenvalue within numpy's ``matrix_rank``
    tolerance) w is the top generalized eigenvector of num w = lambda den w, through
    den's Cholesky factor. Otherwise, or when that factorisation fails (or
    ``try_generalized`` is False, the tests' way into that branch), w is the principal
    eigenvector of Q'num Q mapped back by Q, an orthonormal basis of den's null space
    (its eigenvectors within the tolerance, or within 100 times it or the smallest when
    the factorisation failed). ``found`` is False when num vanishes on that space
    (``trace_num`` is numpy's ``np.trace(num)``: numpy sums in its own order).

    den's eigenvalues decide the branch; when its Cholesky factor already proves them
    all above the tolerance (:func:`surely_above_rank_tolerance`), the decomposition is
    skipped and the same branch taken with the same factor. That halves the time of a
    GDT fit on letter and changes no result.
    """
    p = den.shape[0]
    L, factored = linalg.cholesky(den)
    if try_generalized and factored:
        trace_den = 0.0
        for j in range(p):
            trace_den += den[j, j]
        if surely_above_rank_tolerance(L, trace_den):
            _, vectors = linalg.eigh_generalized_factored(num, L)
            return vectors[:, -1].copy(), True
    evals, evecs = linalg.eigh_ql(den)
    # numpy's matrix_rank tolerance: scaled features (vehicle's span 1e0..1e3) make
    # den badly conditioned but not singular, and must not take the null-space path.
    tolerance = max(abs(evals[-1]), 1e-300) * p * EPS
    null = evals <= tolerance
    if not null.any():
        if try_generalized and factored:
            _, vectors = linalg.eigh_generalized_factored(num, L)
            return vectors[:, -1].copy(), True
        # den's Cholesky factor fails: den is singular to working precision though
        # its smallest eigenvalue lies just above the rank tolerance (a column that
        # is constant on the class, after standardising). It is rank-deficient, so
        # the null-space rule applies to its (numerically) vanishing eigenvalues.
        null = evals <= max(100 * tolerance, evals[0])
    Q = np.empty((p, int(null.sum())))
    c = 0
    for j in range(p):
        if null[j]:
            Q[:, c] = evecs[:, j]
            c += 1
    inner = linalg.matmul(linalg.matmul(Q.T, num), Q)
    values, vectors = linalg.eigh_ql((inner + inner.T) / 2)
    if values[-1] <= max(abs(trace_num), 1e-300) * num.shape[0] * EPS:
        return np.zeros(p), False
    return linalg.matvec(Q, vectors[:, -1]), True


@compiled
def unit_hyperplane(w):
    """``(w / |w[:-1]| * sign, ok)``: the sign makes the largest-magnitude entry of the
    non-bias part positive (the first of equal magnitude, ``tree.orientation``'s
    rule); ok is False below a norm of 1e-12."""
    norm = linalg.norm(w[:-1])
    if norm < 1e-12:
        return w, False
    head = w[:-1]
    sign = -1.0 if head[np.argmax(np.abs(head))] < 0 else 1.0
    return w / norm * sign, True


CONSTANT_TOLERANCE = 1e-7
"""A column is constant on some rows when its centred norm is at most this fraction of
its norm (:func:`independent_columns` says why this value)."""

COLUMN_TOLERANCE = 1e-4
"""A column is a linear combination of others on some rows when what is left of it
after its least-squares fit on them is at most this fraction of its centred norm
(:func:`independent_columns` says why this value)."""


@compiled
def independent_columns(rows):
    """Which columns of ``rows`` [n, d] to keep (a bool mask over the d columns): the
    bias first, then the columns in their order, each dropped when it is numerically
    constant on these rows or a linear combination of the bias and the columns kept
    before it.

    The test, column by column (modified Gram-Schmidt, Golub & Van Loan, *Matrix
    Computations*, 4th ed., §5.2.8, with a second pass that restores the orthogonality
    lost to rounding, in one fixed order): c is the norm of the column minus its mean
    (its residual on the bias), r the norm of what is left after also removing its
    projection on the kept columns. The column is constant when c <= CONSTANT_TOLERANCE
    |x| and a combination when r <= COLUMN_TOLERANCE c.

    Constant, 1e-7: an exactly constant column comes out at c = 0 (the second centring
    pass removes the rounding of the first mean), one constant up to rounding (a sum
    rounded differently row by row) at a few eps of |x|. Above 1e-7 GDT's eigensolver
    sees the column's spread in the uncentred scatter (its rank tolerance p eps is
    (1e-7)^2 for p near 45), so nothing it could use is dropped (a temperature in
    kelvin varying by 0.01 K has c / |x| = 3e-5).

    Combination, 1e-4 (1 - R^2 <= 1e-8): r / c = sqrt(1 - R^2) of the column's
    regression on the kept ones, so the test does not change when any column is shifted
    or scaled, as a tolerance on the raw scatter's eigenvalues would (vehicle's columns
    span 1e0..1e3). Data files keep 6 to 8 significant digits, so a column computed from
    others and stored satisfies its formula only to about 1e-7..1e-6 of its spread
    (segment's four derived colour columns: r / c = 1.5e-7 to 1.0e-6), while the other
    columns of the benchmark's sets with more rows than columns (all but srbct) have
    r / c >= 3e-2 (musk2; vehicle 4.5e-2, breast cancer 5.3e-2): 1e-4 sits a factor of
    100 or more from both.
    """
    n, d = rows.shape
    keep = np.ones(d, dtype=np.bool_)
    basis = np.empty((d, n))  # the kept columns, centred and orthonormalised
    k = 0
    v = np.empty(n)
    for j in range(d):
        for i in range(n):
            v[i] = rows[i, j]
        raw = linalg.norm(v)
        for _ in range(2):  # the bias, twice: the second pass removes the mean's rounding
            mean = 0.0
            for i in range(n):
                mean += v[i]
            mean /= n
            for i in range(n):
                v[i] -= mean
        centred = linalg.norm(v)
        if centred <= CONSTANT_TOLERANCE * raw:
            keep[j] = False
            continue
        for _ in range(2):
            for q in range(k):
                c = linalg.dot(basis[q], v)
                for i in range(n):
                    v[i] -= c * basis[q, i]
        left = linalg.norm(v)
        if left <= COLUMN_TOLERANCE * centred:
            keep[j] = False
            continue
        for i in range(n):
            basis[k, i] = v[i] / left
        k += 1
    return keep
