"""One sign for a direction that is only defined up to sign (an eigenvector, a
discriminant coordinate): the one that makes its largest-magnitude entry positive (the
first of equal magnitude). HHCART's reflections, GDT's clustering hyperplanes and the
CRIMCOORD values take it, so a tree depends on the data alone and not on the sign a LAPACK
build happens to return."""

from __future__ import annotations

import numpy as np


def canonical_signs(vectors: np.ndarray) -> np.ndarray | float:
    """+1.0 or -1.0 for a 1-D vector; for a 2-D array, one per column."""
    vectors = np.asarray(vectors)
    if vectors.ndim == 1:
        return -1.0 if vectors.size and vectors[np.argmax(np.abs(vectors))] < 0 else 1.0
    if vectors.shape[1] == 0:
        return np.ones(0)
    pivot = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])]
    return np.where(pivot < 0, -1.0, 1.0)
