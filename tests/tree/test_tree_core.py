"""The shared tree: routing, sizes, export/import, rules and collapse."""

import json

import numpy as np
import pytest
from conftest import leaves_by_rules

from obliq_cli import make_estimator
from obliq_cli.tree.builder import (
    PRESORT_MIN_ROWS,
    Split,
    SplitFinder,
    StoppingRules,
    build_tree,
)
from obliq_cli.tree.structure import LEAF, OBLIQUE, Tree, node_class_counts


class ObliqueStumpFinder(SplitFinder):
    """Always splits on x1 + x2 <= 1 (a fixed oblique hyperplane)."""

    def split(self, node):
        return Split(threshold=1.0, weights=np.array([1.0, 1.0]))


oblique_stump_finder = ObliqueStumpFinder()


class RecordingFinder(SplitFinder):
    """Splits every node it is asked about at the median of feature (depth mod d),
    hands each child a state naming its side, and records every node view it sees."""

    def __init__(self):
        self.prepared = 0
        self.seen = []

    def prepare(self, X, y, n_classes, rng):
        super().prepare(X, y, n_classes, rng)
        self.prepared += 1

    def split(self, node):
        self.seen.append((node.rows.copy(), node.counts.copy(), node.depth,
                          None if node.parent_counts is None else node.parent_counts.copy(),
                          node.is_root, node.state))
        f = node.depth % self.X.shape[1]
        t = float(np.median(self.X[node.rows, f]))
        return Split(threshold=t, feature=f, child_states=(("left", node.depth),
                                                           ("right", node.depth)))


def rows_reaching(tree, X):
    """For every node, the ascending ids of the rows of X routed through it (a tree of
    axis-parallel splits, walked one row at a time)."""
    reach = [[] for _ in range(tree.n_nodes)]
    for i, x in enumerate(X):
        node = 0
        while True:
            reach[node].append(i)
            if tree.children_left[node] == LEAF:
                break
            left = x[tree.feature[node]] <= tree.threshold[node]  # axis splits only
            node = tree.children_left[node] if left else tree.children_right[node]
    return [np.asarray(r, dtype=np.int64) for r in reach]


def test_a_finder_sees_each_node_as_it_is():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, size=120)
    finder = RecordingFinder()
    tree = build_tree(X, y, 3, finder, StoppingRules(max_depth=3))
    assert finder.prepared == 1
    depth = tree.node_depth
    parent = np.full(tree.n_nodes, -1)
    internal = np.flatnonzero(~tree.is_leaf)
    parent[tree.children_left[internal]] = internal
    parent[tree.children_right[internal]] = internal
    pure = np.count_nonzero(tree.value, axis=1) == 1
    # The finder is asked about exactly the open nodes (impure, above max_depth), in
    # preorder, so the i-th view belongs to the i-th such node id.
    asked = np.flatnonzero(~pure & (depth < 3))
    assert len(finder.seen) == asked.size == 7  # 1 + 2 + 4: nothing pure above depth 3
    reach = rows_reaching(tree, X)
    for node, (rows, counts, d, parent_counts, is_root, state) in zip(asked, finder.seen):
        np.testing.assert_array_equal(rows, reach[node])
        assert (np.diff(rows) > 0).all()
        np.testing.assert_array_equal(counts, np.bincount(y[rows], minlength=3))
        np.testing.assert_array_equal(counts, tree.value[node])
        assert d == depth[node]
        assert is_root == (node == 0)
        if node == 0:
            assert parent_counts is None and state is None
        else:
            np.testing.assert_array_equal(parent_counts, tree.value[parent[node]])
            side = "left" if tree.children_left[parent[node]] == node else "right"
            assert state == (side, d - 1)


def test_pure_node_is_never_split_by_a_finder_that_always_splits():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0.3).astype(int) + (X[:, 1] > 0.5)
    finder = RecordingFinder()
    tree = build_tree(X, y, 3, finder)
    assert finder.seen and all(np.count_nonzero(c) > 1 for _, c, *_ in finder.seen)
    leaves = tree.value[tree.is_leaf]
    # Medians split every impure node until it is pure (no duplicate rows here).
    assert (np.count_nonzero(leaves, axis=1) == 1).all()
    assert (np.count_nonzero(tree.value[~tree.is_leaf], axis=1) > 1).all()


def test_oblique_split_routes_by_hyperplane():
    X = np.array([[0.0, 0.0], [0.2, 0.7], [0.9, 0.5], [1.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    tree = build_tree(X, y, 2, oblique_stump_finder, StoppingRules(max_depth=1))
    assert tree.feature[0] == OBLIQUE
    assert tree.n_leaves == 2 and tree.max_depth == 1
    # 0.2 + 0.7 = 0.9 <= 1 goes left; 0.9 + 0.5 = 1.4 goes right; 1.0 + 0.0 ties -> left.
    np.testing.assert_array_equal(tree.predict(np.array([[0.2, 0.7], [0.9, 0.5], [1.0, 0.0]])),
                                  [0, 1, 0])
    np.testing.assert_array_equal(tree.value, [[2, 2], [2, 0], [0, 2]])


def test_pure_node_is_never_split():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = np.zeros(10, dtype=int)
    finder = RecordingFinder()
    tree = build_tree(X, y, 1, finder)
    assert tree.n_nodes == 1 and finder.seen == []


def test_min_samples_split_and_max_depth_stop_growth():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    deep = make_estimator("cart-ap").fit(X, y)
    shallow = make_estimator("cart-ap", max_depth=2).fit(X, y)
    coarse = make_estimator("cart-ap", min_samples_split=50).fit(X, y)
    assert shallow.depth_ == 2 and shallow.n_leaves_ <= 4
    assert deep.depth_ > 2
    counts = coarse.tree_.value.sum(axis=1)
    internal = ~coarse.tree_.is_leaf
    assert (counts[internal] >= 50).all()
    # The unlimited tree is pure at every leaf (no duplicate rows in this data).
    leaf_values = deep.tree_.value[deep.tree_.is_leaf]
    assert (np.count_nonzero(leaf_values, axis=1) == 1).all()


class MajorityStopFinder(RecordingFinder):
    """RecordingFinder with a leaf rule of its own: a non-root node whose class 0 is
    its majority stops. Records every node the rule is asked about."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def stop_node(self, node):
        self.asked.append((node.depth, node.counts.copy()))
        return node.depth > 0 and node.counts[0] > node.counts[1:].max()


def test_a_finder_declared_stop_rule_makes_the_node_a_leaf_before_it_is_split():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = rng.integers(0, 2, size=300)
    finder = MajorityStopFinder()
    rules = StoppingRules(max_depth=6)
    tree = build_tree(X, y, 2, finder, rules)
    plain = build_tree(X, y, 2, RecordingFinder(), rules)
    assert tree.n_nodes < plain.n_nodes
    depth = tree.node_depth
    internal = ~tree.is_leaf
    # No split below the root where class 0 is the majority; such leaves exist.
    majority0 = tree.value[:, 0] > tree.value[:, 1]
    assert not (internal & majority0 & (depth > 0)).any()
    assert (tree.is_leaf & majority0 & (depth > 0) & (depth < 6)).any()
    # The finder's split is asked only about the nodes its rule let through, and the
    # rule only about nodes the common rules leave open (impure, above max_depth).
    assert len(finder.seen) == int(internal.sum())
    assert len(finder.asked) > len(finder.seen)
    assert all(d < 6 and np.count_nonzero(c) == 2 for d, c in finder.asked)


def test_stopping_rules_is_leaf_is_the_builders_rule():
    """``StoppingRules.is_leaf`` on a node view of every grown node says exactly which
    nodes the builder left as leaves (a finder that splits every node it is asked)."""
    from obliq_cli.tree.builder import Node

    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 2))
    y = rng.integers(0, 3, size=400)
    finder = MajorityStopFinder()
    rules = StoppingRules(min_samples_split=20, max_depth=5, max_misclassification_rate=0.2)
    tree = build_tree(X, y, 3, finder, rules)
    parent = tree.parent()
    depth = tree.node_depth
    for i in range(tree.n_nodes):  # a loop over nodes
        counts = tree.value[i].astype(np.int64)
        node = Node(np.arange(counts.sum()), counts, int(depth[i]),
                    None if parent[i] < 0 else tree.value[parent[i]].astype(np.int64))
        assert rules.is_leaf(node, finder) == bool(tree.is_leaf[i])
    assert StoppingRules().is_leaf(Node(np.arange(1), np.array([1, 0, 0])))
    assert not StoppingRules().is_leaf(Node(np.arange(2), np.array([1, 1, 0])))
    assert StoppingRules(max_misclassification_rate=0.5).is_leaf(
        Node(np.arange(2), np.array([1, 1, 0])))


def test_preorder_layout_and_counts_add_up():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 3, size=300)
    tree = make_estimator("cart-ap", max_depth=5).fit(X, y).tree_
    internal = np.flatnonzero(~tree.is_leaf)
    assert (tree.children_left[internal] == internal + 1).all()
    assert (tree.children_right[internal] > tree.children_left[internal]).all()
    np.testing.assert_array_equal(
        tree.value[internal],
        tree.value[tree.children_left[internal]] + tree.value[tree.children_right[internal]],
    )
    assert tree.n_leaves + tree.n_internal == tree.n_nodes == 2 * tree.n_leaves - 1
    # Growing data is routed the way it was grown: leaf counts equal node_class_counts.
    counts = node_class_counts(tree, X, y)[:, :3]
    np.testing.assert_array_equal(counts, tree.value)


def test_json_round_trip_predicts_identically():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 5))
    y = np.array(["a", "b", "c"])[(X[:, 0] > 0).astype(int) + (X[:, 1] * X[:, 2] > 0.3)]
    est = make_estimator("cart-ap", criterion="entropy").fit(X, y)
    text = json.dumps(est.export_json())
    restored = make_estimator("cart-ap").load_tree(json.loads(text))
    X_new = rng.normal(size=(2000, 5)) * 2
    np.testing.assert_array_equal(restored.predict(X_new), est.predict(X_new))
    np.testing.assert_array_equal(restored.predict_proba(X_new), est.predict_proba(X_new))
    tree2 = Tree.from_json(est.tree_.to_json())
    np.testing.assert_array_equal(tree2.threshold, est.tree_.threshold)


def test_predictions_equal_exported_rules():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] - X[:, 2] > 0).astype(int) + (X[:, 1] > 1)
    est = make_estimator("cart-ap", criterion="twoing").fit(X, y)
    X_new = rng.normal(size=(1000, 3))
    leaves = leaves_by_rules(est.tree_, X_new)
    np.testing.assert_array_equal(leaves, est.apply(X_new))
    # Also for an oblique tree.
    Xo = rng.uniform(size=(50, 2))
    tree = build_tree(Xo, (Xo.sum(1) > 1).astype(int), 2, oblique_stump_finder)
    np.testing.assert_array_equal(leaves_by_rules(tree, Xo), tree.apply(Xo))


def test_text_export_names_features_and_classes():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["no", "no", "yes", "yes"])
    est = make_estimator("cart-ap").fit(X, y)
    text = est.export_text(feature_names=["age"])
    assert "age <= 1.5: class no [2, 0]" in text
    assert "age > 1.5: class yes [0, 2]" in text


def test_text_export_writes_a_negative_zero_threshold_as_0():
    X = np.array([[-1.0], [-0.5], [0.5], [1.0]])
    est = make_estimator("cart-ap").fit(X, np.array([0, 0, 1, 1]))
    est.tree_.threshold[0] = -0.0  # as an oblique search may leave it
    text = est.export_text(feature_names=["z"])
    assert "z <= 0: class 0" in text and "-0" not in text


def test_text_export_has_one_line_per_node_with_the_path_condition():
    X = np.array([[0.0, 0], [1, 0], [2, 1], [3, 1], [4, 0], [5, 0]])
    y = np.array([0, 0, 1, 1, 0, 0])
    est = make_estimator("cart-ap").fit(X, y)
    lines = est.export_text(feature_names=["a", "b"]).splitlines()
    assert len(lines) == est.tree_.n_nodes
    assert lines[0] == "root [4, 2]"
    # Every non-root line is indented by its depth and starts with its condition.
    depth = est.tree_.node_depth
    for node, line in zip(range(est.tree_.n_nodes), lines):
        assert line.startswith("|   " * depth[node])
        assert node == 0 or " <= " in line or " > " in line


def test_collapse_removes_subtrees_and_renumbers():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    tree = make_estimator("cart-ap").fit(X, y).tree_
    node = int(tree.children_left[0])
    pruned = tree.collapse([node])
    assert pruned.children_left[1] == LEAF
    removed = tree.subtree_nodes(node).size - 1
    assert pruned.n_nodes == tree.n_nodes - removed
    np.testing.assert_array_equal(pruned.value[1], tree.value[node])
    # Rows that went right of the root are routed exactly as before.
    right = tree.apply(X) >= tree.children_right[0]
    np.testing.assert_array_equal(pruned.predict(X[right]), tree.predict(X[right]))
    assert tree.collapse([0]).n_nodes == 1


def test_bad_input_is_a_clear_error():
    from obliq_cli.errors import DataError

    # NaN is refused by every algorithm that does not declare missing values ...
    with pytest.raises(DataError, match="^Input X contains NaN.$"):
        make_estimator("id3").fit(np.array([[0.0], [np.nan]]), [0, 1])
    # ... and infinity by all, those that take NaN too
    with pytest.raises(DataError, match="^Input X contains infinity"):
        make_estimator("cart-ap").fit(np.array([[0.0], [np.inf]]), [0, 1])
    make_estimator("cart-ap").fit(np.array([[0.0], [np.nan]]), [0, 1])
    with pytest.raises(ValueError, match="Input y contains infinity"):
        make_estimator("cart-ap").fit(np.array([[0.0], [1.0]]), [0, np.inf])
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        make_estimator("cart-ap").fit(np.arange(20.0)[:, None], np.linspace(0, 1, 20))
    est = make_estimator("cart-ap").fit(np.array([[0.0, 1.0], [1.0, 0.0]]), [0, 1])
    with pytest.raises(DataError, match="3 features"):
        est.predict(np.zeros((1, 3)))


class PresortRecordingFinder(RecordingFinder):
    """``RecordingFinder`` that asks for presorted orders and records them."""

    presort = True

    def __init__(self):
        super().__init__()
        self.orders = []

    def split(self, node):
        self.orders.append((node.rows.copy(), None if node.order is None
                            else node.order.copy(), self.local_order(node)))
        return super().split(node)


def test_presorted_orders_are_each_nodes_sorted_columns():
    rng = np.random.default_rng(9)
    # Rounded values: many ties, whose rows must stay in ascending order.
    X = np.round(rng.normal(size=(400, 3)), 1)
    y = rng.integers(0, 2, size=400)
    finder = PresortRecordingFinder()
    build_tree(X, y, 2, finder, StoppingRules(max_depth=6))
    with_order = 0
    for rows, order, local in finder.orders:
        if rows.size < PRESORT_MIN_ROWS:
            assert order is None and local is None
            continue
        with_order += 1
        for f in range(3):
            # A stable argsort of the node's column, as row indices and as positions.
            expected = np.argsort(X[rows, f], kind="stable")
            np.testing.assert_array_equal(order[f], rows[expected])
            np.testing.assert_array_equal(local[f], expected)
    assert with_order >= 7 and len(finder.orders) > with_order  # both kinds of node


def test_presorting_does_not_change_the_axis_parallel_tree():
    rng = np.random.default_rng(10)
    X = np.round(rng.normal(size=(600, 4)), 1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.2).astype(int) + (X[:, 3] > 1.0)
    finder = make_estimator("cart-ap")._make_split_finder()
    assert finder.presort
    presorted = build_tree(X, y, 3, finder)
    finder = make_estimator("cart-ap")._make_split_finder()
    finder.presort = False  # every node sorts its own columns
    sorting = build_tree(X, y, 3, finder)
    assert presorted.n_nodes == sorting.n_nodes > 20
    for name in ("children_left", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(presorted, name), getattr(sorting, name))


def test_split_order_compiled_and_python_agree_and_keep_order():
    from obliq_cli.kernels.presort import root_order, split_order

    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(50, 3)), 1)
    order = root_order(X)
    goes_left = rng.random(50) < 0.3
    n_left = int(goes_left.sum())
    compiled = split_order(order, goes_left, n_left, True, True)
    python = split_order.py_func(order, goes_left, n_left, True, True)
    for ours, plain, side in zip(compiled, python, (goes_left, ~goes_left)):
        np.testing.assert_array_equal(ours, plain)
        for f in range(3):
            np.testing.assert_array_equal(ours[f], order[f][side[order[f]]])
    left, right = split_order(order, goes_left, n_left, False, True)
    assert left.shape == (3, 0) and right.shape == (3, 50 - n_left)


def test_oblique_rule_text_lists_the_large_coefficients_largest_first():
    from obliq_cli.tree.structure import LEAF, Tree

    weights = np.array([[0.5, 1e-6, -2.0, 3e-5], [0, 0, 0, 0], [0, 0, 0, 0]])
    tree = Tree(np.array([1, LEAF, LEAF]), np.array([2, LEAF, LEAF]),
                np.array([-2, LEAF, LEAF]), weights, np.array([1.25, 0, 0]),
                np.array([[3.0, 4.0], [3.0, 0.0], [0.0, 4.0]]))
    names = ["age", "dust", "dose", "small"]
    # 1e-6 and 3e-5 are below 1e-4 of the largest |w| = 2: left out; the rest by size
    assert tree.hyperplane_text(0, names) == "-2*dose + 0.5*age"
    assert tree.hyperplane_text(0, names, negligible=1e-5) == "-2*dose + 0.5*age + 3e-05*small"
    assert tree.hyperplane_text(0) == "-2*x3 + 0.5*x1"
    # prediction still uses every coefficient
    X = np.array([[0.0, 0.0, 0.0, 1e5]])  # 3e-5 * 1e5 = 3 > 1.25: right
    assert tree.apply(X)[0] == 2


def test_rule_text_shows_the_largest_terms_and_counts_the_rest():
    from obliq_cli.tree.export import linear_text

    names = ["a", "b", "c", "d", "e"]
    w = np.array([1.0, -0.25, 3.0, -1.0, 0.5])
    # a unit weight is the name itself, never 1*a
    assert linear_text(w, names) == "3*c + a - d + 0.5*e - 0.25*b"
    assert linear_text(-w, names) == "-3*c - a + d - 0.5*e + 0.25*b"
    assert linear_text(w, names, terms=2) == "3*c + a (+3 more)"
    assert linear_text(w, names, terms=5) == linear_text(w, names)
    # ranked by |w_j| x spread: b's column varies 100 times more than the others
    spread = np.array([1.0, 100.0, 1.0, 1.0, 1.0])
    assert linear_text(w, names, terms=1, scale=spread) == "-0.25*b (+4 more)"
    # dust is small both ways: a spread of 0 drops no term, a large one keeps a tiny weight
    assert linear_text(w, names, scale=np.zeros(5)) == linear_text(w, names)
    assert linear_text(np.array([1e-6, 2.0]), ["x", "y"], scale=[1e7, 1.0]) == "1e-06*x + 2*y"
    assert linear_text(np.array([1e-6, 2.0]), ["x", "y"], terms=3) == "2*y"


def test_crimcoord_wrapper_shows_the_inner_finder_the_node():
    from obliq_cli.tree.crimcoord import CrimcoordFinder, QualitativeCoding

    class DerivedRecordingFinder(RecordingFinder):
        def split(self, node):
            self.derived.append(self.X[node.rows].copy())
            return super().split(node)

    rng = np.random.default_rng(12)
    X = np.column_stack([rng.normal(size=150), rng.integers(0, 4, size=150)])
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] == 2)
    coding = QualitativeCoding.fit(X, [1])
    coded = coding.transform(X)
    inner = DerivedRecordingFinder()
    inner.derived = []
    tree = build_tree(coded, y, 3, CrimcoordFinder(inner, coding), StoppingRules(max_depth=2))
    # The inner finder is prepared once per fit and asked about each node itself (its
    # rows into the training set, depth, parent counts, counts), reading the node's own
    # (quantitative, crimcoord) features.
    assert inner.prepared == 1 and len(inner.seen) == 3
    reach = node_rows(tree, coded)
    for node, depth, (rows, counts, d, parent_counts, is_root, _), derived in zip(
            [0, 1, 4], [0, 1, 1], inner.seen, inner.derived):
        assert d == depth
        np.testing.assert_array_equal(rows, reach[node])
        np.testing.assert_array_equal(counts, tree.value[node])
        assert is_root == (node == 0)
        if node:
            np.testing.assert_array_equal(parent_counts, tree.value[0])
        P = coding.crimcoord_matrix(coded[rows], y[rows], 3)
        np.testing.assert_array_equal(derived, coded[rows] @ P)
    # the crimcoords are the node's own, not the root's
    assert not np.allclose(inner.derived[1][:, 1], inner.derived[0][reach[1], 1])


def node_rows(tree, X):
    """The ascending ids of the rows of X that reach each node (``Tree._walk``)."""
    reach = [np.zeros(0, dtype=np.int64)] * tree.n_nodes
    for rows, nodes, _ in tree._walk(X):
        for node in np.unique(nodes):  # a loop over the nodes of a level
            reach[node] = np.sort(rows[nodes == node])
    return reach


# --- Multiway (nominal) splits and missing values ---------------------------------------

from obliq_cli.tree.structure import (  # noqa: E402
    MISSING_DEFAULT,
    MISSING_DISTRIBUTE,
    NOMINAL,
)


class NominalThenAxisFinder(SplitFinder):
    """Root: multiway on column 0 (codes 0..3, code 3 never occurs); below: x1 <= 0.5.
    ``missing`` is the rule of every split."""

    def __init__(self, missing):
        self.missing = missing

    def split(self, node):
        if node.is_root:
            return Split(feature=0, categories=4, missing=self.missing)
        return Split(threshold=0.5, feature=1, missing=self.missing)


# Column 0: a category code 0..2 (3 never occurs), column 1 a number; y = 1 iff
# (code 0 and x1 > 0.5) or code 2.
NOMINAL_X = np.array([[0, 0.0], [0, 1.0], [0, 0.2], [0, 0.9], [1, 0.3], [1, 0.7],
                      [2, 0.1], [2, 0.8], [2, 0.4]])
NOMINAL_Y = np.array([0, 1, 0, 1, 0, 0, 1, 1, 1])


def test_a_multiway_split_has_one_child_per_code_and_an_empty_leaf_for_a_missing_one():
    tree = build_tree(NOMINAL_X, NOMINAL_Y, 2, NominalThenAxisFinder(MISSING_DEFAULT))
    # preorder: root, code 0 (x1 split, 2 leaves), code 1 (pure: leaf), code 2 (pure),
    # code 3 (no case: an empty leaf)
    assert tree.kind[0] == NOMINAL and tree.feature[0] == 0
    np.testing.assert_array_equal(tree.children(0), [1, 4, 5, 6])
    np.testing.assert_array_equal(tree.children(1), [2, 3])
    assert (tree.n_nodes, tree.n_leaves, tree.max_depth) == (7, 5, 2)
    np.testing.assert_array_equal(tree.value[[0, 1, 4, 5, 6]],
                                  [[4, 5], [2, 2], [2, 0], [0, 3], [0, 0]])
    np.testing.assert_array_equal(tree.children_left[0], 1)
    np.testing.assert_array_equal(tree.children_right[0], 6)  # the last child
    np.testing.assert_array_equal(tree.subtree_nodes(1), [1, 2, 3])
    np.testing.assert_array_equal(tree.apply(NOMINAL_X), [2, 3, 2, 3, 4, 4, 5, 5, 5])
    np.testing.assert_array_equal(tree.predict(NOMINAL_X), NOMINAL_Y)
    # code 3 reaches the empty leaf, which predicts its parent's (the root's) classes
    np.testing.assert_allclose(tree.predict_proba(np.array([[3.0, 0.0]])), [[4 / 9, 5 / 9]])
    # the rules name one leaf per row, the one apply finds
    np.testing.assert_array_equal(leaves_by_rules(tree, NOMINAL_X), tree.apply(NOMINAL_X))
    text = tree.to_text(["colour", "size"], ["no", "yes"],
                        category_names={0: ["red", "green", "blue", "grey"]})
    assert text.splitlines() == [
        "root [4, 5]",
        "|   colour = red: [2, 2]",
        "|   |   size <= 0.5: class no [2, 0]",
        "|   |   size > 0.5: class yes [0, 2]",
        "|   colour = green: class no [2, 0]",
        "|   colour = blue: class yes [0, 3]",
        "|   colour = grey: class yes [0, 0]",
    ]
    assert "colour = 0" in tree.to_text(["colour", "size"])  # codes without names


def test_collapse_and_json_keep_multiway_trees_whole():
    tree = build_tree(NOMINAL_X, NOMINAL_Y, 2, NominalThenAxisFinder(MISSING_DISTRIBUTE))
    X_new = np.array([[0, 0.7], [np.nan, 0.2], [1, np.nan], [7, 0.9], [np.nan, np.nan]])
    back = Tree.from_json(tree.to_json())
    np.testing.assert_array_equal(back.predict_proba(X_new), tree.predict_proba(X_new))
    np.testing.assert_array_equal(back.apply(X_new), tree.apply(X_new))
    assert back.to_dict() == tree.to_dict()
    small = tree.collapse([1])  # the code-0 subtree becomes a leaf
    assert (small.n_nodes, small.n_leaves) == (5, 4)
    np.testing.assert_array_equal(small.children(0), [1, 2, 3, 4])
    np.testing.assert_array_equal(small.value, tree.value[[0, 1, 4, 5, 6]])
    np.testing.assert_array_equal(small.predict(NOMINAL_X), [0, 0, 0, 0, 0, 0, 1, 1, 1])
    assert Tree.from_json(small.to_json()).to_dict() == small.to_dict()


def test_a_binary_tree_writes_and_reads_the_json_of_old():
    tree = build_tree(NOMINAL_X[:, 1:], NOMINAL_Y, 2, RecordingFinder(),
                      StoppingRules(max_depth=2))
    data = tree.to_dict()
    assert data["format"] == "obliq-tree/1"
    assert set(data) == {"format", "children_left", "children_right", "feature", "weights",
                         "threshold", "value"}
    back = Tree.from_dict(data)
    np.testing.assert_array_equal(back.branch_child, tree.branch_child)
    assert not back.has_extensions


def test_distributed_missing_values_by_hand():
    X = NOMINAL_X.copy()
    X[0, 0] = np.nan  # a class-0 case with its code unknown: 8 known, shares 3:2:3:0
    tree = build_tree(X, NOMINAL_Y, 2, NominalThenAxisFinder(MISSING_DISTRIBUTE))
    assert tree.missing[0] == MISSING_DISTRIBUTE
    # The unknown case goes to codes 0, 1, 2 with weights 3/8, 2/8, 3/8 (none to 3).
    kids = tree.children(0)
    np.testing.assert_allclose(tree.value[kids], [[1 + 3 / 8, 2], [2 + 2 / 8, 0],
                                                  [3 / 8, 3], [0, 0]])
    # Code 0's node (its x1 = 0 is known there): left gets 1 + 3/8 of class 0.
    code0 = kids[0]
    np.testing.assert_allclose(tree.value[tree.children(code0)], [[1 + 3 / 8, 0], [0, 2]])
    # Code 2's node [3/8, 3] splits again on x1: <= 0.5 holds 0.1, 0.4 and the 3/8 case.
    np.testing.assert_allclose(tree.value[tree.children(kids[2])], [[3 / 8, 2], [0, 1]])
    # A new row with the code unknown is spread by the training weight of the branches
    # (3.375 : 2.25 : 3.375 of 9) over the leaves its x1 = 0.3 reaches: code 0's
    # [1.375, 0], code 1's [2.25, 0], code 2's [3/8, 2]: Quinlan's sum of weight x
    # class distribution.
    share = np.array([3.375, 2.25, 3.375]) / 9
    leaf_dist = np.array([[1.0, 0.0], [1.0, 0.0], [3 / 19, 16 / 19]])
    expected = share @ leaf_dist
    np.testing.assert_allclose(tree.predict_proba(np.array([[np.nan, 0.3]])), [expected])
    assert tree.predict(np.array([[np.nan, 0.3]]))[0] == 0
    # apply follows the heaviest branch (ties to the first): code 0, then x1 <= 0.5
    assert tree.apply(np.array([[np.nan, 0.3]]))[0] == tree.children(code0)[0]
    # Held-out counts with the same routing: the unknown row counts 3/8 under code 0.
    counts = node_class_counts(tree, X, NOMINAL_Y)
    np.testing.assert_allclose(counts[:, :2], tree.value)
    assert counts.dtype == np.float64
    assert node_class_counts(tree, NOMINAL_X, NOMINAL_Y).dtype == np.int64


def test_a_fixed_missing_branch_takes_the_unknown_rows_and_says_so():
    X = NOMINAL_X.copy()
    X[1, 1] = np.nan  # a class-1 case of code 0 with x1 unknown
    tree = build_tree(X, NOMINAL_Y, 2, NominalThenAxisFinder(MISSING_DEFAULT))
    code0 = tree.children(0)[0]
    # At code 0 the known rows split 2:1; the default rule (most rows, ties to the last)
    # sends the unknown one left, and the node stores it as its learned branch.
    assert tree.missing[code0] == 0
    np.testing.assert_array_equal(tree.value[tree.children(code0)], [[2, 1], [0, 1]])
    # Below, every known row is left: the unknown one would follow, so no split.
    assert tree.is_leaf[tree.children(code0)[0]]
    # The root saw no unknown code: its rule stays the default (most weight: code 0).
    assert tree.missing[0] == MISSING_DEFAULT
    assert tree.missing_branch()[0] == 0
    assert tree.predict(np.array([[np.nan, 0.9]]))[0] == 1  # code 0, then x1 > 0.5
    assert "size <= 0.5 or missing" in tree.to_text(["colour", "size"])
    np.testing.assert_array_equal(leaves_by_rules(tree, X), tree.apply(X))
