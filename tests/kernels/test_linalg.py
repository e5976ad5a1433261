"""kernels/linalg.py: fixed-order products and eigensolvers.

Each kernel is checked three ways: against numpy/scipy (BLAS and LAPACK) to rounding,
eigenvectors up to sign; compiled against the same code run as Python
(``NUMBA_DISABLE_JIT=1`` in a subprocess), bit for bit; and on hand-worked cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

from obliq_cli.kernels import linalg

ROOT = Path(__file__).resolve().parents[2]


def _spd(rng, n, rank=None):
    M = rng.normal(size=(rank if rank is not None else n + 3, n))
    return M.T @ M


def _symmetric(rng, n):
    M = rng.normal(size=(n, n))
    return M + M.T


def _lapack_signs(vectors):
    """LAPACK's eigenvectors with linalg's sign rule (largest |entry| positive)."""
    pivot = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])]
    return vectors * np.where(pivot < 0, -1.0, 1.0)


def _cases():
    """Inputs for every kernel, fixed by a seed (shared with the subprocess)."""
    rng = np.random.default_rng(42)
    X = rng.normal(size=(37, 6)) * np.array([1.0, 1e3, 1e-3, 5.0, 1.0, 0.1])
    w = rng.normal(size=6)
    rows = np.array([5, 0, 36, 2, 2, 17])
    B = rng.normal(size=(6, 4))
    out = {
        "dot": linalg.dot(X[0], w),
        "norm": linalg.norm(X[1]),
        "matvec": linalg.matvec(X, w),
        "rows_matvec": linalg.rows_matvec(X, rows, w),
        "rowwise_dot": linalg.rowwise_dot(X, X[::-1].copy()),
        "matmul": linalg.matmul(X, B),
        "crossprod": linalg.crossprod(X, X),
        "covariance": linalg.covariance(X),
    }
    for n in (1, 2, 5, 12):
        a, b = _symmetric(rng, n), _spd(rng, n) + np.eye(n)
        out[f"eigh{n}"] = linalg.eigh(a)
        out[f"eigh_ql{n}"] = linalg.eigh_ql(a)
        values, vectors, ok = linalg.eigh_generalized(a, b)
        out[f"gen{n}"] = (values, vectors, np.array([ok]))
    out["eigh_rank1"] = linalg.eigh(linalg.covariance(X[:2]))
    out["eigh_ql_rank1"] = linalg.eigh_ql(linalg.covariance(X[:2]))
    out["eigh_ql_scaled"] = linalg.eigh_ql(linalg.covariance(X))
    return out


def _flat(results) -> dict:
    """Every number of ``_cases()`` as the hex of its float, for exact comparison."""
    flat = {}
    for name, value in results.items():
        parts = value if isinstance(value, tuple) else (value,)
        flat[name] = [[float(x).hex() for x in np.ravel(np.asarray(p, dtype=np.float64))]
                      for p in parts]
    return flat


def test_compiled_kernels_equal_the_same_code_run_as_python():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    here = str(Path(__file__).parent)
    code = (f"import json, sys; sys.path.insert(0, {here!r}); import test_linalg as t; "
            "print(json.dumps(t._flat(t._cases())))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600, check=True)
    python = json.loads(done.stdout)
    compiled = _flat(_cases())
    assert linalg.eigh.__class__.__name__ == "CPUDispatcher"  # compiled in this process
    assert python == compiled


def test_products_agree_with_blas():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 7))
    w = rng.normal(size=7)
    B = rng.normal(size=(7, 3))
    rows = rng.integers(0, 50, size=20)
    assert linalg.dot(X[0], w) == pytest.approx(X[0] @ w, rel=1e-13)
    assert linalg.norm(X[0]) == pytest.approx(np.linalg.norm(X[0]), rel=1e-14)
    np.testing.assert_allclose(linalg.matvec(X, w), X @ w, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(linalg.rows_matvec(X, rows, w), X[rows] @ w, rtol=1e-12,
                               atol=1e-13)
    np.testing.assert_allclose(linalg.rowwise_dot(X, X), np.einsum("ij,ij->i", X, X),
                               rtol=1e-13)
    np.testing.assert_allclose(linalg.matmul(X, B), X @ B, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(linalg.matmul(X.T, X), X.T @ X, rtol=1e-12, atol=1e-12)
    Y = rng.normal(size=(50, 3))
    np.testing.assert_allclose(linalg.crossprod(X, Y), X.T @ Y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(linalg.covariance(X), np.cov(X, rowvar=False), rtol=1e-12,
                               atol=1e-14)


def test_the_sum_order_is_the_written_one():
    # (1e16 + 1) + ... in order keeps losing the 1s; a tree-shaped sum would keep them
    a = np.array([1e16, 1.0, 1.0, 1.0, 1.0, -1e16])
    ones = np.ones(6)
    assert linalg.dot(a, ones) == 0.0
    assert linalg.matvec(a[None, :], ones)[0] == 0.0
    assert linalg.rows_matvec(a[None, :], np.array([0, 0]), ones).tolist() == [0.0, 0.0]
    assert linalg.matmul(a[None, :], ones[:, None])[0, 0] == 0.0
    assert linalg.rowwise_dot(a[None, :], ones[None, :])[0] == 0.0


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 16, 40])
def test_eigh_agrees_with_lapack(n):
    rng = np.random.default_rng(n)
    for a in (_symmetric(rng, n), _spd(rng, n), _spd(rng, n) * 1e6):
        values, vectors = linalg.eigh(a)
        ref_values, ref_vectors = np.linalg.eigh(a)
        scale = np.abs(ref_values).max()
        np.testing.assert_allclose(values, ref_values, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(vectors, _lapack_signs(ref_vectors), atol=1e-10)
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(n), atol=1e-13)


def test_eigh_reads_the_lower_triangle_and_fixes_signs():
    a = np.array([[2.0, 999.0], [1.0, 2.0]])  # the upper 999 is ignored
    values, vectors = linalg.eigh(a)
    np.testing.assert_allclose(values, [1.0, 3.0], atol=1e-15)
    s = np.sqrt(0.5)
    # largest-magnitude entry positive, the first of equal magnitude
    np.testing.assert_allclose(vectors, [[s, s], [-s, s]], atol=1e-15)
    values, vectors = linalg.eigh(np.diag([3.0, -1.0, 2.0]))
    assert values.tolist() == [-1.0, 2.0, 3.0]
    assert vectors.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


def test_a_degenerate_eigenspace_gets_an_orthonormal_basis():
    # rank 1: a four-dimensional null space, whose basis LAPACK builds choose freely
    X = np.array([[0.3, -1.0, 2.0, 0.5, 1.0], [1.3, 0.0, -1.0, 2.5, 0.0]])
    values, vectors = linalg.eigh(linalg.covariance(X))
    d = X[1] - X[0]
    assert values[-1] == pytest.approx(d @ d / 2, rel=1e-14)
    np.testing.assert_allclose(values[:-1], 0.0, atol=1e-14)
    assert abs(vectors[:, -1] @ d) == pytest.approx(np.linalg.norm(d), rel=1e-14)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(5), atol=1e-14)


def _ql_matrices(rng, n):
    """Symmetric matrices of the kinds the QL solver must get right: random, positive
    definite, diagonal (nothing to reduce), with repeated eigenvalues (a rotated
    diagonal of small integers), rank-deficient, with zero rows, badly scaled (rows and
    columns from 1e-6 to 1e6, as unstandardised features give) and tiny or huge."""
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    repeated = Q @ np.diag(rng.integers(-1, 2, size=n).astype(float)) @ Q.T
    scale = np.logspace(-6, 6, n)
    zero_rows = _spd(rng, n)
    zero_rows[::2] = 0.0
    zero_rows[:, ::2] = 0.0
    return {
        "random": _symmetric(rng, n),
        "spd": _spd(rng, n),
        "diagonal": np.diag(rng.normal(size=n)),
        "repeated": (repeated + repeated.T) / 2,
        "identity": np.eye(n),
        "rank-deficient": _spd(rng, n, rank=max(1, n // 3)),
        "zero rows": zero_rows,
        "badly scaled": _spd(rng, n) * np.outer(scale, scale),
        "tiny": _symmetric(rng, n) * 1e-150,
        "huge": _symmetric(rng, n) * 1e150,
    }


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 17, 40])
def test_eigh_ql_agrees_with_scipy(n):
    """Eigenvalues to rounding against LAPACK's, each eigenvector or, for a repeated
    eigenvalue, each eigenspace the same (projectors), residuals and orthonormality to
    rounding, on every kind of matrix of ``_ql_matrices``."""
    rng = np.random.default_rng(1000 + n)
    for kind, a in _ql_matrices(rng, n).items():
        values, vectors = linalg.eigh_ql(a)
        ref_values, ref_vectors = scipy.linalg.eigh(a)
        scale = max(np.abs(ref_values).max(), np.finfo(float).tiny)
        np.testing.assert_allclose(values, ref_values, rtol=0, atol=1e-13 * n * scale,
                                   err_msg=kind)
        assert np.all(np.diff(values) >= 0), kind
        residual = np.abs(a @ vectors - vectors * values).max()
        assert residual <= 1e-14 * n * scale, (kind, residual / scale)
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(n), atol=1e-14 * n,
                                   err_msg=kind)
        # eigenspaces: clusters of eigenvalues equal to rounding share one projector
        gaps = np.flatnonzero(np.diff(ref_values) > 1e-9 * scale) + 1
        for c in np.split(np.arange(n), gaps):
            np.testing.assert_allclose(vectors[:, c] @ vectors[:, c].T,
                                       ref_vectors[:, c] @ ref_vectors[:, c].T,
                                       atol=1e-8 if c.size == 1 else 1e-9, err_msg=kind)
        # the sign rule: each column's largest-magnitude entry (the first such) positive
        pivots = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(n)]
        assert np.all(pivots > 0), kind


def test_eigh_ql_hand_worked_cases():
    # 1 x 1: the entry itself, eigenvector +1
    values, vectors = linalg.eigh_ql(np.array([[-2.5]]))
    assert values.tolist() == [-2.5] and vectors.tolist() == [[1.0]]
    # 2 x 2 [[2, 1], [1, 2]]: 1 and 3, (1, -1) / sqrt 2 and (1, 1) / sqrt 2; the upper
    # triangle (999) is not read, and the first of two equal magnitudes is the positive one
    values, vectors = linalg.eigh_ql(np.array([[2.0, 999.0], [1.0, 2.0]]))
    np.testing.assert_allclose(values, [1.0, 3.0], atol=1e-15)
    s = np.sqrt(0.5)
    np.testing.assert_allclose(vectors, [[s, s], [-s, s]], atol=1e-15)
    # diagonal: the entries sorted, the unit vectors as they are (no rotation happens)
    values, vectors = linalg.eigh_ql(np.diag([3.0, -1.0, 2.0]))
    assert values.tolist() == [-1.0, 2.0, 3.0]
    assert vectors.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    # the path graph's Laplacian-like tridiagonal [[2,-1,0],[-1,2,-1],[0,-1,2]]:
    # eigenvalues 2 - sqrt 2, 2, 2 + sqrt 2
    a = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    values, vectors = linalg.eigh_ql(a)
    r = np.sqrt(2.0)
    np.testing.assert_allclose(values, [2 - r, 2.0, 2 + r], atol=1e-15)
    np.testing.assert_allclose(vectors[:, 0], [0.5, r / 2, 0.5], atol=1e-15)
    np.testing.assert_allclose(vectors[:, 1], [s, 0.0, -s], atol=1e-15)
    # all ones (rank 1, a two-dimensional null space): n and 0, 0
    values, vectors = linalg.eigh_ql(np.ones((3, 3)))
    np.testing.assert_allclose(values, [0.0, 0.0, 3.0], atol=1e-15)
    np.testing.assert_allclose(vectors[:, 2], np.full(3, 1 / np.sqrt(3)), atol=1e-15)


def test_tridiagonalize_reduces_to_an_orthogonally_similar_tridiagonal():
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 9):
        a = _symmetric(rng, n)
        d, e, QT = linalg._tridiagonalize(a.copy())
        T = np.diag(d) + np.diag(e[1:], -1) + np.diag(e[1:], 1)
        np.testing.assert_allclose(QT @ QT.T, np.eye(n), atol=1e-14)
        np.testing.assert_allclose(QT @ a @ QT.T, T, atol=1e-13 * np.abs(a).max())
        assert e[0] == 0.0


def test_eigh_ql_gives_up_on_nan_without_hanging():
    values, vectors = linalg.eigh_ql(np.array([[1.0, 0.0], [np.nan, 2.0]]))
    assert np.isnan(values).any() or np.isnan(vectors).any()


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12, 30])
def test_eigh_generalized_agrees_with_lapack(n):
    rng = np.random.default_rng(100 + n)
    a, b = _symmetric(rng, n), _spd(rng, n) + 0.1 * np.eye(n)
    values, vectors, ok = linalg.eigh_generalized(a, b)
    assert ok
    ref_values, ref_vectors = scipy.linalg.eigh(a, b)
    scale = np.abs(ref_values).max()
    np.testing.assert_allclose(values, ref_values, rtol=0, atol=1e-10 * scale)
    ref = _lapack_signs(ref_vectors)
    np.testing.assert_allclose(vectors, ref, atol=1e-10 * np.abs(ref).max())
    np.testing.assert_allclose(vectors.T @ b @ vectors, np.eye(n), atol=1e-10)
    np.testing.assert_allclose(a @ vectors, b @ vectors * values, atol=1e-9 * scale)


def test_eigh_generalized_reports_an_indefinite_b():
    a = np.eye(3)
    for b in (np.diag([1.0, 0.0, 2.0]), np.diag([1.0, -1.0, 2.0]),
              np.diag([1.0, np.nan, 2.0])):
        assert not linalg.eigh_generalized(a, b)[2]
        assert not linalg.cholesky(b)[1]
    L, ok = linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    assert ok and L.tolist() == [[2.0, 0.0], [1.0, 2.0]]


def test_eigh_generalized_factored_is_eigh_generalized_with_the_factor_given():
    rng = np.random.default_rng(3)
    for n in (1, 3, 6):
        a, b = _symmetric(rng, n), _spd(rng, n) + np.eye(n)
        values, vectors, ok = linalg.eigh_generalized(a, b)
        L, factored = linalg.cholesky(b)
        assert ok and factored
        got_values, got_vectors = linalg.eigh_generalized_factored(a, L)
        assert np.array_equal(values, got_values) and np.array_equal(vectors, got_vectors)
