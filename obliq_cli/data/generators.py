"""Exact generators for the synthetic and enumerable datasets of the papers.

Every generator takes ``n`` (where a size makes sense) and ``seed`` and returns
``(X, y)``; the same arguments always give the same arrays (``numpy.random.default_rng``).
"""

from __future__ import annotations

import itertools
from numbers import Integral

import numpy as np

from ..kernels import linalg
from ..parameters import MAX_SEED, Interval


def balance_scale() -> tuple[np.ndarray, np.ndarray]:
    """UCI Balance Scale: all 5^4 (LW, LD, RW, RD) in {1..5}^4; L if LW*LD > RW*RD, R if <,
    B if equal (Siegler 1976). 49 B / 288 L / 288 R, the UCI file up to row order."""
    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=np.float64)
    left, right = X[:, 0] * X[:, 1], X[:, 2] * X[:, 3]
    y = np.where(left > right, "L", np.where(left < right, "R", "B"))
    return X, y


def waveform21(n: int = 5000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Breiman et al. 1984 (CART §2.6.2) waveform with 21 attributes, equal priors.

    h1(i) = max(6 - |i - 11|, 0), h2(i) = h1(i - 4), h3(i) = h1(i + 4), i = 1..21; with
    u ~ U(0, 1) and unit Gaussian noise: class 1 = u h1 + (1-u) h2, class 2 = u h1 +
    (1-u) h3, class 3 = u h2 + (1-u) h3. Bayes error about 14 %.
    """
    rng = np.random.default_rng(seed)
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0).astype(np.float64)
    h2 = np.maximum(6 - np.abs(i - 4 - 11), 0).astype(np.float64)
    h3 = np.maximum(6 - np.abs(i + 4 - 11), 0).astype(np.float64)
    pairs = np.array([[h1, h2], [h1, h3], [h2, h3]])  # [class, 2, 21]
    y = rng.integers(0, 3, size=n)
    u = rng.uniform(size=(n, 1))
    X = u * pairs[y, 0] + (1 - u) * pairs[y, 1] + rng.normal(size=(n, 21))
    return X, (y + 1).astype(str)


def twonorm(n: int = 7400, seed: int = 0, d: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Breiman 1996: class 1 ~ N(a 1, I), class 2 ~ N(-a 1, I), a = 2 / sqrt(20)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    a = 2.0 / np.sqrt(20.0)
    X = rng.normal(size=(n, d)) + np.where(y == 0, a, -a)[:, None]
    return X, (y + 1).astype(str)


def ringnorm(n: int = 7400, seed: int = 0, d: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Breiman 1996: class 1 ~ N(0, 4 I), class 2 ~ N(a 1, I), a = 1 / sqrt(20)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    a = 1.0 / np.sqrt(20.0)
    X = np.where(y[:, None] == 0, 2.0 * rng.normal(size=(n, d)), rng.normal(size=(n, d)) + a)
    return X, (y + 1).astype(str)


def _rotate(X: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    # rows rotated anticlockwise by `angle`, summed in a fixed order (kernels/linalg.py): BLAS
    # kernels differ in the last bits (fused multiply-adds), and the rows with them
    return linalg.matmul(np.ascontiguousarray(X), np.array([[c, s], [-s, c]]))


def checkerboard_2x2(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """GDT paper §IV Dataset 1: uniform on [-1, 1]^2, +1 where x1 + x2 and x1 - x2 have the
    same sign (w1 = [1, 1, 0], w2 = [1, -1, 0]), then rotated by pi/6 anticlockwise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    a, b = X[:, 0] + X[:, 1], X[:, 0] - X[:, 1]
    y = np.where(((a >= 0) & (b >= 0)) | ((a <= 0) & (b <= 0)), "+1", "-1")
    return _rotate(X, np.pi / 6), y


def checkerboard_4x4(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """GDT paper §IV Dataset 2: uniform on [0, 4]^2, unit squares indexed 1..4 on each
    axis, +1 where the two indices sum to an even number, then rotated by pi/6."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 2))
    index = np.floor(X).astype(int) + 1
    y = np.where(index.sum(axis=1) % 2 == 0, "+1", "-1")
    return _rotate(X, np.pi / 6), y


GDT_10D_PLANES = np.array([
    [1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0],
    [1, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0],
    [0, 1, -1, 0, -1, 0, 1, 1, -1, 1, 0],
], dtype=np.float64)


def synthetic_10d(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """GDT paper §IV Dataset 3: uniform on [-1, 1]^10; with the three augmented
    hyperplanes w1, w2, w3, +1 for the sign patterns (+,+,+), (-,-,+), (-,+,-), (+,-,-),
    i.e. where the product of the three signs is positive."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 10))
    sides = linalg.matmul(np.hstack([X, np.ones((n, 1))]),
                          np.ascontiguousarray(GDT_10D_PLANES.T))  # labels: not BLAS's
    y = np.where(np.prod(np.sign(sides), axis=1) > 0, "+1", "-1")
    return X, y



def ls10(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """OC1 paper (Murthy, Kasif & Salzberg 1994, JAIR 2), Table 2's LS10: ``n`` points
    uniform in [0, 1]^10, class "1" where x1 + ... + x5 < x6 + ... + x10, else "2"; one
    oblique hyperplane separates the classes exactly.

    Each side is summed column by column, left to right (no BLAS, no pairwise
    reduction), so a point's label is the same on every CPU."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 10))
    first, last = np.zeros(n), np.zeros(n)
    for j in range(5):
        first += X[:, j]
        last += X[:, 5 + j]
    return X, np.where(first < last, "1", "2")

from .apdt_problems import apdt_problem1, apdt_problem2, apdt_problem3  # noqa: E402

GENERATORS = {
    "apdt_problem1": apdt_problem1,
    "apdt_problem2": apdt_problem2,
    "apdt_problem3": apdt_problem3,
    "balance_scale": balance_scale,
    "waveform21": waveform21,
    "twonorm": twonorm,
    "ringnorm": ringnorm,
    "checkerboard_2x2": checkerboard_2x2,
    "checkerboard_4x4": checkerboard_4x4,
    "synthetic_10d": synthetic_10d,
    "ls10": ls10,
}

# What a config may set for each generator, in scikit-learn's constraint language
# (checked by obliq_cli.parameters before a run): a row count that keeps memory sane
# (a million rows of 21 features are 170 MB) and a seed numpy accepts.
MAX_ROWS = 1_000_000
_ROWS = [Interval(Integral, 2, MAX_ROWS, closed="both")]
# a generator's own seed, bounded as every seed parameter is (parameters.MAX_SEED)
_SEED = [Interval(Integral, 0, MAX_SEED, closed="both")]
GENERATOR_PARAMS = {
    "apdt_problem1": {"n": _ROWS, "seed": _SEED},
    "apdt_problem2": {"n": _ROWS, "seed": _SEED},
    "apdt_problem3": {"n": _ROWS, "seed": _SEED},
    "balance_scale": {},  # all 625 combinations: nothing to choose
    "waveform21": {"n": _ROWS, "seed": _SEED},
    "twonorm": {"n": _ROWS, "seed": _SEED},
    "ringnorm": {"n": _ROWS, "seed": _SEED},
    "checkerboard_2x2": {"n": _ROWS, "seed": _SEED},
    "checkerboard_4x4": {"n": _ROWS, "seed": _SEED},
    "synthetic_10d": {"n": _ROWS, "seed": _SEED},
    "ls10": {"n": _ROWS, "seed": _SEED},
}
