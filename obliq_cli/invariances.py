"""What each algorithm keeps when its data are rewritten without changing what they say:
the transformations, the kinds of promise, the reasons shared by several algorithms and
the one table of them all.

An algorithm declares with its registration (``register_algorithm(name, ...,
invariances={...})``), for every transformation of ``TRANSFORMATIONS``, one of

- ``EXACT``: the model fitted on the transformed data predicts the test rows (transformed
  alike) as the model fitted on the original data does, to the bit: the same class
  probabilities, and the same class wherever those have a single largest (a tie at a leaf
  goes to the class that sorts first, whatever the method);
- ``ROUNDING``: the same up to rounding. The transformation reorders or reshapes sums
  (means, scatter matrices, eigenvectors), which changes a split's hyperplane in its last
  bits only, so every test row farther than ``ROUNDING_TOLERANCE`` (relative to the
  terms of w'x and t) from each split it meets, in either tree, is predicted as above;
  only a tree can declare it. Where a training row lies on a split in exact arithmetic
  the rounding decides its side and the trees part: that is "not kept"
  (``ON_THE_SPLIT``), as the test's data of small integers show for some methods;
- ``NotKept(reason)``: not kept, with what in the method depends on it (``shown=False``
  when the test module's data do not show it: read from the method only);
- ``NotApplicable(reason)``: the transformation does not apply (a two-class method and
  three classes; a method without nominal support and a nominal column).

``tests/algorithms/test_invariances.py`` fits every registered algorithm on small data
with signal and on each transformation of them, holds it to what it declares, and finds
each "not kept" broken on some of those data (so no declaration is more cautious than the
method), or on none of them for one declared ``shown=False``. README's table
(``invariance_table``) is rendered from the declarations (``tools/docs.py``, block
``obliq invariances``).

This module imports nothing of obliq's layers: the algorithms use it to declare, the
registry to check a declaration when it is registered, the report to render.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Transformation:
    """A rewriting of a dataset that leaves what it says unchanged (``what``: how the test
    module applies it)."""

    key: str
    title: str
    what: str


TRANSFORMATIONS = (
    Transformation("rows", "rows reordered",
                   "the training rows permuted (the test rows as they were)"),
    Transformation("columns", "columns reordered",
                   "the columns permuted, test rows alike"),
    Transformation("constant", "constant column",
                   "a constant column inserted first, and (a second fit) last"),
    Transformation("duplicate", "column duplicated",
                   "a copy of the most informative column appended"),
    Transformation("combination", "linear combination",
                   "the sum of the two most informative columns appended"),
    Transformation("scale", "column × 2^±10",
                   "the most informative column multiplied by 2**10, and (a second fit) by "
                   "2**-10: exact in floating point"),
    Transformation("classes2", "2 classes swapped",
                   "integer labels of two classes renamed to strings that sort the other way"),
    Transformation("classes3", "3 classes reordered",
                   "integer labels of three classes renamed to strings, in each of the five "
                   "other orders"),
    Transformation("nominal", "onehot vs codes",
                   "a dataset with a nominal column declared `nominal: onehot`, then `nominal: "
                   "codes`, each fitted as a task of a run fits it"),
    Transformation("levels", "levels recoded",
                   "the nominal column's level codes permuted"),
)
KEYS = tuple(t.key for t in TRANSFORMATIONS)

ROUNDING_TOLERANCE = 1e-9
"""``ROUNDING``'s margin: a test row with |w'x - t| at most this times sum |w_j x_j| + |t|
at a split it meets is within rounding of that split."""


@dataclass(frozen=True)
class Kept:
    """A transformation the algorithm keeps: ``exact`` or ``rounding`` (module doc)."""

    kind: str

    @property
    def mark(self) -> str:
        return "✓" if self.kind == "exact" else "≈"


@dataclass(frozen=True)
class NotKept:
    """A transformation the algorithm does not keep, and why. ``shown=False``: read from
    the method, but the test module's data do not show it (the test checks this flag
    too, both ways)."""

    reason: str
    shown: bool = True

    def unshown(self) -> NotKept:
        """The same reason, not shown by the test data."""
        return NotKept(self.reason, shown=False)


@dataclass(frozen=True)
class NotApplicable:
    """A transformation that does not apply to the algorithm, and why."""

    reason: str


EXACT = Kept("exact")
ROUNDING = Kept("rounding")
DECLARATIONS = (Kept, NotKept, NotApplicable)

# --- reasons shared by several algorithms (each written once) ---------------------------

FIRST_COLUMN_WINS = NotKept(
    "equally good splits on different columns go to the first column")
NEW_AXIS = NotKept(
    "an axis-parallel search takes the new column as one more axis to split on")
TWO_CLASSES_ONLY = NotApplicable("two classes only")
NO_NOMINAL = NotApplicable("no nominal support: a nominal column is numbers to it, "
                           "one-hot or codes as the dataset says")
CLASS_SUM_ROUNDING = NotKept(
    "splits of equal value are ranked after rounding, and the criterion's sum over "
    "classes (twoing, entropy) rounds differently in another class order")
COEFFICIENT_ORDER = NotKept(
    "the coefficients are perturbed in column order, and equally good splits go to the "
    "first column")
ROW_ORDER_FOLDS = NotKept(
    "the cross-validation that tunes it draws its folds by row position")
WIDER_SIZE_RULE = NotKept(
    "a node searches obliquely only above 2 rows per column, and the column counts")
RANDOM_PER_COLUMN = NotKept(
    "its random draws are made per column, so another column order or count draws "
    "other hyperplanes")
ON_THE_SPLIT = NotKept(
    "sums taken in another order round the hyperplanes differently, and a training row "
    "that lies on one in exact arithmetic (small integers often do) falls on either side")
MIN_NORM = NotKept(
    "at a node with fewer rows than columns many directions fit, and the one taken (of "
    "least norm) changes with a copied or combined column")


def axis_parallel(**changes) -> dict:
    """The declarations of a deterministic search of axis-parallel splits, thresholds
    between consecutive distinct values (CART's sweep and its relatives): a split depends
    on class counts in sorted order alone, so row order, a constant column, a copy (it
    ties with its original and cuts the same rows) and power-of-two scaling (midpoints
    scale exactly) change nothing, and two classes are two counts; ``changes`` for what
    the algorithm adds to that."""
    return {"rows": EXACT, "columns": FIRST_COLUMN_WINS, "constant": EXACT,
            "duplicate": EXACT, "combination": NEW_AXIS, "scale": EXACT,
            "classes2": EXACT, "classes3": EXACT, "nominal": NO_NOMINAL,
            "levels": NO_NOMINAL, **changes}


def check_declarations(name: str, declared) -> dict:
    """``declared`` (transformation key -> declaration) as a dict, or a ValueError naming
    the algorithm and the first key or value that is not one of this module's."""
    if not isinstance(declared, dict):
        raise ValueError(f"algorithm {name!r}: invariances must be a dict of transformation "
                         f"-> declaration, not {type(declared).__name__}")
    for key, value in declared.items():
        if key not in KEYS:
            raise ValueError(f"algorithm {name!r}: invariances has no transformation "
                             f"{key!r}; transformations: {', '.join(KEYS)}")
        if not isinstance(value, DECLARATIONS) or (
                isinstance(value, Kept) and value.kind not in ("exact", "rounding")) or (
                not isinstance(value, Kept) and not str(value.reason).strip()):
            raise ValueError(f"algorithm {name!r}: invariances[{key!r}] must be EXACT, "
                             f"ROUNDING, NotKept(reason) or NotApplicable(reason), "
                             f"not {value!r}")
    return dict(declared)


def missing(declared: dict) -> list[str]:
    """The transformations ``declared`` says nothing about."""
    return [key for key in KEYS if key not in declared]


def invariance_table(entries) -> tuple[list[str], list[list[str]], list[str]]:
    """README's table as (headers, rows, reasons): ``entries`` (name, declarations) in
    order, a row each, a column per transformation; ✓ exact, ≈ up to rounding, ✗ n not
    kept for reason n of ``reasons`` (✗ n* when the test data do not show it), – n not
    applicable (reason n), ? not declared."""
    reasons: list[str] = []

    def note(reason: str) -> int:
        if reason not in reasons:
            reasons.append(reason)
        return reasons.index(reason) + 1

    rows = []
    for name, declared in entries:
        row = [f"`{name}`"]
        for key in KEYS:
            value = declared.get(key)
            if value is None:
                row.append("?")
            elif isinstance(value, Kept):
                row.append(value.mark)
            elif isinstance(value, NotKept):
                row.append(f"✗ {note(value.reason)}" + ("" if value.shown else "*"))
            else:
                row.append(f"– {note(value.reason)}")
        rows.append(row)
    return ["algorithm"] + [t.title for t in TRANSFORMATIONS], rows, reasons
