"""What the entries of a tree's node arrays mean (``structure.Tree``).

The codes are read by the tree itself, by its text export and its serialisation, by the
builder that grows it and by every pruner; they live here, below all of them, so that
each of those modules can import them without importing the others.
"""

from __future__ import annotations

import numpy as np

LEAF = -1
"""Value of ``children_left``/``children_right`` and of ``feature`` at a leaf."""

OBLIQUE = -2
"""Value of ``feature`` at an internal node whose hyperplane has several weights."""

LINEAR = 0
"""``kind`` of a binary node ``w . x <= threshold`` (axis-parallel or oblique)."""

NOMINAL = 1
"""``kind`` of a multiway node: one branch per category code of column ``feature``."""

MISSING_DEFAULT = -2
"""``missing`` rule: the branch with the most training weight (ties to the last)."""

MISSING_DISTRIBUTE = -1
"""``missing`` rule: down every branch, weighted by its share of the training weight."""


def binary_branches(children_left: np.ndarray, children_right: np.ndarray):
    """The CSR children (``branch_ptr``, ``branch_child``) of a tree whose internal
    nodes are all binary."""
    internal = children_left != LEAF
    ptr = np.zeros(children_left.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.where(internal, 2, 0), out=ptr[1:])
    child = np.column_stack([children_left[internal], children_right[internal]]).ravel()
    return ptr, child.astype(np.int64)
