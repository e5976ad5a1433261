"""CRIMCOORDs: qualitative features as numbers chosen per node (Loh & Vanichsetakul
1988, §3; Loh & Shih 1997, §3.3 "categorical variables"; HHCART paper §3.2).

A qualitative feature X with levels 1..M is written as dummy vectors v in {0,1}^M. At
a node, its *crimcoord* is the largest discriminant coordinate of those dummy vectors:
the direction a maximising a'Ba / a'Ta, with B the between-class and T the total
scatter of v at the node, restricted to the range of T (dummy vectors sum to 1, so T is
always singular; Loh & Shih project onto T's non-null eigenvectors first). Level m is
then mapped to the number c_m = a'(e_m - v_bar), so the node's rows have mean 0.

Because v is one-hot, T = diag(n_m) - n v_bar v_bar' and B = sum_k n_k (v_bar_k - v_bar)
(v_bar_k - v_bar)' need only the node's level-by-class count table, so a node costs
O(n) to count plus an M x M eigenproblem.

The trees in obliq stay plain hyperplanes: an estimator dummy-codes each qualitative
column once (``QualitativeCoding``), and at a node ``crimcoord_matrix`` gives the
matrix P mapping the dummy-coded row to (quantitative features, one crimcoord per
qualitative feature). A split ``v . z <= t`` found on z = x P is stored as ``(P v) . x <=
t``: the node's crimcoords live in its weights and are applied at prediction, as the
HHCART paper's §3.2 asks. A level unseen at a node (or in training) has the
dummy vector 0 and so the crimcoord 0, the node mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from ..kernels import linalg
from ..kernels.presort import root_order
from .builder import Node, Split, SplitFinder
from .orientation import canonical_signs

_EPS = 1e-10


def crimcoord_values(table: np.ndarray) -> np.ndarray:
    """Crimcoord c_m of each level from a level-by-class count table [M, K].

    Levels with no rows get 0 (the node mean). When the feature cannot discriminate
    (one level present, or one class), every value is 0. The sign is fixed so that
    the value of largest magnitude is positive, which makes the result unique.
    """
    table = np.asarray(table, dtype=np.float64)
    n_m = table.sum(axis=1)
    n_k = table.sum(axis=0)
    n = n_m.sum()
    values = np.zeros(table.shape[0])
    present = n_m > 0
    if n == 0 or present.sum() < 2 or (n_k > 0).sum() < 2:
        return values
    table = table[present]
    n_m = n_m[present]
    mean = n_m / n
    total = np.diag(n_m) - n * np.outer(mean, mean)
    # fixed-order products and Jacobi eigenvectors (linalg.py): LAPACK's depend on the
    # CPU in the last bits, and T's null space makes the basis arbitrary
    lam, vec = linalg.eigh(total)
    keep = lam > _EPS * lam.max()
    # Whitening of T on its range: z = W'(v - v_bar) has identity total scatter.
    whiten = vec[:, keep] / np.sqrt(lam[keep])
    cls = n_k > 0
    centred = table[:, cls] / n_k[cls] - mean[:, None]  # v_bar_k - v_bar, [M, K']
    between = linalg.matmul(centred * n_k[cls], np.ascontiguousarray(centred.T))
    b_w = linalg.matmul(linalg.matmul(np.ascontiguousarray(whiten.T), between), whiten)
    mu, nu = linalg.eigh(b_w)
    if mu[-1] <= _EPS * max(1.0, np.abs(mu).max()):
        return values
    a = linalg.matvec(whiten, nu[:, -1])
    c = a - linalg.dot(a, mean)  # a'(e_m - v_bar)
    values[present] = c * canonical_signs(c)
    return values


@dataclass(frozen=True)
class QualitativeCoding:
    """Dummy coding of qualitative columns, fixed on the training data.

    The coded matrix holds the quantitative columns first (in their original order),
    then one block of dummies per qualitative column (its training levels, sorted).
    """

    n_features: int
    quantitative: np.ndarray  # original indices of the quantitative columns
    qualitative: np.ndarray  # original indices of the qualitative columns
    levels: tuple  # per qualitative column, its sorted training levels

    @classmethod
    def fit(cls, X: np.ndarray, categorical) -> QualitativeCoding:
        d = X.shape[1]
        cats = np.unique(np.asarray(list(categorical), dtype=np.int64))
        if cats.size and (cats.min() < 0 or cats.max() >= d):
            raise DataError(f"categorical_features {cats.tolist()} must be column indices "
                            f"in 0..{d - 1}")
        quantitative = np.setdiff1d(np.arange(d), cats)
        levels = tuple(np.unique(X[:, j]) for j in cats)
        return cls(d, quantitative, cats, levels)

    @property
    def block_starts(self) -> np.ndarray:
        sizes = [len(lv) for lv in self.levels]
        return self.quantitative.size + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(
            np.int64) if sizes else np.zeros(0, dtype=np.int64)

    @property
    def n_coded(self) -> int:
        return self.quantitative.size + sum(len(lv) for lv in self.levels)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """The dummy-coded matrix; a level not seen in training codes as all zeros."""
        n = X.shape[0]
        out = np.zeros((n, self.n_coded))
        out[:, : self.quantitative.size] = X[:, self.quantitative]
        rows = np.arange(n)
        for start, j, lv in zip(self.block_starts, self.qualitative, self.levels):
            pos = np.clip(np.searchsorted(lv, X[:, j]), 0, len(lv) - 1)
            seen = lv[pos] == X[:, j]
            out[rows[seen], start + pos[seen]] = 1.0
        return out

    @property
    def source_columns(self) -> np.ndarray:
        """The input column each coded column comes from (a dummy: its qualitative
        column)."""
        sizes = [len(lv) for lv in self.levels]
        return np.concatenate([self.quantitative, np.repeat(self.qualitative, sizes)]
                              ).astype(np.int64)

    def feature_names(self, names=None) -> list[str]:
        names = list(names) if names is not None else [f"x{j}" for j in range(self.n_features)]
        out = [names[j] for j in self.quantitative]
        for j, lv in zip(self.qualitative, self.levels):
            out += [f"{names[j]}={v:g}" for v in lv]
        return out

    def crimcoord_matrix(self, coded: np.ndarray, y: np.ndarray, n_classes: int,
                         w: np.ndarray | None = None) -> np.ndarray:
        """P [n_coded, n_features]: coded rows @ P = (quantitative, crimcoords) at a node
        holding ``coded`` rows with class codes ``y``; the columns keep the original
        feature order. ``w``: the rows' weights, which the level-by-class table sums
        (None: it counts rows)."""
        P = np.zeros((self.n_coded, self.n_features))
        P[np.arange(self.quantitative.size), self.quantitative] = 1.0
        onehot_y = np.zeros((y.size, n_classes))
        onehot_y[np.arange(y.size), y] = 1.0 if w is None else w
        for start, j, lv in zip(self.block_starts, self.qualitative, self.levels):
            block = slice(start, start + len(lv))
            P[block, j] = crimcoord_values(coded[:, block].T @ onehot_y)
        return P

    def to_dict(self) -> dict:
        return {"n_features": self.n_features, "quantitative": self.quantitative.tolist(),
                "qualitative": self.qualitative.tolist(),
                "levels": [lv.tolist() for lv in self.levels]}

    @classmethod
    def from_dict(cls, data: dict) -> QualitativeCoding:
        return cls(int(data["n_features"]), np.asarray(data["quantitative"], dtype=np.int64),
                   np.asarray(data["qualitative"], dtype=np.int64),
                   tuple(np.asarray(lv, dtype=np.float64) for lv in data["levels"]))


class CrimcoordFinder(SplitFinder):
    """A split finder written for original-space rows, run on each node's
    (quantitative, crimcoord) features of dummy-coded rows; the split it returns is a
    hyperplane on the coded columns.

    The inner finder is prepared once per fit, on ``Z``: every training row's derived
    features, the root's crimcoords at first. The crimcoords change from node to node,
    so before a node's split its rows of ``Z`` are rewritten with the node's own
    (quantitative, crimcoord) values and the inner finder is asked about the node itself
    (its rows, counts, depth, parent counts and state): its ``node_data`` reads the
    node's derived rows. Whatever an inner finder computes in ``prepare`` from the
    qualitative columns' values is therefore the root's view (HHCART's and QUEST's
    finders keep the arrays only). A presorting inner finder gets the node's order
    sorted at the node, as its columns are new there.
    """

    def __init__(self, inner: SplitFinder, coding: QualitativeCoding):
        self.inner = inner
        self.coding = coding
        self.stop_node = inner.stop_node  # the inner finder's own leaf rule, if any

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        P = self.coding.crimcoord_matrix(X, y, n_classes)
        self.Z = np.ascontiguousarray(X @ P)
        self.inner.prepare(self.Z, y, n_classes, rng)

    def split(self, node: Node) -> Split | None:
        coded, y = self.node_data(node)
        coding = self.coding
        P = coding.crimcoord_matrix(coded, y, self.n_classes, node.weights)
        derived = coded @ P
        self.Z[node.rows] = derived
        order = node.rows[root_order(derived)] if self.inner.presort else None
        split = self.inner.split(Node(node.rows, node.counts, node.depth, node.parent_counts,
                                      node.state, order, node.weights))
        if split is None:
            return None
        if split.feature >= 0 and split.feature in coding.quantitative:
            # A quantitative axis split stays axis-parallel on its coded column.
            col = int(np.searchsorted(coding.quantitative, split.feature))
            return Split(threshold=split.threshold, feature=col, score=split.score)
        weights = P @ split.weight_vector(coding.n_features)
        return Split(threshold=split.threshold, weights=weights, score=split.score)
