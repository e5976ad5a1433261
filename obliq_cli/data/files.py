"""The user's own data: a CSV file with a header row, or an ARFF file, named in a config as

``{name: mine, path: data/mine.csv, target: class, categorical: [colour]}`` (or
``{name: file, params: {path: ..., target: ...}}``), with ``missing: error | drop |
impute | native`` and ``nominal: onehot | codes`` (see ``preprocess``), and
``decimal: ","`` for numbers written with a decimal comma (``3,14``, as European
spreadsheets save them; pandas' ``read_csv`` calls the same setting ``decimal``), and
``weights: COLUMN`` for a column of row weights (``row_weight_column``: neither a feature
nor the target; the loaded weights are ``info["sample_weight"]``, which the runner hands
to every fit and pruner of the dataset's tasks as ``sample_weight``).

Feature columns must be numeric unless listed as categorical (a column of text that is
not gets an error saying how to declare it); the target may hold any labels. A blank
cell, ``?`` (ARFF, UCI) or ``NA`` is missing: an error unless the dataset's ``missing``
policy says otherwise (then NaN, or the row is dropped here). Every problem is a
one-line DataError naming the file (and the line and column where there is one).
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Options

from ..errors import DataError
from ..parameters import ListOf
from ..registry import register_dataset
from .preprocess import (
    MISSING_MARKS,
    MISSING_POLICIES,
    NOMINAL_RULES,
    POLICY_HINT,
    point_decimals,
)

MISSING = list(MISSING_MARKS)
# the characters a number's fraction may follow: "." (the default) or "," (3,14)
DECIMAL_MARKS = (".", ",")

# The parameters of the `file` dataset (and its alias `csv`) with their defaults.
FILE_PARAMS = {"path": None, "target": None, "categorical": [], "delimiter": ",",
               "header": True, "missing": "error", "nominal": "onehot",
               "target_is_label": False, "decimal": ".", "weights": None}
# What each may be (scikit-learn's constraint language, checked before a run); the
# delimiter is one of the single characters CSV files use.
FILE_CONSTRAINTS = {"path": [str], "target": [str, None],
                    "categorical": [ListOf(str, min_len=0)],
                    "delimiter": [Options(str, {",", ";", "\t", "|", " ", ":"})],
                    "header": ["boolean"], "target_is_label": ["boolean"],
                    "missing": [Options(str, set(MISSING_POLICIES))],
                    "nominal": [Options(str, set(NOMINAL_RULES))],
                    "decimal": [Options(str, set(DECIMAL_MARKS))],
                    "weights": [str, None]}


def category_codes(values: pd.Series) -> pd.Series:
    """Qualitative values as codes of their sorted categories (as strings); missing cells
    stay missing ('?'). CRIMCOORD (Loh & Shih 1997) maps the codes at each node later."""
    known = values.where(~values.isin(MISSING))
    codes = pd.Series(pd.Categorical(known).codes.astype(str), index=values.index)
    return codes.where(known.notna(), "?")


def parse_numeric(features: pd.DataFrame, where, allow_missing: bool = False,
                  decimal: str = ".", hint=None) -> np.ndarray:
    """A float64 matrix from string cells, or a DataError at the first bad cell.

    ``where(row, col)`` returns the message template with ``{}`` for what is wrong;
    ``hint(col)``, when given, what to add to a non-numeric cell's message (how to say
    what the file means). numpy parses each string exactly (pandas' fast parser can be
    off in the last bit). With ``allow_missing`` a missing cell is NaN instead of an
    error. ``decimal=","`` reads ``3,14`` as 3.14 (and ``3.14`` as no number, as pandas'
    ``read_csv(decimal=",")`` does).
    """
    cells = features.to_numpy(dtype=str)
    missing = np.isin(cells, MISSING)
    if missing.any() and not allow_missing:
        row, col = np.argwhere(missing)[0]
        raise DataError(where(row, col).format("missing value"))
    text = np.where(missing, "nan", point_decimals(cells, decimal))
    try:
        X = text.astype(np.float64)
    except ValueError:
        bad = pd.DataFrame(text).apply(pd.to_numeric, errors="coerce").isna().to_numpy() \
            & ~missing
        row, col = np.argwhere(bad)[0]
        extra = hint(col) if hint is not None else ""
        raise DataError(where(row, col).format(f"non-numeric value {str(cells[row, col])!r}")
                        + extra) from None
    if not np.isfinite(X[~missing]).all():
        row, col = np.argwhere(~np.isfinite(X) & ~missing)[0]
        raise DataError(where(row, col).format("missing or infinite value"))
    return np.ascontiguousarray(X)


def _decimal_comma_hint(column: pd.Series) -> str:
    """'; the numbers look written with decimal commas: ...' when every cell of
    ``column`` that is not a number with "." (missing ones aside) is one with "," (the
    first bad cell's column: a file may hold a text column as well); else ''."""
    cells = column.to_numpy(dtype=str)
    failing = pd.to_numeric(column, errors="coerce").isna().to_numpy() \
        & ~np.isin(cells, MISSING)
    as_comma = pd.to_numeric(pd.Series(point_decimals(cells[failing], ",")),
                             errors="coerce")
    if not failing.any() or as_comma.isna().any():
        return ""
    return ('; the numbers look written with decimal commas: give decimal: "," in the '
            'dataset (--decimal , on the command line)')


def _nominal_hint(name: str) -> str:
    """How to say that feature column ``name`` holds levels, not numbers."""
    return (f"; if {name!r} is a nominal column, declare it: categorical: [{name}] in the "
            f"dataset (--categorical {name} on the command line)")


def _csv_cells(path: str, delimiter: str, header: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    """(cells as strings with the header's names, file line of each row).

    Without a header row the columns are named x1, x2, ... and the first line sets the
    width that every other line must have.
    """
    text = Path(path).read_text(encoding="utf-8-sig", errors="replace")  # BOM: not a name
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    try:
        rows = list(reader)
    except csv.Error as exc:  # a field beyond csv's limit, a broken quote
        raise DataError(f"{path}: line {reader.line_num}: {exc}") from None
    first = next(i for i, r in enumerate(rows) if r)  # leading blank lines carry no names
    if header:
        names, body, offset = [h.strip() for h in rows[first]], rows[first + 1:], first + 2
        width_of = "the header has"
        for i, name in enumerate(names):  # 'class' twice made y two columns: every task failed
            if name in names[:i]:
                raise DataError(f"{path}: line {first + 1}: the column name {name!r} appears "
                                f"twice (columns {names.index(name) + 1} and {i + 1})")
    else:
        names = [f"x{i + 1}" for i in range(len(rows[first]))]
        body, offset = rows[first:], first + 1
        width_of = f"line {first + 1} has"
    widths = np.array([len(r) for r in body], dtype=np.int64)
    ragged = np.flatnonzero((widths != len(names)) & (widths > 0))
    if ragged.size:
        line = int(ragged[0]) + offset
        raise DataError(f"{path}: line {line} has {widths[ragged[0]]} fields, "
                        f"{width_of} {len(names)}")
    frame = pd.DataFrame([r for r in body if r], columns=names, dtype=str)
    return frame, np.flatnonzero(widths > 0) + offset


def _arff_cells(path: str) -> tuple[pd.DataFrame, np.ndarray]:
    """ARFF through scipy (numeric and nominal attributes); lines count data rows."""
    from scipy.io import arff

    # loadarff raises csv's process-wide field limit and leaves it raised; a CSV read
    # later in the same process would then accept a field the limit exists to refuse.
    limit = csv.field_size_limit()
    try:
        data, meta = arff.loadarff(path)
    except (ValueError, NotImplementedError, arff.ArffError) as exc:
        raise DataError(f"{path}: not a readable ARFF file ({str(exc).splitlines()[0]})") \
            from None
    except StopIteration:  # scipy's reader runs off the end of a file without @data
        raise _no_arff_data(path) from None
    finally:
        csv.field_size_limit(limit)
    frame = pd.DataFrame({
        name: [v.decode() if isinstance(v, bytes) else repr(float(v)) for v in data[name]]
        for name in meta.names()
    }, dtype=str).replace({"nan": "?"})
    text = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    start = _arff_data_start(text, path)
    lines = np.array([i + 1 for i, line in enumerate(text) if i > start and line.strip()
                      and not line.startswith("%")])
    # the header's declared levels of each nominal attribute (some may occur in no row)
    frame.attrs["levels"] = {name: [str(v) for v in meta[name][1]] for name in meta.names()
                             if meta[name][0] == "nominal"}
    return frame, lines[: len(frame)]


def canonical_labels(y: np.ndarray) -> np.ndarray:
    """Class labels as text, numeric ones written one way: when every label is a finite
    number, '1', '1.0' and '1.00' are one class '1' and '0.50' is '0.5' (a spreadsheet
    that wrote some labels as floats must not make new classes). Labels that are not
    all numbers are kept as written."""
    distinct, inverse = np.unique(y, return_inverse=True)
    try:
        values = distinct.astype(np.float64)
    except ValueError:
        return y
    if not np.isfinite(values).all():
        return y
    written = [str(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(float(v))
               for v in values.tolist()]
    return np.asarray(written, dtype=str)[inverse.reshape(-1)]


@functools.lru_cache(maxsize=8)
def _read(path: str, target: str | None, delimiter: str, categorical: tuple, mtime: float,
          header: bool = True, missing: str = "error", decimal: str = ".",
          weights: str | None = None):
    if path.lower().endswith(".arff"):
        frame, lines = _arff_cells(path)
    else:
        frame, lines = _csv_cells(path, delimiter, header)
    if frame.empty:
        raise DataError(f"{path}: the file has a header but no rows")
    declared = dict(frame.attrs.get("levels", {}))  # an ARFF header's nominal levels
    target = target if target is not None else frame.columns[-1]
    if target not in frame.columns:
        raise DataError(f"{path}: no target column {target!r}; columns are "
                        f"{', '.join(frame.columns)}")
    frame = frame.apply(lambda col: col.str.strip())
    if weights is not None:
        _check_weight_column(path, weights, list(frame.columns), target, categorical)
    for col in categorical:
        if col not in frame.columns or col == target:
            raise DataError(f"{path}: categorical column {col!r} is not a feature column")
    if weights is not None:  # a missing weight is refused whatever the missing policy
        w = row_weight_column(frame[weights], lines, path, weights, decimal)
        frame = frame.drop(columns=[weights])
    gaps = frame.drop(columns=[target]).isin(MISSING).to_numpy()
    dropped = 0
    if missing == "drop":  # incomplete rows (a missing label too) leave before anything
        incomplete = gaps.any(axis=1) | frame[target].isin(MISSING).to_numpy()
        dropped = int(incomplete.sum())
        if dropped == len(frame):
            raise DataError(f"{path}: missing: drop leaves no row (every row has a "
                            f"missing value)")
        frame, lines = frame[~incomplete].reset_index(drop=True), lines[~incomplete]
        if weights is not None:
            w = _nonzero(w[~incomplete], path, weights)
    elif missing == "error" and gaps.any():
        row, col = np.argwhere(gaps)[0]
        name = frame.drop(columns=[target]).columns[col]
        raise DataError(f"{path}: missing value in column {name!r}, line {lines[row]}; "
                        f"{POLICY_HINT}")
    features = frame.drop(columns=[target])
    levels = []
    for col in categorical:
        # sorted, as category_codes numbers them; with an ARFF header's levels too, so a
        # declared level no row holds still has its code (and one-hot column)
        known = features[col][~features[col].isin(MISSING)]
        levels.append(sorted(set(known) | set(declared.get(col, []))))
        codes = pd.Index(levels[-1]).get_indexer(features[col]).astype(str)
        features[col] = np.where(features[col].isin(MISSING), "?", codes)

    def hint(col: int) -> str:  # how to say what the first bad cell's column holds
        return ((_decimal_comma_hint(features.iloc[:, col]) if decimal == "." else "")
                or _nominal_hint(features.columns[col]))

    X = parse_numeric(features, lambda row, col: f"{path}: {{}} in column "
                      f"{features.columns[col]!r}, line {lines[row]}",
                      allow_missing=missing in ("impute", "native"), decimal=decimal,
                      hint=hint)
    y = frame[target].to_numpy(dtype=str)
    if np.isin(y, MISSING).any():
        row = int(np.flatnonzero(np.isin(y, MISSING))[0])
        raise DataError(f"{path}: missing target in line {lines[row]} (a row without a "
                        f"class cannot be learned from; missing: drop removes it)")
    y = distinct_canonical_labels(y, path)
    if np.unique(y).size < 2:
        raise DataError(f"{path}: the target column {target!r} has a single class")
    X.setflags(write=False)
    y.setflags(write=False)
    if weights is not None:
        w.setflags(write=False)
    cat_idx = [list(features.columns).index(c) for c in categorical]
    return (X, y, list(features.columns), target, cat_idx, levels, dropped,
            w if weights is not None else None)


def _check_weight_column(path: str, weights: str, columns: list, target: str,
                         categorical) -> None:
    """A DataError when ``weights`` names no column of the file (with the closest name),
    the target or a column declared categorical."""
    from ..fields import suggest

    if weights not in columns:
        raise DataError(f"{path}: weights: no column {weights!r}{suggest(weights, columns)}; "
                        f"columns are {', '.join(columns)}")
    if weights == target:
        raise DataError(f"{path}: weights: column {weights!r} is the target; the weights "
                        f"column must be another one")
    if weights in categorical:
        raise DataError(f"{path}: weights: column {weights!r} is also declared categorical "
                        f"(a feature); the weights column is neither a feature nor the "
                        f"target")


def row_weight_column(cells: pd.Series, lines: np.ndarray, path: str, name: str,
                      decimal: str = ".") -> np.ndarray:
    """The row weights of column ``name`` (its string ``cells``, the file ``lines`` of its
    rows) as float64, or a DataError naming the file, the column and the first bad
    line: a missing cell, a value that is no number, not finite or negative, or weights
    that are all zero (no row would be learned from)."""
    where = f"{path}: weights column {name!r}"
    w = parse_numeric(cells.to_frame(), lambda row, col: f"{where}: {{}}, line {lines[row]}",
                      decimal=decimal)[:, 0]
    negative = np.flatnonzero(w < 0)
    if negative.size:
        raise DataError(f"{where}: negative weight {cells.iloc[negative[0]]!r}, line "
                        f"{lines[negative[0]]} (a row weighs 0 or more)")
    return _nonzero(np.ascontiguousarray(w), path, name)


def _nonzero(w: np.ndarray, path: str, name: str) -> np.ndarray:
    if not (w > 0).any():
        raise DataError(f"{path}: weights column {name!r}: every weight is 0 (no row would "
                        f"be learned from)")
    return w


@register_dataset(
    "file", "Your own CSV (header row unless header: false) or ARFF file; numeric or "
            "listed categorical features",
    params=FILE_PARAMS, constraints=FILE_CONSTRAINTS, source="user file",
)
def load_file(path=None, target=None, categorical=(), delimiter=",", header=True,
              missing="error", nominal="onehot", target_is_label=False, decimal=".",
              weights=None):
    """(X, y, info) of a user's CSV or ARFF file; ``target`` defaults to the last column.

    ``header=False`` reads a CSV whose first line is data; its columns are then x1, x2, ...
    (so ``target`` can name one of those). ``decimal=","`` reads numbers written with a
    decimal comma (CSV only). ``target_is_label=True`` says a numeric target
    with many distinct values holds class labels (``check_looks_like_classes``). X and y
    are read-only: they are the memoised arrays, shared by every caller in the process.
    Nominal columns hold the codes of their sorted levels (``info["categories"]``);
    missing cells are NaN under ``missing: impute`` or ``native``;
    ``info["rows_dropped"]`` counts the rows ``drop`` removed. ``weights`` names a
    column of row weights (not a feature, not the target): its values, checked by
    ``row_weight_column``, are ``info["sample_weight"]`` (read-only, one per row of X)
    and the column's name ``info["weights"]``; without it both are None. ``missing`` and
    ``nominal`` are checked against FILE_CONSTRAINTS by ``registry.load_dataset``, the
    one way in.
    """
    if not path:
        raise DataError("dataset 'file': params.path is required (on the command line: "
                        "--data PATH)")
    if not isinstance(header, bool):
        raise DataError(f"{path}: header must be true or false, not {header!r}")
    file = Path(path)
    if not file.is_file():
        raise DataError(f"{path}: {_not_a_file(file)}")
    if decimal != "." and file.suffix.lower() == ".arff":
        raise DataError(f"{path}: decimal: {decimal!r} applies to CSV files (ARFF numbers "
                        f"are written with '.')")
    try:
        X, y, names, target, cat_idx, levels, dropped, sample_weight = _read(
            # a column declared twice is one nominal column (fit and predict agree)
            str(file.resolve()), target, delimiter, tuple(dict.fromkeys(categorical or ())),
            file.stat().st_mtime, header, missing, decimal, weights)
    except DataError as exc:  # under another delimiter the file may be a table: say so
        raise DataError(f"{exc}{_delimiter_hint(file, delimiter)}") from None
    if X.shape[1] == 0:
        raise DataError(f"{path}: no feature columns besides the target {target!r}"
                        f"{_delimiter_hint(file, delimiter)}")
    check_looks_like_classes(y, target, str(path), target_is_label)
    labels, counts = np.unique(y, return_counts=True)
    info = {
        "name": file.stem, "feature_names": names, "source": str(path), "target": target,
        "categorical": cat_idx, "n_samples": X.shape[0], "n_features": X.shape[1],
        "classes": labels.tolist(), "class_counts": dict(zip(labels.tolist(), counts.tolist())),
        "categories": levels, "missing": missing, "nominal": nominal, "rows_dropped": dropped,
        "delimiter": delimiter, "decimal": decimal,
        "weights": weights, "sample_weight": sample_weight,
    }
    return X, y, info


register_dataset("csv", "alias of file", params=FILE_PARAMS, constraints=FILE_CONSTRAINTS,
                 alias_of="file")(load_file)


# Checks that the data can mean what it says, each refusing before the run.

# A numeric target with more distinct values than this, or with at least 10 distinct
# values that are most of its rows (a class label repeats, a measurement rarely does),
# looks like a quantity to regress on: a tree would learn a class per price.
# ``target_is_label: true`` says the numbers are classes all the same.
MAX_NUMERIC_CLASSES = 30


def check_looks_like_classes(y: np.ndarray, target: str, path: str,
                             target_is_label: bool = False) -> None:
    """A DataError when the (canonical) labels ``y`` look like a continuous target."""
    if target_is_label:
        return
    distinct = np.unique(y)
    try:
        values = distinct.astype(np.float64)
    except ValueError:
        return  # text labels
    if not np.isfinite(values).all():
        return
    if distinct.size > MAX_NUMERIC_CLASSES or (distinct.size >= 10
                                               and distinct.size > y.size / 2):
        raise DataError(f"{path}: the target column {target!r} looks continuous "
                        f"({distinct.size} distinct numbers in {y.size} rows); obliq learns "
                        f"class labels (give target_is_label: true if these numbers are "
                        f"classes)")


def distinct_canonical_labels(y: np.ndarray, path: str) -> np.ndarray:
    """``canonical_labels(y)``, refusing labels that are different numbers but one float64
    (20-digit codes: 12345678901234567890 and ...891 would silently become one class);
    '1' and '1.0' are the same number and stay one class."""
    from decimal import Decimal, InvalidOperation

    canonical = canonical_labels(y)
    raw = np.unique(y)
    if np.unique(canonical).size == raw.size:
        return canonical
    merged: dict[str, tuple[str, Decimal]] = {}
    for label, text in zip(raw.tolist(), canonical_labels(raw).tolist()):
        try:
            exact = Decimal(label.strip())
        except InvalidOperation:
            continue
        if text in merged and merged[text][1] != exact:
            raise DataError(f"{path}: the class labels {merged[text][0]!r} and {label!r} are "
                            f"different numbers that read as one ({text}); write them as "
                            f"text (e.g. with a letter in front) to keep them apart")
        merged.setdefault(text, (label, exact))
    return canonical


def _arff_data_start(lines: list[str], path: str) -> int:
    """The index of the ``@data`` line (a file without one has no data rows)."""
    start = next((i for i, line in enumerate(lines)
                  if line.strip().lower().startswith("@data")), None)
    if start is None:
        raise _no_arff_data(path)
    return start


def _no_arff_data(path: str) -> DataError:
    return DataError(f"{path}: no @data section (the ARFF file has no data rows)")


def _not_a_file(file: Path) -> str:
    """Why ``file`` cannot be read, in a few words."""
    if file.is_symlink():
        return "a symbolic link that leads to no file (a loop, or a missing target)"
    return "no such file"


def _consistent_width(text: str, delimiter: str, n_lines: int = 200) -> int:
    """The number of fields when the first ``n_lines`` non-blank lines all have the same
    number under ``delimiter``, else 0."""
    lines = [line for line in text.splitlines()[: n_lines * 2] if line.strip()][:n_lines]
    try:
        widths = {len(row) for row in csv.reader(lines, delimiter=delimiter)}
    except csv.Error:
        return 0
    return widths.pop() if len(widths) == 1 else 0


def _delimiter_hint(file: Path, delimiter: str) -> str:
    """'; with delimiter ';' it reads as a table of 3 columns' when the declared one does
    not give a table of two or more columns and another CSV delimiter does; else ''."""
    if file.suffix.lower() == ".arff":
        return ""
    try:
        text = file.read_text(encoding="utf-8-sig", errors="replace")[: 1 << 20]
    except OSError:
        return ""
    if _consistent_width(text, delimiter) >= 2:
        return ""
    best = max(((_consistent_width(text, d), d) for d in _DELIMITERS if d != delimiter),
               default=(0, ""))
    if best[0] < 2:
        return ""
    return f"; with delimiter {best[1]!r} it reads as a table of {best[0]} columns"


_DELIMITERS = (",", ";", "\t", "|", ":", " ")
