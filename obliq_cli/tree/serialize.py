"""A tree on disk: the ``obliq-tree`` format written (``tree_to_dict``) and read back
(``check_tree_dict``), and the schema of a model file's ``estimator`` section beside it.

``obliq-tree/1`` is a binary tree's arrays as JSON lists; ``obliq-tree/2`` adds the
nominal splits' ``kind`` and CSR children and the per-node ``missing`` rules, written only
when the tree uses them, so a binary tree's file is the version-1 file of old. A stored
tree comes from outside (a colleague's disk, an edit by hand), so the reader checks it as
a whole before any array is built: every failure is one ObliqError naming the field.

The ``estimator`` section of a model file (``TreeClassifier.export_json``: the class
labels, the tree, the qualitative columns' coding, the columns' power-of-two scaling) is
checked here too (``check_estimator_dict``), beside the format it holds; the model
file's own fields and its preprocessing are ``model_schema``'s.

Nothing here imports ``structure``: ``Tree.to_dict`` and ``Tree.from_dict`` call these
functions.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ObliqError
from .node_codes import (
    LEAF,
    LINEAR,
    MISSING_DEFAULT,
    MISSING_DISTRIBUTE,
    NOMINAL,
    OBLIQUE,
    binary_branches,
)

FORMATS = ("obliq-tree/1", "obliq-tree/2")
"""The tree formats read; ``tree_to_dict`` writes the first one that holds the tree."""

MAX_NODES = 10_000_000
"""More nodes than any tree obliq grows on a million rows; a stored tree beyond it is
refused before arrays are built from it."""

MAX_EXPONENT = 2100
"""Largest power-of-two column scaling (``input_exponents``) a float64 can use."""


def tree_to_dict(tree) -> dict:
    """Plain data (lists) for JSON; ``check_tree_dict`` reads it back exactly
    (``Tree.from_dict``). The fields of the extensions are written only when the tree
    uses them, so a binary tree's JSON is the ``obliq-tree/1`` of old."""
    out = {
        "format": "obliq-tree/1",
        "children_left": tree.children_left.tolist(),
        "children_right": tree.children_right.tolist(),
        "feature": tree.feature.tolist(),
        "weights": tree.weights.tolist(),
        # +inf (scikit-learn's "every known value left, the missing ones right") is
        # written as the largest float: the same test for every finite input, and
        # strict JSON
        "threshold": np.minimum(tree.threshold, np.finfo(np.float64).max).tolist(),
        "value": tree.value.tolist(),
    }
    if (tree.kind != LINEAR).any():
        out["format"] = "obliq-tree/2"
        out["kind"] = tree.kind.tolist()
        out["branch_ptr"] = tree.branch_ptr.tolist()
        out["branch_child"] = tree.branch_child.tolist()
    if (tree.missing != MISSING_DEFAULT).any():
        out["format"] = "obliq-tree/2"
        out["missing"] = tree.missing.tolist()
    return out


def _shown(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _type_name(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "an integer", float: "a number"}.get(type(value),
                                                                         type(value).__name__)


def _fail(field: str, message: str):
    raise ObliqError(f"{field}: {message}")


def _int_list(data: dict, key: str, where: str, n: int | None) -> np.ndarray:
    """``data[key]`` as int64: a list of JSON integers (``n`` of them unless None)."""
    field = f"{where}.{key}"
    values = data.get(key)
    if not isinstance(values, list):
        _fail(field, f"must be a list of integers (got {_type_name(values)})")
    if n is not None and len(values) != n:
        _fail(field, f"has {len(values)} entries for a tree of {n} nodes")
    for i, v in enumerate(values):  # a loop over nodes, once per load
        if type(v) is not int or not -2**62 < v < 2**62:
            _fail(f"{field}[{i}]", f"{_shown(v)} is not an integer in range")
    return np.asarray(values, dtype=np.int64).reshape(len(values))


def _float_array(data: dict, key: str, where: str, shape: tuple) -> np.ndarray:
    """``data[key]`` as a finite float64 array of ``shape`` (None: any length there)."""
    field = f"{where}.{key}"
    values = data.get(key)
    if not isinstance(values, list):
        _fail(field, f"must be a list of numbers (got {_type_name(values)})")
    if len(values) != shape[0]:
        _fail(field, f"has {len(values)} entries for a tree of {shape[0]} nodes")
    if len(shape) == 2:
        for i, row in enumerate(values):
            if not isinstance(row, list):
                _fail(f"{field}[{i}]", f"must be a list of numbers (got {_type_name(row)})")
            if len(row) != shape[1]:
                _fail(f"{field}[{i}]", f"has {len(row)} entries where {field}[0] has "
                      f"{shape[1]}")
    try:
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):  # refused below, entry by entry
        array = np.empty(0, dtype=object)
    if array.dtype.kind not in "if" or array.shape != shape:
        flat = values if len(shape) == 1 else [v for row in values for v in row]
        for i, v in enumerate(flat):
            at = f"[{i}]" if len(shape) == 1 else f"[{i // shape[1]}][{i % shape[1]}]"
            if type(v) not in (int, float):
                _fail(field + at, f"{_shown(v)} is not a number")
            if type(v) is int and abs(v) > 2**1023:
                _fail(field + at, f"{_shown(v)} is not a finite number")
    array = array.astype(np.float64) if array.dtype.kind in "if" else np.asarray(
        values, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        at = "".join(f"[{i}]" for i in bad[0])
        _fail(field + at, f"{array[tuple(bad[0])]} is not a finite number")
    return array


def check_tree_dict(data, where: str = "tree") -> dict:
    """The arrays of a stored tree (``Tree.to_dict``) after checking them as a whole;
    an ObliqError naming the field (``where``.key[i]) for anything that is not a tree
    obliq could have written: wrong types or lengths, a child that is no node, a node
    reached twice or never (a cycle, a shared child), nodes out of preorder, a feature
    index past the weights' columns, NaN or infinite numbers, a missing-value rule that
    names no branch. Predicting with such arrays would loop, fail deep inside numpy, or
    answer from a tree that is not the one fitted."""
    if not isinstance(data, dict):
        _fail(where, f"must be an object (got {_type_name(data)})")
    fmt = data.get("format", FORMATS[0])
    if fmt not in FORMATS:
        _fail(f"{where}.format", f"{_shown(fmt)} is not obliq-tree/1 or obliq-tree/2")
    raw = data.get("children_left")
    if not isinstance(raw, list) or not raw:
        _fail(f"{where}.children_left", "must be a non-empty list of integers (got "
              f"{'an empty list' if raw == [] else _type_name(raw)})")
    n = len(raw)
    if n > MAX_NODES:
        _fail(f"{where}.children_left", f"{n} nodes, more than {MAX_NODES}")
    left = _int_list(data, "children_left", where, n)
    right = _int_list(data, "children_right", where, n)
    feature = _int_list(data, "feature", where, n)
    rows = data.get("weights")
    first = rows[0] if isinstance(rows, list) and rows else None
    if not isinstance(first, list) or not first:
        _fail(f"{where}.weights[0]", "must be a non-empty list of numbers (got "
              f"{'an empty list' if first == [] else _type_name(first)})")
    d = len(first)
    weights = _float_array(data, "weights", where, (n, d))
    threshold = _float_array(data, "threshold", where, (n,))
    vrows = data.get("value")
    vfirst = vrows[0] if isinstance(vrows, list) and vrows else None
    if not isinstance(vfirst, list) or not vfirst:
        _fail(f"{where}.value[0]", "must be a non-empty list of class counts (got "
              f"{'an empty list' if vfirst == [] else _type_name(vfirst)})")
    value = _float_array(data, "value", where, (n, len(vfirst)))
    negative = np.argwhere(value < 0)
    if negative.size:
        i, j = negative[0]
        _fail(f"{where}.value[{i}][{j}]", f"{value[i, j]} is not a class count (negative)")

    for key, child in (("children_left", left), ("children_right", right)):
        bad = np.flatnonzero((child != LEAF) & ((child < 0) | (child >= n)))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.{key}[{i}]", f"{child[i]} is not a node (the tree has {n})")
    odd = np.flatnonzero((left == LEAF) != (right == LEAF))
    if odd.size:
        i = odd[0]
        _fail(f"{where}.children_left[{i}]", f"{left[i]} with children_right {right[i]}: "
              "a node is a leaf on both sides or on neither")
    leaf = left == LEAF

    kind = _int_list(data, "kind", where, n) if "kind" in data else np.zeros(n, np.int64)
    bad = np.flatnonzero((kind != LINEAR) & (kind != NOMINAL))
    if bad.size:
        _fail(f"{where}.kind[{bad[0]}]", f"{kind[bad[0]]} is not {LINEAR} (linear) or "
              f"{NOMINAL} (nominal)")
    bad = np.flatnonzero(leaf & (kind != LINEAR))
    if bad.size:
        _fail(f"{where}.kind[{bad[0]}]", "a leaf cannot be a nominal split")

    if ("branch_ptr" in data) != ("branch_child" in data):
        _fail(f"{where}.{'branch_child' if 'branch_ptr' in data else 'branch_ptr'}",
              "missing (branch_ptr and branch_child come together)")
    if "branch_ptr" in data:
        ptr = _int_list(data, "branch_ptr", where, None)
        if ptr.size != n + 1:
            _fail(f"{where}.branch_ptr", f"has {ptr.size} entries for a tree of {n} nodes "
                  f"(needs {n + 1})")
        child = _int_list(data, "branch_child", where, None)
        if ptr[0] != 0:
            _fail(f"{where}.branch_ptr[0]", f"{ptr[0]} is not 0")
        down = np.flatnonzero(np.diff(ptr) < 0)
        if down.size:
            i = down[0] + 1
            _fail(f"{where}.branch_ptr[{i}]", f"{ptr[i]} is below branch_ptr[{i - 1}] "
                  f"({ptr[i - 1]})")
        if ptr[-1] != child.size:
            _fail(f"{where}.branch_ptr[{n}]", f"{ptr[-1]} is not the length of branch_child "
                  f"({child.size})")
        bad = np.flatnonzero((child < 0) | (child >= n))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.branch_child[{i}]", f"{child[i]} is not a node (the tree has {n})")
    else:
        if (kind == NOMINAL).any():
            _fail(f"{where}.branch_ptr", "missing (a nominal split lists its children there)")
        ptr, child = binary_branches(left, right)
    nb = np.diff(ptr)
    for bad, message in (
            (np.flatnonzero(leaf & (nb != 0)), "branches at a leaf"),
            (np.flatnonzero(~leaf & (nb < 2)), "branches at a split (it needs 2 or more)"),
            (np.flatnonzero((kind == LINEAR) & ~leaf & (nb != 2)),
             "branches at a linear split (it has 2)")):
        if bad.size:
            i = bad[0]
            _fail(f"{where}.branch_ptr[{i}]", f"node {i} has {nb[i]} {message}")
    internal = np.flatnonzero(~leaf)
    firsts, lasts = child[ptr[internal]], child[ptr[internal + 1] - 1]
    for key, side, ends in (("children_left", left, firsts), ("children_right", right, lasts)):
        bad = np.flatnonzero(side[internal] != ends)
        if bad.size:
            i = internal[bad[0]]
            _fail(f"{where}.{key}[{i}]", f"{side[i]} is not node {i}'s "
                  f"{'first' if key == 'children_left' else 'last'} branch in branch_child "
                  f"({ends[bad[0]]})")
    # A tree rooted at 0 in preorder: every child follows its parent (no cycle), the
    # first child right after it, each next child where its elder sibling's subtree
    # ends, and the root's subtree is every node (each reached exactly once).
    parent = np.repeat(np.arange(n), nb)
    bad = np.flatnonzero(child <= parent)
    if bad.size:
        b = bad[0]
        _fail(f"{where}.branch_child[{b}]" if "branch_ptr" in data
              else f"{where}.children_{'left' if left[parent[b]] == child[b] else 'right'}"
              f"[{parent[b]}]",
              f"{child[b]} does not come after its parent {parent[b]} (a cycle, or nodes "
              "out of preorder)")
    seen = np.bincount(child, minlength=n)
    twice = np.flatnonzero(seen > 1)
    if twice.size:
        c = twice[0]
        parents = parent[child == c][:2].tolist()
        _fail(f"{where}.branch_child" if "branch_ptr" in data else f"{where}.children_left",
              f"node {c} is a child of nodes {parents[0]} and {parents[1]} (a tree reaches "
              "each node once)")
    end = np.arange(1, n + 1)
    for i in internal[::-1]:  # a loop over splits, children (larger ids) first
        kids = child[ptr[i]:ptr[i + 1]]
        expected = i + 1
        for kid in kids:
            if kid != expected:
                _fail(f"{where}.branch_child" if "branch_ptr" in data
                      else f"{where}.children_{'left' if kid == left[i] else 'right'}[{i}]",
                      f"node {i}'s child {kid} is not where preorder puts it (node "
                      f"{expected})")
            expected = end[kid]
        end[i] = expected
    if end[0] != n:
        _fail(f"{where}.children_left", f"the tree from node 0 reaches {end[0]} of its {n} "
              "nodes")

    bad = np.flatnonzero(leaf & (feature != LEAF))
    if bad.size:
        i = bad[0]
        _fail(f"{where}.feature[{i}]", f"{feature[i]} at a leaf (it is {LEAF} there)")
    bad = np.flatnonzero(~leaf & (feature >= d) | ~leaf & (feature < 0) & (
        (feature != OBLIQUE) | (kind == NOMINAL)))
    if bad.size:
        i = bad[0]
        _fail(f"{where}.feature[{i}]", f"{feature[i]} is not a feature index (the tree has "
              f"{d} features)")

    if "missing" in data:
        missing = _int_list(data, "missing", where, n)
        bad = np.flatnonzero((missing < MISSING_DEFAULT) | (missing >= np.maximum(nb, 1)))
        if bad.size:
            i = bad[0]
            _fail(f"{where}.missing[{i}]", f"{missing[i]} is not a missing-value rule of "
                  f"node {i} ({MISSING_DEFAULT}, {MISSING_DISTRIBUTE} or a branch 0.."
                  f"{max(nb[i], 1) - 1})")
    else:
        missing = None
    out = {"children_left": left, "children_right": right, "feature": feature,
           "weights": weights, "threshold": threshold, "value": value,
           "kind": kind.astype(np.int8) if "kind" in data else None,
           "branch_ptr": ptr if "branch_ptr" in data else None,
           "branch_child": child if "branch_ptr" in data else None, "missing": missing}
    return out

def check_estimator_dict(estimator, classes: list) -> int:
    """Check a model file's ``estimator`` section (``TreeClassifier.export_json``)
    against the file's ``classes``; the number of input features it takes. An
    ObliqError naming the field for the first thing wrong."""
    if not isinstance(estimator, dict):
        _fail("estimator", f"must be an object (got {_type_name(estimator)})")
    if estimator.get("classes") != classes:
        _fail("estimator.classes", f"{_shown(estimator.get('classes'))} are not the model's "
              f"classes {_shown(classes)}")
    tree = check_tree_dict(estimator.get("tree"), "estimator.tree")
    n_classes = tree["value"].shape[1]
    if n_classes != len(classes):
        _fail("classes", f"{len(classes)} classes for a tree whose value array has "
              f"{n_classes} columns")
    n_features = tree["weights"].shape[1]
    coding = estimator.get("qualitative_coding")
    if coding is not None:
        n_features = _check_coding(coding, n_features)
    exponents = estimator.get("input_exponents")
    if exponents is not None:
        field = "estimator.input_exponents"
        if not isinstance(exponents, list) or len(exponents) != n_features:
            _fail(field, f"must be a list of {n_features} integers (got "
                  f"{_shown(exponents)})")
        for i, e in enumerate(exponents):
            if type(e) is not int or abs(e) > MAX_EXPONENT:
                _fail(f"{field}[{i}]", f"{_shown(e)} is not a column scaling exponent")
    spread = estimator.get("input_std")
    if spread is not None:  # the spread feature_importances_ weighs oblique splits by
        field, n_coded = "estimator.input_std", tree["weights"].shape[1]
        if not isinstance(spread, list) or len(spread) != n_coded:
            _fail(field, f"must be a list of {n_coded} numbers (got {_shown(spread)})")
        for i, v in enumerate(spread):
            if type(v) not in (int, float) or not math.isfinite(v) or v < 0:
                _fail(f"{field}[{i}]", f"{_shown(v)} is not a standard deviation (a finite "
                      f"number >= 0)")
    return n_features


def _check_coding(coding, n_coded: int) -> int:
    """The input feature count of a stored ``QualitativeCoding`` whose coded columns must
    be the tree's ``n_coded``."""
    where = "estimator.qualitative_coding"
    if not isinstance(coding, dict):
        _fail(where, f"must be an object (got {_type_name(coding)})")
    d = coding.get("n_features")
    if type(d) is not int or not 1 <= d <= n_coded:
        _fail(f"{where}.n_features", f"{_shown(d)} is not a feature count (1..{n_coded})")
    columns = []
    for key in ("quantitative", "qualitative"):
        values = coding.get(key)
        if not isinstance(values, list):
            _fail(f"{where}.{key}", f"must be a list of column indices (got "
                  f"{_type_name(values)})")
        for i, v in enumerate(values):
            if type(v) is not int or not 0 <= v < d:
                _fail(f"{where}.{key}[{i}]", f"{_shown(v)} is not a column index (0..{d - 1})")
        columns += values
    if sorted(columns) != list(range(d)):
        _fail(where, f"quantitative and qualitative do not list each of the {d} columns once")
    levels = coding.get("levels")
    if not isinstance(levels, list) or len(levels) != len(coding["qualitative"]):
        _fail(f"{where}.levels", f"must be one list of levels per qualitative column (got "
              f"{_shown(levels)})")
    for i, lv in enumerate(levels):
        if (not isinstance(lv, list) or not lv
                or not all(type(v) in (int, float) and math.isfinite(v) for v in lv)
                or any(b <= a for a, b in zip(lv, lv[1:]))):
            _fail(f"{where}.levels[{i}]", "must be a non-empty increasing list of finite "
                  f"numbers (got {_shown(lv)})")
    coded = len(coding["quantitative"]) + sum(len(lv) for lv in levels)
    if coded != n_coded:
        _fail(where, f"codes {coded} columns for a tree of {n_coded}")
    return d


