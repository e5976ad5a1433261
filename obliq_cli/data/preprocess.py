"""What a task does to a dataset's columns before an algorithm sees them: missing values
and nominal (qualitative) attributes. One small fitted object, used by the runner (one
call per task), by ``obliq fit`` and kept in the model file, so ``obliq predict`` repeats
exactly what the fit did.

A loader gives numeric columns as floats and each nominal column as the codes 0..k-1 of
its sorted levels (``info["categorical"]``, ``info["categories"]``), with NaN where a cell
was missing (a blank, ``?`` or ``NA``) when the dataset declares a ``missing`` policy
other than ``error``:

- ``error`` (the default): a missing cell stops the load, naming its line and column;
- ``drop``: the loader removes incomplete rows (``info["rows_dropped"]`` counts them);
- ``impute``: :meth:`Preprocessor.fit` learns each numeric column's median and each
  nominal column's most frequent level on the task's grow rows only, and
  :meth:`Preprocessor.transform` fills every row (prune and test rows too) with those,
  so no value of a held-out row reaches the tree (Hastie, Tibshirani & Friedman, *The
  Elements of Statistical Learning*, 2nd ed., §7.10.2: every step that learns from the
  data belongs inside the fold);
- ``native``: NaN reaches the algorithm, which must say it takes it
  (``sklearn.utils.get_tags(est).input_tags.allow_nan``); any other is refused before a
  run.

Nominal columns: an algorithm with a ``categorical_features`` parameter (QUEST, HHCART's
CRIMCOORDs, Loh & Shih 1997; C4.5's and ID3's multiway splits, Quinlan 1993 ch. 2) takes
the codes and the column indices (``native``). Every
other algorithm gets what its own ``nominal:`` (in its config entry) or else the
dataset's ``nominal`` rule says: ``onehot`` (one 0/1 column per level, named
``colour=red``) or ``codes`` (the codes as if they were numbers, the papers'
preprocessing of their catalog datasets). The one-hot levels are the dataset's
declared categories, read from the whole file at load time rather than from a task's
grow rows: a level seen only in test rows still has its (all-zero in training) column,
so every task of one dataset has the same columns, and a test row is never refused for
a level the loader already knows. A level no loaded row holds is an error at predict
time, naming the row and the column.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError, ObliqError

MISSING_POLICIES = ("error", "drop", "impute", "native")
NOMINAL_RULES = ("onehot", "codes")
ENCODINGS = ("native", "onehot", "codes")
# the marks a cell is read as missing by (files.MISSING repeats them for the loaders)
MISSING_MARKS = ("?", "", "NA", "NaN", "nan", "<null>")

POLICY_HINT = ("declare how to treat missing values: missing: drop | impute | native in "
               "the dataset (obliq fit --missing)")


def point_decimals(cells: np.ndarray, decimal: str) -> np.ndarray:
    """String cells with ``decimal`` as the decimal point: under "," a cell's comma
    becomes "." and a cell that already holds "." becomes text no parser reads as a
    number (it is ambiguous in such a file: a thousands mark or a slip)."""
    if decimal == ".":
        return cells
    return np.where(np.char.find(cells, ".") >= 0, "not a number",
                    np.char.replace(cells, decimal, "."))


def takes_nominal(estimator) -> bool:
    """Whether ``estimator`` handles nominal columns itself (a ``categorical_features``
    parameter, as QUEST, HHCART, C4.5 and ID3 have)."""
    return "categorical_features" in estimator.get_params(deep=False)


def accepts_missing(estimator) -> bool:
    """scikit-learn's own declaration: the estimator's ``allow_nan`` input tag."""
    from sklearn.utils import get_tags

    try:
        return bool(get_tags(estimator).input_tags.allow_nan)
    except (AttributeError, TypeError, ValueError):  # an estimator without tags
        return False


def encoding_for(estimator, info: dict, override: str | None = None) -> str:
    """How ``estimator`` gets the dataset's nominal columns: native, onehot or codes.
    ``override``: the algorithm's own ``nominal:`` (onehot or codes), which replaces the
    dataset's rule but not an algorithm's native handling. Datasets that declare no rule
    (the catalog's, plugins') keep their codes."""
    if takes_nominal(estimator):
        return "native"
    return override or info.get("nominal") or "codes"


def missing_policy(info: dict, override: str | None = None) -> str:
    """The missing-value rule a task applies: the dataset's (``info["missing"]``), or an
    algorithm's own ``impute`` / ``native`` where the dataset keeps its gaps (its rule is
    impute or native). Under error or drop the loaded rows have no gap, so an override
    changes nothing there."""
    policy = info.get("missing") or "error"
    if override in ("impute", "native") and policy in ("impute", "native"):
        return override
    return policy


def check_missing_support(estimator, info: dict, what: str,
                          override: str | None = None) -> None:
    """An ObliqError when the task passes NaN (``missing: native``, the dataset's or the
    algorithm's ``override``) to an algorithm that does not declare it takes it; ``what``
    names the algorithm in the message."""
    if missing_policy(info, override) == "native" and not accepts_missing(estimator):
        raise ObliqError(f"missing: native, but algorithm {what} does not accept missing "
                         f"values; use impute or drop")


def check_nominal_support(estimator, info: dict, what: str,
                          override: str | None = None) -> None:
    """An ObliqError when algorithm ``what``'s own ``nominal: onehot`` (``override``)
    meets a dataset that keeps no levels for its nominal columns (a catalog entry given
    as codes): there are no one-hot columns to make."""
    if (info.get("categorical") and info.get("categories") is None
            and encoding_for(estimator, info, override) == "onehot"):
        raise ObliqError(f"nominal: onehot for algorithm {what}, but the dataset keeps "
                         f"its nominal columns as codes without their levels; use codes")


def check_columns(where, wanted, columns) -> None:
    """A DataError naming ``where`` when a column a model reads (``wanted``) is not
    among a file's ``columns`` (the first five absent ones are named)."""
    absent = [n for n in wanted if n not in columns]
    if absent:
        shown = ", ".join(absent[:5]) + (f" and {len(absent) - 5} more"
                                         if len(absent) > 5 else "")
        raise DataError(f"{where}: the columns do not match the model's features: "
                        f"missing {shown} (the model's: {', '.join(wanted)}; "
                        f"the file's: {', '.join(columns)})")


class Preprocessor:
    """The per-task column transform: ``fit(X_grow)`` then ``transform(X)``.

    ``feature_names``: the loaded columns; ``categorical``: the indices of the nominal
    ones; ``categories``: their levels (one list per index; None when the loader kept
    no levels, as the catalog's codes); ``missing``: the dataset's policy; ``encoding``:
    native, onehot or codes. ``output_names_`` and ``categorical_out_`` describe what
    ``transform`` returns. When there is nothing to do (no missing values to fill, no
    one-hot columns) ``transform`` returns its input itself: a numeric dataset's trees
    stay bit-for-bit what they were.
    """

    def __init__(self, feature_names, categorical=(), categories=None, missing="error",
                 encoding="codes"):
        self.feature_names = [str(n) for n in feature_names]
        self.categorical = [int(j) for j in categorical]
        self.categories = None if categories is None else [[str(v) for v in levels]
                                                           for levels in categories]
        if missing not in MISSING_POLICIES:
            raise ObliqError(f"missing must be one of {', '.join(MISSING_POLICIES)}, "
                             f"not {missing!r}")
        if encoding not in ENCODINGS:
            raise ObliqError(f"encoding must be one of {', '.join(ENCODINGS)}, "
                             f"not {encoding!r}")
        if encoding == "onehot" and self.categorical and self.categories is None:
            raise ObliqError("one-hot columns need the nominal columns' levels")
        self.missing = missing
        self.encoding = encoding
        self.fill_: np.ndarray | None = None
        self._layout()

    @classmethod
    def for_task(cls, estimator, info: dict, n_features: int,
                 missing: str | None = None, nominal: str | None = None) -> Preprocessor:
        """The preprocessor a task builds for ``estimator`` on a dataset's ``info``
        (``missing``, ``nominal``: the algorithm's own rules, see ``missing_policy`` and
        ``encoding_for``)."""
        names = info.get("feature_names") or []
        if len(names) != n_features:  # a loader that names no (or not every) column
            names = [f"x{j + 1}" for j in range(n_features)]
        categorical = list(info.get("categorical") or [])
        categories = info.get("categories")
        encoding = encoding_for(estimator, info, nominal) if categorical else "codes"
        return cls(names, categorical, categories, missing_policy(info, missing), encoding)

    # ------------------------------------------------------------------ layout
    def _onehot(self) -> bool:
        return self.encoding == "onehot" and bool(self.categorical)

    def _layout(self) -> None:
        """Output names and the nominal columns' places in the output."""
        if not self._onehot():
            self.output_names_ = list(self.feature_names)
            self.categorical_out_ = list(self.categorical)
            return
        levels = dict(zip(self.categorical, self.categories))
        names = []
        for j, name in enumerate(self.feature_names):
            if j in levels:
                names += [f"{name}={level}" for level in levels[j]]
            else:
                names.append(name)
        self.output_names_ = names
        self.categorical_out_ = []

    @property
    def identity(self) -> bool:
        """True when ``transform`` returns its input unchanged."""
        return self.missing != "impute" and not self._onehot()

    # -------------------------------------------------------------- fit, apply
    def fit(self, X) -> Preprocessor:
        """Learn the fill values (``missing: impute``) from ``X``, a task's grow rows."""
        X = self._check(X)
        if self.missing != "impute":
            return self
        fill = np.zeros(X.shape[1])
        nominal = np.zeros(X.shape[1], dtype=bool)
        nominal[self.categorical] = True
        known = ~np.isnan(X)
        empty = np.flatnonzero(~known.any(axis=0))
        if empty.size:
            raise DataError(f"column {self.feature_names[empty[0]]!r} has no value in the "
                            f"rows a task grows on: nothing to impute from")
        numeric = np.flatnonzero(~nominal)
        if numeric.size:
            fill[numeric] = np.nanmedian(X[:, numeric], axis=0)
        for j in self.categorical:  # a loop over columns, not rows
            codes = X[known[:, j], j].astype(np.int64)
            fill[j] = np.argmax(np.bincount(codes))  # ties: the first level in order
        self.fill_ = fill
        return self

    @property
    def needs_fit(self) -> bool:
        """Only imputation learns from rows."""
        return self.missing == "impute"

    def transform(self, X) -> np.ndarray:
        """``X`` (loaded columns: numbers, codes, NaN) as the algorithm takes it; with
        nothing to do, ``X`` itself (not even its dtype changes)."""
        if self.identity:
            if np.ndim(X) != 2 or np.shape(X)[1] != len(self.feature_names):
                self._check(X)  # the error message
            return X
        X = self._check(X)
        if self.missing == "impute":
            if self.fill_ is None:
                raise ObliqError("the preprocessor imputes but was not fitted")
            gaps = np.isnan(X)
            if gaps.any():
                X = np.where(gaps, self.fill_[None, :], X)
        if not self._onehot():
            return X
        levels = dict(zip(self.categorical, self.categories))
        blocks = []
        for j in range(X.shape[1]):  # columns, not rows
            if j not in levels:
                blocks.append(X[:, j:j + 1])
                continue
            codes = X[:, j]
            block = (codes[:, None] == np.arange(len(levels[j]))[None, :]).astype(np.float64)
            block[np.isnan(codes)] = np.nan  # missing: native keeps the gap visible
            blocks.append(block)
        return np.ascontiguousarray(np.hstack(blocks))

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)

    def _check(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.feature_names):
            raise ObliqError(f"the preprocessor takes {len(self.feature_names)} columns, "
                             f"got an array of shape {X.shape}")
        return X

    # ------------------------------------------------------------ raw cells
    def encode(self, frame, lines, where: str, decimal: str = ".",
               strict: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(the loaded-columns matrix: numbers, codes, NaN; a note per row) from raw text
        cells: a ``DataFrame`` holding at least the input columns (any order, others
        ignored), ``lines`` the file line of each row, ``decimal`` the file's decimal
        mark. A level the model never saw is an error under ``strict``; otherwise its
        row's note says so (its cell is NaN: the row is not to be predicted) and every
        other row's note is ''. Missing columns, cells that are not numbers and missing
        cells the policy cannot fill are one DataError naming ``where``, the line and the
        column."""
        import pandas as pd

        columns = [str(c) for c in frame.columns]
        check_columns(where, self.feature_names, columns)
        cells = frame[self.feature_names].astype(str).apply(lambda c: c.str.strip())
        text = cells.to_numpy(dtype=str)
        notes = np.full(len(text), "", dtype=object)
        missing = np.isin(text, MISSING_MARKS)
        if missing.any() and self.missing in ("error", "drop"):
            row, col = np.argwhere(missing)[0]
            raise DataError(f"{where}: line {lines[row]}, column "
                            f"{self.feature_names[col]}: missing value, and the model was "
                            f"trained with missing: {self.missing} (nothing to fill it with)")
        X = np.full(text.shape, np.nan)
        nominal = np.zeros(len(self.feature_names), dtype=bool)
        if self.categories is not None:
            nominal[self.categorical] = True
            for j, levels in zip(self.categorical, self.categories):
                index = pd.Index(levels)
                codes = index.get_indexer(text[:, j]).astype(np.float64)
                unseen = (codes < 0) & ~missing[:, j]
                if unseen.any() and strict:
                    row = int(np.flatnonzero(unseen)[0])
                    raise DataError(f"{where}: line {lines[row]}, column "
                                    f"{self.feature_names[j]}: unseen category "
                                    f"{str(text[row, j])!r} (the model knows "
                                    f"{', '.join(levels)}; without --strict the row is "
                                    f"left unpredicted with a note)")
                if unseen.any():  # the rows at fault only, not a pass over every row
                    said = [f"column {self.feature_names[j]}: unseen category {v!r}"
                            for v in text[unseen, j].tolist()]
                    notes[unseen] = [f"{n}; {s}" if n else s
                                     for n, s in zip(notes[unseen], said)]
                X[:, j] = np.where(missing[:, j] | unseen, np.nan, codes)
        numeric = np.flatnonzero(~nominal)
        values = np.where(missing[:, numeric], "nan",
                          point_decimals(text[:, numeric], decimal))
        parsed = pd.DataFrame(values).apply(pd.to_numeric, errors="coerce").to_numpy(
            dtype=np.float64)
        bad = ~np.isfinite(parsed) & ~missing[:, numeric]
        if bad.any():
            row, k = np.argwhere(bad)[0]
            col = numeric[k]
            raise DataError(f"{where}: line {lines[row]}, column {self.feature_names[col]}: "
                            f"not a finite number ({str(text[row, col])!r})")
        try:  # numpy's exact parse, as the loader's (pandas' may differ in the last bit)
            X[:, numeric] = values.astype(np.float64)
        except ValueError:
            X[:, numeric] = parsed
        return X, notes

    # ------------------------------------------------------------ storage
    def to_dict(self) -> dict:
        """Plain JSON data: the input columns, the nominal ones with their levels, the
        missing-value rule with its fill values (nominal ones as levels), the encoding
        and the output columns."""
        nominal = [self.feature_names[j] for j in self.categorical]
        fill = None
        if self.fill_ is not None:
            fill = {}
            for j, name in enumerate(self.feature_names):
                value = float(self.fill_[j])
                if j in self.categorical and self.categories is not None:
                    value = self.categories[self.categorical.index(j)][int(value)]
                fill[name] = value
        return {"input_names": list(self.feature_names), "nominal": nominal,
                "categories": (None if self.categories is None
                               else dict(zip(nominal, self.categories))),
                "missing": self.missing, "fill": fill, "encoding": self.encoding,
                "output_names": list(self.output_names_)}

    @classmethod
    def from_dict(cls, data: dict) -> Preprocessor:
        names = list(data["input_names"])
        nominal = list(data.get("nominal") or [])
        categorical = [names.index(n) for n in nominal]
        cats = data.get("categories")
        categories = None if cats is None else [list(cats[n]) for n in nominal]
        prep = cls(names, categorical, categories, data.get("missing", "error"),
                   data.get("encoding", "codes"))
        fill = data.get("fill")
        if fill is not None:
            values = np.zeros(len(names))
            for j, name in enumerate(names):
                value = fill[name]
                if j in categorical and categories is not None:
                    value = categories[categorical.index(j)].index(str(value))
                values[j] = float(value)
            prep.fill_ = values
        if list(data.get("output_names", prep.output_names_)) != prep.output_names_:
            raise ObliqError("the stored output columns do not follow from the input "
                             "columns and levels")
        return prep

    def describe(self) -> str:
        """One line for logs and the run's history."""
        return f"missing: {self.missing}, nominal: {self.encoding}"
