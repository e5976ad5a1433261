"""A fitted tree kept as a JSON file, and rows read from a CSV to predict with it.

``obliq fit`` writes, ``obliq predict`` reads. JSON, never pickle: a model file is read
by people and by other programs, and loading it runs no code. It carries what is needed
to use the tree later and to know where it came from::

    {"format": "obliq-model", "format_version": 2, "obliq_version": "0.1.0",
     "algorithm": "cart-ap", "params": {...}, "pruner": {"name": "cc", "params": {}},
     "trained_on": {"dataset": "pima", "seed": 0},
     "feature_names": ["preg", "plas", ...], "classes": ["tested_negative", ...],
     "preprocess": {... data.preprocess.Preprocessor.to_dict() ...},
     "estimator": {... TreeClassifier.export_json() ...}}

``feature_names`` are the columns the tree splits on; version 2 adds ``preprocess``: the
file's columns, the nominal ones' levels, the missing-value rule with its fill values and
the encoding, so ``obliq predict`` reads the raw file the model was trained from (strings
and blanks included) and repeats the fit's preprocessing exactly. Version 1 files (no
``preprocess``: numeric columns, qualitative ones as codes) are still read.

Only single trees (the estimators with ``load_tree``) can be kept this way for now; a
multiclass decomposition or a network-pruned tree is refused when it is saved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import registry, safe_io
from .data.preprocess import Preprocessor, check_columns
from .errors import DataError, ObliqError
from .model_schema import check_model, read_model_json
from .parameters import several_problems
from .tree.serialize import _shown
from .version import __version__

FORMAT = "obliq-model"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # 2 added ``preprocess``


def _plain(value):
    """A JSON value for a parameter (None for what JSON cannot hold: a Generator)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return None


def model_dict(estimator, *, algorithm: str, feature_names, pruner: str | None = None,
               pruner_params: dict | None = None, dataset: str | None = None,
               seed: int | None = None, preprocess: Preprocessor | None = None,
               trained_on: dict | None = None) -> dict:
    """The model file's content for a fitted single-tree ``estimator``; ``preprocess``:
    the fitted preprocessor its rows went through (None: the rows are the features);
    ``trained_on``: more to say where it came from (a file's path and delimiter)."""
    if not hasattr(estimator, "load_tree") or not hasattr(estimator, "export_json"):
        what = f"{algorithm} + {pruner}" if pruner else algorithm
        raise ObliqError(f"{what} gives a {type(estimator).__name__}, which cannot be kept "
                         "as a model file yet (single trees only)")
    names = [str(n) for n in feature_names]
    if len(names) != estimator.n_features_in_:
        raise ObliqError(f"{len(names)} feature names for a tree of "
                         f"{estimator.n_features_in_} features")
    params = {k: _plain(v) for k, v in estimator.get_params(deep=False).items()}
    if "random_state" in params:  # the fit's generator came from ``seed``
        params["random_state"] = None
    if preprocess is None:
        preprocess = Preprocessor(names)
    elif list(preprocess.output_names_) != names:
        raise ObliqError("the preprocessor's output columns are not the tree's features")
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "obliq_version": __version__,
        "algorithm": algorithm, "params": params,
        "pruner": ({"name": pruner, "params": _plain(dict(pruner_params or {}))}
                   if pruner else None),
        "trained_on": {"dataset": dataset, "seed": seed, **_plain(dict(trained_on or {}))},
        "feature_names": names, "classes": _plain(estimator.classes_.tolist()),
        "preprocess": preprocess.to_dict(),
        "estimator": estimator.export_json(),
    }


def save_model(path, estimator, **meta) -> Path:
    """Write ``model_dict(estimator, **meta)`` to ``path`` (atomically, never through a
    link: ``safe_io``)."""
    return safe_io.write_text(path, json.dumps(model_dict(estimator, **meta), indent=1) + "\n")


def save_fitted(path, estimator, info: dict, *, algorithm: str, pruner: str | None,
                pruner_params: dict, dataset: str, seed: int,
                data_params: dict | None = None) -> Path:
    """``save_model`` of a tree fitted on every row (``obliq fit``): ``info`` the loaded
    data's, with the fit's ``feature_names`` and ``preprocess``; ``data_params`` the
    user's file's (path, delimiter, decimal), kept under ``trained_on`` with the target,
    the weights column (``--weights``; None without) and the incomplete rows dropped, so
    ``predict_file`` reads new rows the same way: the model's feature columns by name,
    the target and the weights column left out as any other column."""
    trained_on = {}
    if data_params:
        trained_on = {"path": data_params["path"], "target": info.get("target"),
                      "delimiter": data_params.get("delimiter", ","),
                      "decimal": data_params.get("decimal", "."),
                      "weights": info.get("weights"),
                      "rows_dropped": int(info.get("rows_dropped") or 0)}
    return save_model(path, estimator, algorithm=algorithm,
                      feature_names=info["feature_names"], pruner=pruner,
                      pruner_params=pruner_params, dataset=dataset, seed=seed,
                      preprocess=info["preprocess"], trained_on=trained_on)


def load_model(path):
    """``(estimator, model dict)`` from a model file; a one-line ObliqError naming the
    file for anything that is not an obliq model this version can read."""
    path = Path(path)
    data = read_model_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ObliqError(f"{path}: not an obliq model file (no \"format\": \"{FORMAT}\")")
    version = data.get("format_version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise ObliqError(f"{path}: model format version {_shown(version)}; "
                         f"this obliq ({__version__}) reads versions "
                         f"{', '.join(map(str, READABLE_VERSIONS))}")
    try:
        check_model(data)
        estimator = registry.make_estimator(data["algorithm"], **(data.get("params") or {}))
        if not hasattr(estimator, "load_tree"):
            raise ObliqError(f"algorithm: {data['algorithm']} is not a single tree")
        estimator.load_tree(data["estimator"])
    except ObliqError as exc:  # a line per problem (check_model), each naming the file
        raise several_problems([f"{path}: {line}" for line in
                                getattr(exc, "problems", [str(exc)])]) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ObliqError(f"{path}: damaged model ({type(exc).__name__}: {exc})") from None
    names = data.get("feature_names") or []
    if len(names) != estimator.n_features_in_:
        raise ObliqError(f"{path}: {len(names)} feature names for a tree of "
                         f"{estimator.n_features_in_} features")
    estimator.feature_names_in_ = np.asarray(names, dtype=object)
    if data.get("preprocess") is not None:
        try:
            prep = Preprocessor.from_dict(data["preprocess"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ObliqError(f"{path}: damaged preprocess ({type(exc).__name__}: "
                             f"{exc})") from None
        if prep.output_names_ != list(names):
            raise ObliqError(f"{path}: the preprocess's output columns are not the "
                             f"model's feature_names")
    return estimator, data


def model_preprocessor(meta: dict) -> Preprocessor | None:
    """The fitted preprocessor a model file keeps (None in a version-1 file)."""
    stored = meta.get("preprocess")
    return None if stored is None else Preprocessor.from_dict(stored)


def read_raw_rows(path, prep: Preprocessor, delimiter: str = ",", decimal: str = ".",
                  strict: bool = True, id_column: str | None = None):
    """(rows as the preprocessor's input, a note per row, a key per row) from a CSV
    (header row) or ARFF file: the raw cells of its columns (strings, blanks) read as the
    loader reads a training file; notes and ``strict`` as ``Preprocessor.encode``; keys
    as ``row_keys``."""
    from .data.files import FILE_CONSTRAINTS, _arff_cells, _csv_cells

    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    allowed = FILE_CONSTRAINTS["delimiter"][0]  # the delimiters a training file may have
    if not allowed.is_satisfied_by(delimiter):
        raise DataError(f"{path}: delimiter {delimiter!r}: must be one of "
                        f"{', '.join(repr(d) for d in sorted(allowed.options))}")
    if str(path).lower().endswith(".arff"):
        frame, lines = _arff_cells(str(path))
    else:
        frame, lines = _csv_cells(str(path), delimiter, True)
    if frame.empty:
        raise DataError(f"{path}: no rows")
    X, notes = prep.encode(frame, lines, str(path), decimal, strict)
    return X, notes, row_keys(frame, id_column, path)


def row_keys(frame: pd.DataFrame, id_column: str | None, where) -> np.ndarray:
    """What names each row of a predictions file: the values of the input's
    ``id_column`` (``--id``), or the 1-based row number (the first row under the header
    is 1)."""
    if id_column is None:
        return np.arange(1, len(frame) + 1)
    if id_column not in frame.columns:
        raise DataError(f"{where}: --id {id_column}: no such column (the file's: "
                        f"{', '.join(map(str, frame.columns))})")
    return frame[id_column].astype(str).str.strip().to_numpy(dtype=object)


def read_rows(path, feature_names: list[str], id_column: str | None = None):
    """(a float array whose columns are the model's features in the model's order, a
    key per row: ``row_keys``) from a CSV (with a header). Columns other than the
    features (an id, the class) are ignored; a missing feature column or a cell that is
    not a finite number is one DataError naming the file (and row and column)."""
    path = Path(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a CSV file ({str(exc).splitlines()[0]})") from None
    columns = [str(c).strip() for c in frame.columns]
    frame.columns = columns
    check_columns(path, feature_names, columns)
    cells = frame[feature_names]
    values = cells.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        row, col = bad[0]
        raise DataError(f"{path}: line {row + 2}, column {feature_names[col]}: "
                        f"not a finite number ({cells.iat[row, col]!r})")
    if values.shape[0] == 0:
        raise DataError(f"{path}: no rows")
    return values, row_keys(frame, id_column, path)


def predictions_csv(estimator, X: np.ndarray, proba: bool, keys=None, key_name: str = "row",
                    notes=None) -> str:
    """One line per row: its key (``key_name``: ``keys``, default the 1-based row
    number), the predicted class, with ``proba`` one column per class (``proba:<class>``)
    of the leaf's class frequencies, and with ``notes`` a ``note`` column: a row with a
    note is not predicted (its prediction and probabilities are empty) and the note says
    why."""
    n = len(X)
    keys = np.arange(1, n + 1) if keys is None else np.asarray(keys)
    noted = np.zeros(n, dtype=bool) if notes is None else np.asarray(notes) != ""
    rows = np.asarray(X)[~noted]
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:  # the rows carry the model's names (scikit-learn checks them)
        rows = pd.DataFrame(rows, columns=list(names))
    predicted = np.full(n, "", dtype=object)
    if len(rows):
        predicted[~noted] = estimator.predict(rows)
    out = pd.DataFrame({key_name: keys, "prediction": predicted})
    if proba:
        p = np.full((n, len(estimator.classes_)), np.nan)
        if len(rows):
            p[~noted] = estimator.predict_proba(rows)
        for j, c in enumerate(estimator.classes_):
            out[f"proba:{c}"] = p[:, j]
    if notes is not None:
        out["note"] = notes
    return out.to_csv(index=False, lineterminator="\n")


def write_text(path, text: str) -> Path:
    """``text`` into ``path`` atomically, never through a link (the predictions file)."""
    return safe_io.write_text(path, text)


@dataclass(frozen=True)
class Predictions:
    """What ``predict_file`` gives: the predictions file's ``text`` (``predictions_csv``),
    the number of input ``rows`` and of rows left ``unpredicted`` (a note says why)."""

    text: str
    rows: int
    unpredicted: int


def predict_file(model, data, proba: bool = False, delimiter: str | None = None,
                 decimal: str | None = None, id_column: str | None = None,
                 strict: bool = False) -> Predictions:
    """The predictions of the tree in the model file ``model`` for the rows of the CSV or
    ARFF file ``data`` (what ``obliq predict`` prints). A version-2 model reads the raw
    file as its training file was read (``read_raw_rows``: ``delimiter`` and ``decimal``
    default to the training file's, else ``,`` and ``.``) and repeats the fit's
    preprocessing; a level it never saw leaves its row unpredicted with a note
    (``strict``: a DataError instead). A version-1 model reads numeric columns
    (``read_rows``). ``id_column`` keys the rows (default their 1-based number)."""
    estimator, meta = load_model(model)
    prep = model_preprocessor(meta)
    if prep is None:  # a version-1 model: numeric columns, qualitative ones as codes
        X, keys = read_rows(data, meta["feature_names"], id_column)
        notes = np.full(len(X), "", dtype=object)
    else:
        trained = meta.get("trained_on") or {}
        sep = delimiter or trained.get("delimiter") or ","
        mark = decimal or trained.get("decimal") or "."
        raw, notes, keys = read_raw_rows(data, prep, sep, mark, strict, id_column)
        X = prep.transform(raw)
    text = predictions_csv(estimator, X, proba, keys, id_column or "row", notes)
    return Predictions(text, int(X.shape[0]), int(np.count_nonzero(notes != "")))
