"""A model file is checked as a whole before use (obliq_cli.model_schema and
Tree.from_dict): every model `obliq fit` writes passes; each kind of damage is one
ObliqError naming the field, before any array is used."""

import copy
import json

import numpy as np
import pytest
from click.testing import CliRunner

from obliq_cli import registry
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.model import load_model
from obliq_cli.model_schema import check_model
from obliq_cli.tree.structure import Tree

# 60 rows: two numeric columns with blanks and a nominal one; two classes.
ROWS = "".join(
    f"{'' if i % 5 == 2 else i % 7 + 0.5 * (i % 3)},{'' if i % 9 == 4 else (i * 3) % 11},"
    f"{'rgb'[i % 3]},"
    f"{'x' if (i % 7 < 3) != (i % 3 == 0) else 'y'}\n" for i in range(60))
CSV = "a,b,colour,class\n" + ROWS


def _builtin(entries):
    """The entries obliq itself registers (not a test's plugins)."""
    return [e for e in entries if getattr(e.obj, "__module__", "").startswith("obliq_cli.")]


def _single_trees():
    return [e.name for e in _builtin(registry.list_algorithms())
            if hasattr(registry.make_estimator(e.name), "load_tree")]


def _fit(tmp_path, algorithm, *extra):
    data = tmp_path / "d.csv"
    data.write_text(CSV)
    model = tmp_path / f"{algorithm}.json"
    result = CliRunner().invoke(main, ["fit", "--data", str(data), "--target", "class",
                                       "--categorical", "colour", "--missing", "impute",
                                       "--algorithm", algorithm, "-o", str(model), *extra])
    return result, model


@pytest.mark.parametrize("algorithm", _single_trees())
def test_every_single_tree_model_fit_writes_passes_the_check(tmp_path, algorithm):
    result, model = _fit(tmp_path, algorithm)
    assert result.exit_code == 0, result.output
    data = json.loads(model.read_text())
    check_model(data)  # raises on any violation
    estimator, _ = load_model(model)
    assert estimator.tree_.n_nodes == len(data["estimator"]["tree"]["children_left"])


@pytest.mark.parametrize("pruner", [e.name for e in _builtin(registry.list_pruners())])
def test_pruned_models_pass_the_check(tmp_path, pruner):
    result, model = _fit(tmp_path, "cart-ap", "--pruner", pruner)
    if result.exit_code == 2:  # a pruner whose result is not one tree is refused at save
        assert "cannot be kept" in result.output or "single trees" in result.output, \
            result.output
        return
    assert result.exit_code == 0, result.output
    check_model(json.loads(model.read_text()))


@pytest.mark.parametrize("algorithm, pruner", [("c45", None), ("c45", "pessimistic"),
                                               ("cart-ap", None), ("cart-ap", "cc")])
def test_multiway_and_missing_trees_pass_the_check(tmp_path, algorithm, pruner):
    data = tmp_path / "d.csv"
    data.write_text(CSV)
    model = tmp_path / "m.json"
    args = ["fit", "--data", str(data), "--target", "class", "--categorical", "colour",
            "--missing", "native", "--algorithm", algorithm, "-o", str(model)]
    if pruner:
        args += ["--pruner", pruner]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(model.read_text())
    check_model(data)
    tree = data["estimator"]["tree"]
    assert "missing" in tree  # the extension is exercised, not just the binary format
    if algorithm == "c45":
        assert 1 in tree["kind"]


def damaged(base, path, value):
    data = copy.deepcopy(base)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


# ---- a hand-made tree: root a <= 3 -> leaf 1; else node 2: b <= 5 -> leaves 3, 4
TREE = {"format": "obliq-tree/1", "children_left": [1, -1, 3, -1, -1],
        "children_right": [2, -1, 4, -1, -1], "feature": [0, -1, 1, -1, -1],
        "weights": [[1.0, 0.0], [0, 0], [0.0, 1.0], [0, 0], [0, 0]],
        "threshold": [3.0, 0, 5.0, 0, 0], "value": [[6, 4], [5, 0], [1, 4], [1, 0], [0, 4]]}
# a multiway root on column 0 (3 codes), its middle child a binary split
MULTI = {"format": "obliq-tree/2", "children_left": [1, -1, 3, -1, -1, -1],
         "children_right": [5, -1, 4, -1, -1, -1], "feature": [0, -1, 1, -1, -1, -1],
         "weights": [[1, 0], [0, 0], [0, 1], [0, 0], [0, 0], [0, 0]],
         "threshold": [0, 0, 2.5, 0, 0, 0],
         "value": [[6, 6], [3, 0], [2, 3], [2, 0], [0, 3], [1, 3]],
         "kind": [1, 0, 0, 0, 0, 0], "branch_ptr": [0, 3, 3, 5, 5, 5, 5],
         "branch_child": [1, 2, 5, 3, 4], "missing": [-1, -2, 0, -2, -2, -2]}


def test_the_hand_trees_load_and_predict_by_hand():
    tree = Tree.from_dict(TREE)
    assert tree.predict(np.array([[2.0, 9.0], [4.0, 1.0], [4.0, 9.0]])).tolist() == [0, 0, 1]
    multi = Tree.from_dict(MULTI)
    # code 0 -> leaf 1 (class 0); code 1 with b = 3 -> leaf 4 (class 1); code 2 -> leaf 5
    assert multi.predict(np.array([[0, 0], [1, 3], [2, 0]])).tolist() == [0, 1, 1]


@pytest.mark.parametrize("base, path, value, message", [
    (TREE, ["children_left", 2], 17, "tree.children_left[2]: 17 is not a node (the tree has 5)"),
    (TREE, ["children_right", 2], 0, "tree.children_right[2]: 0 does not come after its "
                                     "parent 2"),
    (TREE, ["children_left", 2], 2, "does not come after its parent 2"),  # a self-loop
    (TREE, ["children_right", 0], 3, "node 3 is a child of nodes 0 and 2"),
    (damaged(TREE, ["children_right", 0], 1), ["children_left", 0], 2,
     "tree.children_left[0]: node 0's child 2 is not where preorder puts it (node 1)"),
    (TREE, ["children_right", 1], 2, "a leaf on both sides or on neither"),
    (TREE, ["feature", 2], 2, "tree.feature[2]: 2 is not a feature index (the tree has 2 "
                              "features)"),
    (TREE, ["feature", 3], 0, "tree.feature[3]: 0 at a leaf"),
    (TREE, ["weights", 2, 1], float("nan"), "tree.weights[2][1]: nan is not a finite number"),
    (TREE, ["threshold", 0], float("inf"), "tree.threshold[0]: inf is not a finite number"),
    (TREE, ["threshold", 0], "3", "tree.threshold[0]: '3' is not a number"),
    (TREE, ["threshold", 0], 10**400, "is not a finite number"),
    (TREE, ["value", 1, 0], -1, "tree.value[1][0]: -1.0 is not a class count"),
    (TREE, ["value", 1], [5], "tree.value[1]: has 1 entries where tree.value[0] has 2"),
    (TREE, ["weights", 3], [0], "tree.weights[3]: has 1 entries"),
    (TREE, ["feature"], [0, -1], "tree.feature: has 2 entries for a tree of 5 nodes"),
    (TREE, ["children_left", 0], 1.0, "tree.children_left[0]: 1.0 is not an integer"),
    (TREE, ["children_left", 0], True, "tree.children_left[0]: True is not an integer"),
    (TREE, ["children_left"], [], "tree.children_left: must be a non-empty list"),
    (TREE, ["weights"], KeyError, "tree.weights[0]: must be a non-empty list"),
    (TREE, ["format"], "obliq-tree/9", "tree.format"),
    (MULTI, ["branch_child", 2], 6, "tree.branch_child[2]: 6 is not a node"),
    (MULTI, ["branch_child", 3], 1, "tree.children_left[2]: 3 is not node 2's first branch"),
    (damaged(MULTI, ["children_left", 2], 2), ["branch_child", 3], 2,
     "tree.branch_child[3]: 2 does not come after its parent 2"),  # a cycle in the CSR
    (MULTI, ["branch_ptr", 1], 2, "tree.branch_ptr[1]: node 1 has 1 branches at a leaf"),
    (MULTI, ["branch_ptr"], [0, 3, 3, 5, 5, 5], "tree.branch_ptr: has 6 entries"),
    (MULTI, ["branch_ptr", 6], 4, "tree.branch_ptr[6]: 4 is below branch_ptr[5] (5)"),
    (MULTI, ["branch_ptr", 6], 6, "tree.branch_ptr[6]: 6 is not the length of branch_child"),
    (MULTI, ["branch_child"], KeyError, "tree.branch_child: missing"),
    (MULTI, ["missing", 0], 3, "tree.missing[0]: 3 is not a missing-value rule of node 0"),
    (MULTI, ["kind", 0], 0, "node 0 has 3 branches at a linear split"),
    (MULTI, ["kind", 1], 1, "tree.kind[1]: a leaf cannot be a nominal split"),
    (MULTI, ["kind", 0], 7, "tree.kind[0]: 7 is not"),
    (MULTI, ["feature", 0], -2, "tree.feature[0]: -2 is not a feature index"),
])
def test_each_damage_is_one_error_naming_the_field(base, path, value, message):
    with pytest.raises(ObliqError, match=None) as caught:
        Tree.from_dict(damaged(base, path, value))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_cycle_is_refused_without_hanging():
    # 0 -> (1, 2), 2 -> (3, 2): node 2 is its own child
    cyc = damaged(TREE, ["children_right", 2], 2)
    with pytest.raises(ObliqError, match=r"does not come after its parent 2"):
        Tree.from_dict(cyc)
    # every child id larger, but node 4 is also a child of node 0
    shared = damaged(damaged(TREE, ["children_right", 0], 4), ["children_left", 2], 3)
    with pytest.raises(ObliqError, match=r"node 4 is a child of nodes 0 and 2"):
        Tree.from_dict(shared)


def test_three_mistakes_of_a_model_file_are_three_lines_naming_file_and_field(tmp_path):
    result, model = _fit(tmp_path, "cart-ap")
    assert result.exit_code == 0, result.output
    data = json.loads(model.read_text())
    data["params"] = {"max depth": 3}
    data["pruner"] = {"name": 7}
    data["classes"] = ["x", "x"]
    model.write_text(json.dumps(data))
    with pytest.raises(ObliqError) as caught:
        load_model(model)
    assert caught.value.problems == [
        f"{model}: params: 'max depth' is not a parameter name",
        f"{model}: pruner.name: must be a string (got an integer)",
        f"{model}: classes: a class appears twice"]
    result = CliRunner().invoke(main, ["predict", str(model), str(tmp_path / "d.csv")])
    assert result.exit_code == 2
    assert result.output.splitlines() == [f"error: {line}" for line in caught.value.problems]
