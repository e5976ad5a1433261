"""Synthetic Problems 1-3 of Shah & Sastry (1999), §III-A -- OUR RECONSTRUCTION.

The paper shows the three problems only in its Fig. 2, which did not survive in our copy
of the text. What the text does say, and what each definition below is built to fit:

- all three are 2-class problems on the unit square [0, 1] x [0, 1]; 1000 training and
  500 test points drawn uniformly, no noise (§III-A);
- Problems 1 and 2 have piecewise-linear class boundaries, Problem 3 a nonlinear one
  (§III-C, first paragraph);
- Problem 1: the best APDT tree has N = 3 internal nodes and depth 3 (Table II), and
  so does ID3, with 100 % accuracy, while CART-AP's tree has 4 nodes (Table III). An
  axis-parallel learner can only be exact with 3 splits if the boundary is made of 3
  axis-parallel segments, so class 1 is one convex region cut out by three axis-parallel
  lines (a rectangle touching one side of the square);
- Problem 2: APDT's trees have 5 internal nodes and depth 3 in all five runs (Tables II
  and III), while axis-parallel trees need 14-22 nodes (oblique boundary). The pruning
  study uses L = 2 AND units for Problem 2 (Table VI) and reaches near-exact accuracy with
  4-5 hyperplanes: class 1 is the union of two convex regions, each the intersection of
  two half-planes (4 boundary lines). We take the region above a "W": every boundary
  line, extended across the square, leaves class-1 points of the other V on both of its
  sides, so no tree can start with a boundary line and finish with 3 more nodes; the
  smallest tree is a root hyperplane through the middle peak of the W plus two nodes
  per V (5 internal nodes, depth 3);
- Problem 3: APDT needs 7 internal nodes (depth 4) and reaches 99.3 % test accuracy,
  axis-parallel trees 53-54 nodes: a gently curved boundary, which 7 chords approximate
  to within about half a percent of the area (a circular arc).

Exact definitions (class labels 0/1; x = (x1, x2) uniform on the unit square):

- Problem 1: class 1 iff 0.25 < x1 <= 0.75 and x2 > 0.4.
- Problem 2: class 1 iff x2 > W(x1), W the polyline through the knots (0, 0.75),
  (0.25, 0.35), (0.5, 0.7), (0.75, 0.3), (1, 0.8) (slopes -1.6, 1.4, -1.6, 2). Class 1
  is then A u B with A = {x2 > 0.75 - 1.6 x1} n {x2 > 0.35 + 1.4 (x1 - 0.25)} and
  B = {x2 > 0.7 - 1.6 (x1 - 0.5)} n {x2 > 0.3 + 2 (x1 - 0.75)}.
- Problem 3: class 1 iff x1^2 + x2^2 < 0.8^2 (a quarter disc about the origin).

``apdt_problem(k, n=1500, seed=0)`` returns ``(X, y)``: X float64 [n, 2], y int labels;
the first 1000 rows are the training sample and the last 500 the test sample (for the
default n = 1500).
"""

from __future__ import annotations

import numpy as np

N_TRAIN = 1000
N_TEST = 500
W_KNOTS_X = (0.0, 0.25, 0.5, 0.75, 1.0)
W_KNOTS_Y = (0.75, 0.35, 0.7, 0.3, 0.8)


def problem_labels(k: int, X: np.ndarray) -> np.ndarray:
    """Class (0/1) of every row of ``X`` under Problem ``k`` (see the module docstring)."""
    X = np.asarray(X, dtype=np.float64)
    x1, x2 = X[:, 0], X[:, 1]
    if k == 1:
        inside = (x1 > 0.25) & (x1 <= 0.75) & (x2 > 0.4)
    elif k == 2:
        inside = x2 > np.interp(x1, W_KNOTS_X, W_KNOTS_Y)
    elif k == 3:
        inside = x1 ** 2 + x2 ** 2 < 0.8 ** 2
    else:
        raise ValueError(f"APDT problem must be 1, 2 or 3 (got {k!r})")
    return inside.astype(np.int64)


def apdt_problem(k: int, n: int = N_TRAIN + N_TEST, seed: int = 0):
    """``(X, y)`` of Problem ``k``: ``n`` points uniform on the unit square, no noise.

    With the default ``n`` the first 1000 rows are the paper's training sample and the
    last 500 its test sample (§III-A). The same ``(k, n, seed)`` always gives the same
    arrays (``numpy.random.default_rng(seed)``).
    """
    if k not in (1, 2, 3):
        raise ValueError(f"APDT problem must be 1, 2 or 3 (got {k!r})")
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 2))
    return X, problem_labels(k, X)


def apdt_problem1(n: int = N_TRAIN + N_TEST, seed: int = 0):
    """Problem 1 with the ``(n, seed)`` signature of ``obliq_cli.data.generators``."""
    return apdt_problem(1, n, seed)


def apdt_problem2(n: int = N_TRAIN + N_TEST, seed: int = 0):
    """Problem 2 with the ``(n, seed)`` signature of ``obliq_cli.data.generators``."""
    return apdt_problem(2, n, seed)


def apdt_problem3(n: int = N_TRAIN + N_TEST, seed: int = 0):
    """Problem 3 with the ``(n, seed)`` signature of ``obliq_cli.data.generators``."""
    return apdt_problem(3, n, seed)
