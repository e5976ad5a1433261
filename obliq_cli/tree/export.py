"""A tree as text: its rules, its hyperplanes, its indented print.

The functions here read a fitted ``structure.Tree`` through its arrays and its routing
helpers (``children``, ``missing_branch``, ``effective_value``) and import no tree, so
``Tree.to_text``, ``Tree.rules`` and ``Tree.hyperplane_text`` call them without a circle
(as scikit-learn keeps ``export_text`` beside its ``Tree``, not in it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .node_codes import LEAF, NOMINAL


def linear_text(w, names, digits: int = 4, negligible: float = 1e-4, terms: int | None = None,
                scale=None) -> str:
    """``w . x`` as text: the terms largest first, those below ``negligible`` times the
    largest left out (numerical dust of a search, not part of the rule a reader wants),
    signs written as ``a - b``, a coefficient of magnitude 1 as the bare name (``x3``, not
    ``1*x3``); ``"0"`` when every coefficient is 0.

    The terms are ranked by ``|w_j|``, or by ``|w_j| * scale[j]`` when ``scale`` (e.g.
    each column's standard deviation) is given, so that a coefficient on a column of
    large values is not outranked by a larger one on a column of small values; a term is
    then negligible only when it is so by both measures (a small coefficient on a column
    of large values matters; a large one on a column that happens to be constant still
    shifts the rule). ``terms`` = k keeps the k first and counts the rest,
    ``"... (+27 more)"``: a 30-term hyperplane printed in full is not a rule anyone reads
    (the stored hyperplane, which predicts, keeps every coefficient)."""
    w = np.asarray(w, dtype=np.float64)
    size = np.abs(w)
    largest = size.max() if size.size else 0.0
    if largest == 0.0:
        return "0"
    keep = size >= negligible * largest
    rank = size
    spread = None if scale is None else size * np.asarray(scale, dtype=np.float64)
    if spread is not None and spread.max() > 0:  # no spread at all: ranked by |w|
        rank = spread
        keep |= spread >= negligible * spread.max()
    keep = np.flatnonzero(keep)
    order = keep[np.argsort(-rank[keep], kind="stable")]  # ties keep feature order
    shown = order if terms is None else order[:max(int(terms), 1)]
    text = " ".join(f"{'-' if w[i] < 0 else '+'} {_coefficient(abs(w[i]), digits)}{names[i]}"
                    for i in shown)
    if shown.size < order.size:
        text += f" (+{order.size - shown.size} more)"
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _coefficient(value: float, digits: int) -> str:
    """A coefficient's text before its name: ``0.52*``, or nothing for one that prints
    as 1 (a unit weight reads as the feature itself)."""
    text = f"{value:.{digits}g}"
    return "" if text == "1" else f"{text}*"


class Condition(NamedTuple):
    """One test on the path to a leaf (``Tree.rules``).

    ``test`` is ``"<="`` or ``">"`` for a linear node (``weights . x`` against
    ``threshold``) or ``"=="`` for a nominal node (column ``feature`` equals the code
    ``threshold``; ``weights`` is that column's unit vector). ``missing`` True means the
    branch also takes the rows whose value is unknown there (a fixed missing branch); at a
    distributing node an unknown row follows no single rule (it is spread over all).
    """

    weights: np.ndarray
    threshold: float
    test: str
    feature: int = LEAF
    missing: bool = False


def _conditions(tree, node: int, rule: int) -> list[Condition]:
    """The condition of each branch of internal ``node`` (``rule`` its resolved
    missing rule)."""
    w, t, f = tree.weights[node], float(tree.threshold[node]), int(tree.feature[node])
    if tree.kind[node] == NOMINAL:
        return [Condition(w, float(v), "==", f, rule == v)
                for v in range(int(tree.n_branches[node]))]
    return [Condition(w, t, "<=", f, rule == 0), Condition(w, t, ">", f, rule == 1)]


def rules(tree) -> list[tuple[list[Condition], int]]:
    """Every leaf of ``tree`` as (conditions, node id), leaves in preorder; see
    ``Condition``.

    A row whose values are all known satisfies the conditions of exactly one leaf.
    """
    rule = tree.missing_branch()
    out = []
    stack: list[tuple[int, list]] = [(0, [])]
    while stack:
        node, conds = stack.pop()
        if tree.children_left[node] == LEAF:
            out.append((conds, node))
            continue
        branch = list(zip(tree.children(node).tolist(), _conditions(tree, node, rule[node])))
        for child, cond in branch[::-1]:
            stack.append((child, conds + [cond]))
    return out


def hyperplane_text(tree, node: int, feature_names=None, digits: int = 4,
                    negligible: float = 1e-4, terms: int | None = None, scale=None) -> str:
    """``w . x`` of a node as text, e.g. ``x3`` or ``-2*dose + 0.5*age``.

    An oblique node lists its terms largest first and leaves out those below
    ``negligible`` times the largest (a coefficient of 1e-06 beside ones of order 1 is
    numerical dust of the search, not part of the rule a reader wants); ``terms`` and
    ``scale`` as ``linear_text``. The stored hyperplane, which predicts, keeps every
    coefficient."""
    names = feature_names if feature_names is not None else [
        f"x{i + 1}" for i in range(tree.n_features)]
    if tree.feature[node] >= 0:
        return str(names[tree.feature[node]])
    return linear_text(tree.weights[node], names, digits, negligible, terms, scale)


def tree_text(tree, feature_names=None, class_names=None, digits: int = 4,
              category_names=None, terms: int | None = None, scale=None) -> str:
    """``tree`` as indented readable rules, one line per node.

    A nominal node shows one line per branch, ``outlook = sunny``, the category
    names read from ``category_names`` (feature index -> list of names by code; the
    code itself when absent). A branch that takes the rows with an unknown value by
    a learned (explicit) rule says ``or missing``; the default rule and C4.5's
    distribution are not printed. ``terms`` = k prints the k largest terms of each
    oblique rule and counts the rest (``linear_text``; ``scale`` ranks them)."""
    classes = class_names if class_names is not None else list(range(tree.n_classes))
    categories = category_names or {}
    effective = tree.effective_value()
    lines = []
    stack: list[tuple[int, int, str]] = [(0, 0, "")]
    while stack:
        node, level, prefix = stack.pop()
        pad = "|   " * level
        counts = ", ".join(f"{c:g}" for c in tree.value[node])
        if tree.children_left[node] == LEAF:
            label = classes[int(np.argmax(effective[node]))]
            lines.append(f"{pad}{prefix}class {label} [{counts}]")
            continue
        # An internal node's line carries the condition that leads to it.
        lines.append(f"{pad}{prefix}[{counts}]" if prefix else f"root [{counts}]")
        lhs = hyperplane_text(tree, node, feature_names, digits, terms=terms, scale=scale)
        explicit = int(tree.missing[node])
        texts = []
        if tree.kind[node] == NOMINAL:
            names = categories.get(int(tree.feature[node]))
            for v in range(int(tree.n_branches[node])):
                texts.append(f"{lhs} = {names[v] if names is not None else v}")
        else:
            t = f"{tree.threshold[node] + 0.0:.{digits}g}"  # -0.0 prints as 0
            texts = [f"{lhs} <= {t}", f"{lhs} > {t}"]
        for b, (child, text) in reversed(list(enumerate(zip(tree.children(node), texts)))):
            extra = " or missing" if explicit == b else ""
            stack.append((int(child), level + 1, f"{text}{extra}: "))
    return "\n".join(lines)
