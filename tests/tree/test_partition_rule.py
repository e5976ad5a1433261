"""The one partition rule (``structure.route``): the builder grows, ``Tree`` predicts and
the pruners re-route by it, for oblique, axis-parallel, multiway and missing values."""

import numpy as np
import pytest

from obliq_cli.tree.builder import Split, SplitFinder, StoppingRules, build_tree, goes_left
from obliq_cli.tree.structure import (
    LEAF,
    MISSING_DEFAULT,
    MISSING_DISTRIBUTE,
    NOMINAL,
    OBLIQUE,
    Tree,
    node_class_counts,
    route,
)

NAN = np.nan


def test_route_of_a_linear_and_a_nominal_split_by_hand():
    values = np.array([0.5, 1.0, 1.0000001, -3.0, NAN])
    np.testing.assert_array_equal(route(values, 1.0), [0, 0, 1, 0, -1])
    codes = np.array([0.0, 2.0, 3.0, -1.0, 1.5, NAN, 1.0])
    np.testing.assert_array_equal(route(codes, 0.0, 3), [0, 2, -1, -1, -1, -1, 1])
    # Each value at its own split: thresholds and category counts aligned with values.
    mixed = np.array([2.0, 2.0, 0.7, NAN, 4.0])
    np.testing.assert_array_equal(
        route(mixed, np.array([1.0, 0.0, 0.5, 0.0, 9.0]), np.array([0, 3, 0, 3, 0])),
        [1, 2, 1, -1, 0])


def hand_tree() -> Tree:
    """Root x0 + x1 <= 1 (missing: the heavier branch), its left x0 <= 0 (missing goes
    right), its right a nominal split on x2 with three codes (missing distributed)."""
    left = np.array([1, 2, LEAF, LEAF, 5, LEAF, LEAF, LEAF])
    right = np.array([4, 3, LEAF, LEAF, 7, LEAF, LEAF, LEAF])
    feature = np.array([OBLIQUE, 0, LEAF, LEAF, 2, LEAF, LEAF, LEAF])
    weights = np.zeros((8, 3))
    weights[0] = [1.0, 1.0, 0.0]
    weights[1] = [1.0, 0.0, 0.0]
    weights[4] = [0.0, 0.0, 1.0]
    threshold = np.array([1.0, 0.0, 0, 0, 0, 0, 0, 0])
    value = np.array([[8, 7, 4], [5, 5, 0], [5, 0, 0], [0, 5, 0], [3, 2, 4], [0, 0, 4],
                      [3, 0, 0], [0, 2, 0]], dtype=float)
    kind = np.array([0, 0, 0, 0, NOMINAL, 0, 0, 0], dtype=np.int8)
    ptr = np.array([0, 2, 4, 4, 4, 7, 7, 7, 7])
    child = np.array([1, 4, 2, 3, 5, 6, 7])
    missing = np.array([MISSING_DEFAULT, 1, MISSING_DEFAULT, MISSING_DEFAULT,
                        MISSING_DISTRIBUTE, MISSING_DEFAULT, MISSING_DEFAULT,
                        MISSING_DEFAULT])
    return Tree(left, right, feature, weights, threshold, value, kind, ptr, child, missing)


def test_a_hand_built_tree_routes_every_kind_of_split_as_worked_out():
    tree = hand_tree()
    X = np.array([
        [0.0, 0.0, 1.0],   # 0 <= 1 left; x0 = 0 <= 0 left: node 2, class 0
        [0.5, 0.0, 1.0],   # 0.5 <= 1 left; 0.5 > 0 right: node 3, class 1
        [1.0, 1.0, 0.0],   # 2 > 1 right; code 0: node 5, class 2
        [1.0, 1.0, 1.0],   # code 1: node 6, class 0
        [1.0, 1.0, 2.0],   # code 2: node 7, class 1
        [NAN, 0.0, 1.0],   # unknown at the root: heavier branch (10 > 9) left; unknown
                           # at node 1: its fixed branch, right: node 3
        [1.0, 1.0, NAN],   # x . w is NaN though w2 = 0 (0 * NaN): unknown at the root
                           # as row 5, then x0 = 1 > 0 right: node 3
        [1.0, 1.0, 1.5],   # not a code: unknown, spread 4/9, 3/9, 2/9 over nodes 5, 6, 7
        [1.0, 1.0, 5.0],   # a code past the last: unknown, spread the same way
    ])
    # apply follows the heaviest branch of a distributing node (node 5, 4/9)
    np.testing.assert_array_equal(tree.apply(X), [2, 3, 5, 6, 7, 3, 3, 5, 5])
    spread = np.array([3.0, 2.0, 4.0]) / 9.0
    expected = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 1, 0],
                         [0, 1, 0], spread, spread])
    np.testing.assert_allclose(tree.predict_proba(X), expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(tree.predict(X), [0, 1, 2, 0, 1, 1, 1, 2, 2])
    # branch_of (what the pruners re-route by) is route of each node's values.
    nodes = np.array([0, 0, 0, 1, 1, 4, 4, 4, 4])
    rows = np.array([0, 5, 6, 0, 1, 2, 6, 7, 8])
    np.testing.assert_array_equal(tree.branch_of(X, rows, nodes),
                                  [0, -1, -1, 0, 1, 0, -1, -1, -1])


class RandomSplitFinder(SplitFinder):
    """Proposes a random split of whichever kind ``kinds`` draws: an oblique hyperplane
    or an axis-parallel threshold through a random row of the node, or a multiway split
    of the nominal column 0, each with a random missing-value rule."""

    def __init__(self, kinds, n_codes):
        self.kinds, self.n_codes = kinds, n_codes

    def split(self, node):
        X = self.X[node.rows]
        kind = self.kinds[self.rng.integers(len(self.kinds))]
        branches = self.n_codes if kind == "nominal" else 2
        missing = int(self.rng.integers(MISSING_DEFAULT, branches))
        if kind == "nominal":
            return Split(feature=0, categories=self.n_codes, missing=missing)
        anchor = np.nan_to_num(X[self.rng.integers(X.shape[0])])
        if kind == "axis":
            f = int(self.rng.integers(1, X.shape[1]))
            return Split(threshold=float(anchor[f]), feature=f, missing=missing)
        w = self.rng.normal(size=X.shape[1])
        w[0] = 0.0  # the nominal column takes no part in a hyperplane
        return Split(threshold=float(anchor @ w), weights=w, missing=missing)


def random_data(seed, n=300, d=4, n_codes=3, nan_share=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = rng.integers(0, n_codes, size=n)
    y = (X[:, 1] + X[:, 2] > 0).astype(np.int64) + (X[:, 0] == 1)
    if nan_share:
        X[rng.random((n, d)) < nan_share] = np.nan
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kinds,nan_share", [
    (("oblique",), 0.0), (("axis",), 0.0), (("oblique", "axis", "nominal"), 0.0),
    (("oblique", "axis", "nominal"), 0.1)])
def test_tree_routes_the_training_rows_where_the_builder_sent_them(seed, kinds, nan_share):
    """Every node's class counts as grown equal the counts of the training rows routed
    through the fitted tree: the builder and Tree partition alike (exactly without
    unknown values; to rounding where unknown rows were spread by shares)."""
    X, y = random_data(seed, nan_share=nan_share)
    tree = build_tree(X, y, 3, RandomSplitFinder(kinds, 3), StoppingRules(max_depth=5),
                      np.random.default_rng(seed))
    assert tree.n_internal >= 3
    routed = node_class_counts(tree, X, y)[:, :3]
    if nan_share == 0.0:
        np.testing.assert_array_equal(routed, tree.value)
        leaf_counts = np.zeros_like(tree.value)
        np.add.at(leaf_counts, (tree.apply(X), y), 1)
        np.testing.assert_array_equal(leaf_counts[tree.is_leaf], tree.value[tree.is_leaf])
    else:
        assert (tree.missing != MISSING_DEFAULT).any()
        np.testing.assert_allclose(routed, tree.value, rtol=1e-12, atol=1e-12)


def test_a_split_and_goes_left_decide_as_the_tree():
    X, y = random_data(9)
    rng = np.random.default_rng(9)
    for _ in range(20):
        w = rng.normal(size=4)
        t = float(X[rng.integers(X.shape[0])] @ w)
        split = Split(threshold=t, weights=w)
        stump = build_tree(X, y, 3, FixedFinder(split), StoppingRules(max_depth=1))
        left = goes_left(X, np.arange(X.shape[0]), split)
        np.testing.assert_array_equal(split.branches(X) == 0, left)
        if stump.n_internal:
            np.testing.assert_array_equal(stump.apply(X) == stump.children_left[0], left)


class FixedFinder(SplitFinder):
    def __init__(self, split):
        self.fixed = split

    def split(self, node):
        return self.fixed
