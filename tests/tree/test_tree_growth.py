"""The tree owns its growth (``Tree.empty``, ``Tree.add_node``, ``Tree.trim``), as
scikit-learn's ``Tree`` does with ``_add_node`` and ``_resize``; and the names the tree's
module always gave (export, serialisation) are still importable from it."""

import pickle

import numpy as np
import pytest

from obliq_cli import make_estimator
from obliq_cli.tree import export, node_codes, serialize, structure
from obliq_cli.tree.structure import (
    LEAF,
    MISSING_DISTRIBUTE,
    NOMINAL,
    OBLIQUE,
    Tree,
)

# A hand-grown tree on two features, in preorder:
#   0: x0 <= 0.5 ? 1 : 2
#   1: leaf [3, 0]
#   2: 1*x0 - 1*x1 <= 0 (oblique) ? 3 : 4, unknown values distributed
#   3: leaf [0, 2]     4: leaf [1, 0]
WHOLE = Tree(np.array([1, LEAF, 3, LEAF, LEAF]), np.array([2, LEAF, 4, LEAF, LEAF]),
             np.array([0, LEAF, OBLIQUE, LEAF, LEAF]),
             np.array([[1.0, 0.0], [0, 0], [1.0, -1.0], [0, 0], [0, 0]]),
             np.array([0.5, 0.0, 0.0, 0.0, 0.0]),
             np.array([[4.0, 2.0], [3.0, 0.0], [1.0, 2.0], [0.0, 2.0], [1.0, 0.0]]),
             missing=np.array([-2, -2, MISSING_DISTRIBUTE, -2, -2]))


def grow_by_hand(capacity):
    tree = Tree.empty(2, 2, capacity=capacity)
    assert tree.add_node(-1, 0, [4, 2], n_branches=2, feature=0, threshold=0.5) == 0
    assert tree.add_node(0, 0, [3, 0]) == 1
    assert tree.add_node(0, 1, [1, 2], n_branches=2, feature=OBLIQUE, threshold=0.0,
                         weights=np.array([1.0, -1.0]), missing=MISSING_DISTRIBUTE) == 2
    assert tree.add_node(2, 0, [0, 2]) == 3
    assert tree.add_node(2, 1, [1, 0]) == 4
    return tree


def assert_same_arrays(a: Tree, b: Tree):
    for name in ("children_left", "children_right", "feature", "weights", "threshold",
                 "value", "kind", "branch_ptr", "branch_child", "missing"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)


@pytest.mark.parametrize("capacity", [1, 2, 64])
def test_add_node_grows_the_tree_the_arrays_describe(capacity):
    # capacity 1 and 2 make the arrays double twice and once on the way
    tree = grow_by_hand(capacity).trim()
    assert_same_arrays(tree, WHOLE)
    X = np.array([[0.2, 9.0], [0.9, 1.0], [0.9, 0.5], [np.nan, 0.0]])
    # the last row: x0 unknown at the root, whose branches weigh 3 and 3 (ties to the
    # last: node 2); there w . x is unknown too, spread 2/3 to node 3 and 1/3 to node 4
    # (apply follows the heavier, node 3)
    np.testing.assert_array_equal(tree.apply(X), [1, 3, 4, 3])
    np.testing.assert_allclose(tree.predict_proba(X),
                               [[1, 0], [0, 1], [1, 0], [1 / 3, 2 / 3]])
    assert tree.to_dict() == WHOLE.to_dict()


def test_a_growing_tree_shows_the_nodes_added_so_far():
    tree = Tree.empty(2, 2, capacity=1)
    assert tree.n_nodes == 0 and tree.branch_ptr.tolist() == [0]
    tree.add_node(-1, 0, [4, 2], n_branches=2, feature=0, threshold=0.5)
    # the root's branches wait for their children
    assert tree.n_nodes == 1 and tree.branch_child.tolist() == [LEAF, LEAF]
    tree.add_node(0, 0, [3, 0])
    assert tree.n_nodes == 2 and tree.children_left.tolist() == [1, LEAF]
    assert tree.children_right.tolist() == [LEAF, LEAF]
    assert tree.value.shape == (2, 2) and tree.weights.shape == (2, 2)
    # a growing tree travels (a worker's pickle) and goes on growing where it was
    copy = pickle.loads(pickle.dumps(tree))
    assert copy.add_node(0, 1, [1, 2]) == 2 and tree.add_node(0, 1, [1, 2]) == 2
    assert_same_arrays(copy.trim(), tree.trim())
    assert copy.children_right.tolist() == [2, LEAF, LEAF]


def test_trim_leaves_arrays_of_the_nodes_alone():
    tree = grow_by_hand(64)
    assert tree.value.base is not None  # a view of the 64-node store while growing
    tree.trim()
    for name in ("children_left", "feature", "weights", "value", "branch_ptr",
                 "branch_child"):
        array = getattr(tree, name)
        assert array.base is None, name  # owns its memory: no 64-node store kept alive
    assert tree.weights.shape == (5, 2)
    assert tree.trim() is tree and tree.n_nodes == 5  # trimming twice changes nothing
    # the builder hands over a trimmed tree: a fitted model keeps no spare capacity
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    y[rng.random(300) < 0.3] ^= 1  # noise, so the unpruned tree is large
    grown = make_estimator("cart-ap").fit(X, y).tree_
    assert grown.n_nodes > 64  # past the first doubling
    assert all(getattr(grown, name).base is None for name in structure._ARRAYS)


def test_a_nominal_node_lists_its_branches_first_to_last():
    tree = Tree.empty(1, 2, capacity=2)
    tree.add_node(-1, 0, [2, 2], n_branches=3, feature=0, kind=NOMINAL)
    for code, counts in enumerate(([2, 0], [0, 2], [0, 0])):
        assert tree.add_node(0, code, counts) == code + 1
    tree.trim()
    assert tree.branch_ptr.tolist() == [0, 3, 3, 3, 3]
    assert tree.branch_child.tolist() == [1, 2, 3]
    # children_left/right: the first and the last branch
    assert (tree.children_left[0], tree.children_right[0]) == (1, 3)
    assert tree.weights[0].tolist() == [1.0] and tree.threshold[0] == 0.0
    np.testing.assert_array_equal(tree.apply(np.array([[0.0], [1.0], [2.0]])), [1, 2, 3])
    back = Tree.from_dict(tree.to_dict())
    assert_same_arrays(back, tree)


def test_the_tree_module_still_gives_the_names_it_gave():
    # other modules, plugins and notebooks import these from structure
    for name, home in (("LEAF", node_codes), ("OBLIQUE", node_codes),
                       ("LINEAR", node_codes), ("NOMINAL", node_codes),
                       ("MISSING_DEFAULT", node_codes), ("MISSING_DISTRIBUTE", node_codes),
                       ("linear_text", export), ("Condition", export),
                       ("check_tree_dict", serialize), ("MAX_NODES", serialize)):
        assert getattr(structure, name) is getattr(home, name), name
    assert WHOLE.to_text() == export.tree_text(WHOLE)
    assert WHOLE.to_dict() == serialize.tree_to_dict(WHOLE)
