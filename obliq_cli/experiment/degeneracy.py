"""Degenerate fits: the one definition of a flagged task, used by the writer of runs.csv
and by every reader that shows a number.

A model that learned nothing still gets a test accuracy, and a table prints it like any
other ("14.29 ± 0.00"). So each task row records, in runs.csv's ``flags`` column, which
of these hold ("" when none; codes ``;``-joined in the order below):

``at_majority``
    the training accuracy is at or below the majority rate of the rows the model grew
    on: ``train_accuracy <= 100 × (largest class count / rows)`` (a tie counts). A
    training set of one class is never flagged by this rule (any model is "at the
    majority rate" there).
``one_leaf``
    the tree is one leaf (``n_leaves == 1``) while the rows it grew on hold two or more
    classes. A model that is not a tree (an SVM, a scikit-learn classifier) has no
    leaves (NaN) and is never flagged by this rule.
``constant_predictions``
    every test prediction is the same class while the test rows hold two or more
    classes (read from the confusion matrix: one predicted column holds every count,
    two or more true rows are non-empty).

Rows written before the column existed are read with what they hold: ``one_leaf`` is
then ``n_leaves == 1`` with ``train_accuracy < 100`` (a one-leaf model predicts one
class, so it misses a training row exactly when those rows hold two classes),
``constant_predictions`` comes from the stored confusion matrix, and ``at_majority``,
which needs the class counts of the grow rows, is not decided (never guessed).
"""

from __future__ import annotations

import json
import math

import numpy as np

AT_MAJORITY = "at_majority"
ONE_LEAF = "one_leaf"
CONSTANT = "constant_predictions"
CODES = {
    AT_MAJORITY: "training accuracy at or below the majority-class rate of the rows grown on",
    ONE_LEAF: "a single leaf although the rows grown on hold two or more classes",
    CONSTANT: "one class predicted for every test row although they hold two or more",
}
COLUMN = "flags"
"""runs.csv's column (schema.RUN_COLUMNS)."""
MARK = "⚠"
"""What a table cell holding flagged tasks carries after its number."""
# Both sides of the at_majority comparison are percentages of a count over the same rows
# computed in two ways (mean of hits x 100, 100 x count / n); they differ in the last bits
# only, far below the 100 / n a real difference makes (1e-5 points at 10^7 rows).
_SLACK = 1e-9


def majority_rate(y) -> float:
    """100 × the largest class count / the rows of ``y`` (NaN for no rows)."""
    y = np.asarray(y)
    if y.size == 0:
        return math.nan
    _, counts = np.unique(y, return_counts=True)
    return 100.0 * float(counts.max()) / y.size


def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number


def task_flags(train_accuracy, majority, n_leaves, matrix) -> str:
    """The codes of one task (module doc), ";"-joined in CODES order, "" when none.

    ``train_accuracy`` and ``majority`` (``majority_rate`` of the grow rows) in percent;
    ``majority`` NaN when unknown (a row written before flags were recorded), which
    leaves at_majority undecided and decides one_leaf by ``train_accuracy < 100``.
    ``n_leaves``: None or NaN for a model that is not a tree. ``matrix``: the test
    confusion matrix (rows true, columns predicted), or None when unknown."""
    accuracy, majority, leaves = (_number(train_accuracy), _number(majority),
                                  _number(n_leaves))
    codes = []
    if accuracy <= majority + _SLACK and majority < 100.0:  # NaN on either side: False
        codes.append(AT_MAJORITY)
    impure = majority < 100.0 if not math.isnan(majority) else accuracy < 100.0
    if leaves == 1 and impure:
        codes.append(ONE_LEAF)
    if matrix is not None:
        matrix = np.asarray(matrix)
        if (matrix.ndim == 2 and matrix.size and np.count_nonzero(matrix.sum(axis=0)) == 1
                and np.count_nonzero(matrix.sum(axis=1)) >= 2):
            codes.append(CONSTANT)
    return ";".join(codes)


def _stored_matrix(cell):
    """A stored confusion cell (JSON) as an array, None when it is not a square matrix."""
    try:
        matrix = np.asarray(json.loads(cell), dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return matrix if matrix.ndim == 2 and matrix.shape[0] == matrix.shape[1] else None


def read_flags(runs) -> tuple[list[str], list[bool]]:
    """(flags, undecided) of every row of ``runs`` (runs.csv read as columns, numbers
    typed): the stored ``flags`` where the file has the column, else ``task_flags`` of
    the row's stored columns; ``undecided`` is True on an "ok" row whose at_majority
    could not be decided (no ``flags`` column). A failed task has no flags."""
    ok = [status == "ok" for status in runs["status"]]
    n = len(ok)
    if COLUMN in runs.columns:
        stored = ["" if not good or not isinstance(text, str) else text.strip()
                  for good, text in zip(ok, runs[COLUMN])]
        return stored, [False] * n

    def column(name):
        return list(runs[name]) if name in runs.columns else [None] * n

    flags = [task_flags(accuracy, math.nan, leaves, _stored_matrix(cell)) if good else ""
             for good, accuracy, leaves, cell in zip(ok, column("train_accuracy"),
                                                     column("n_leaves"),
                                                     column("confusion"))]
    return flags, ok


def codes_of(flags) -> list[str]:
    """The distinct codes of several tasks' flags, in CODES order (unknown codes last)."""
    found = {code for text in flags if isinstance(text, str) for code in text.split(";")
             if code}
    return [c for c in CODES if c in found] + sorted(found - set(CODES))


def cell_text(flagged: int, tasks: int, codes) -> str:
    """"2 of 10 tasks flagged: at_majority, constant_predictions"."""
    return f"{flagged} of {tasks} task{'s' if tasks != 1 else ''} flagged: {', '.join(codes)}"


def cells_text(cells) -> str:
    """"d1 / A (2 of 10: at_majority), d2 / B (...)" of (dataset, algorithm, flagged,
    tasks, codes) cells."""
    return ", ".join(f"{d} / {a} ({f} of {t}: {', '.join(codes)})"
                     for d, a, f, t, codes in cells)


def marked(label, methods) -> str:
    """``label`` with the mark after it when it is one of ``methods`` (the methods whose
    cells hold flagged tasks), as a figure's tick or legend label."""
    return f"{label} {MARK}" if str(label) in methods else str(label)


def figure_note(methods) -> str:
    """The caption line of a figure marking ``methods`` ({label: (cells holding flagged
    tasks, cells shown)}): "⚠ cells holding tasks flagged degenerate (runs.csv's flags):
    A 2 of 4, B 1 of 4", "" when none."""
    if not methods:
        return ""
    return (f"{MARK} cells holding tasks flagged degenerate (runs.csv's {COLUMN}): "
            + ", ".join(f"{label} {flagged} of {cells}"
                        for label, (flagged, cells) in methods.items()))


def note(cells, total_tasks: int, undecided: int = 0) -> str:
    """The line under a table. ``cells``: (dataset, algorithm, flagged, tasks, codes) of
    each cell holding flagged tasks, in the table's order; ``total_tasks``: the tasks
    behind the table's numbers; ``undecided``: how many of them were read from a runs.csv
    without the flags column. "" when there is nothing to say."""
    parts = []
    if cells:
        flagged = sum(c[2] for c in cells)
        used = codes_of(";".join(c[4]) for c in cells)
        parts.append(
            f"{MARK} degenerate tasks: {flagged} of {total_tasks} task"
            f"{'s' if total_tasks != 1 else ''} flagged (runs.csv's {COLUMN}), in "
            f"{len(cells)} cell{'s' if len(cells) != 1 else ''}: {cells_text(cells)}; "
            + "; ".join(f"{code}: {CODES.get(code, 'a code this obliq does not know')}"
                        for code in used))
    if undecided:
        parts.append(
            f"{undecided} task{'s' if undecided != 1 else ''} read from a runs.csv written "
            f"before obliq recorded {COLUMN}: {ONE_LEAF} and {CONSTANT} were read from "
            f"their stored columns, {AT_MAJORITY} could not be checked")
    return "; ".join(parts)
