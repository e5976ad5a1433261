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
        values, vectors, ok = linalg.eigh_generalized(a, b)
        out[f"gen{n}"] = (values, vectors, np.array([ok]))
    out["eigh_rank1"] = linalg.eigh(linalg.covariance(X[:2]))
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
