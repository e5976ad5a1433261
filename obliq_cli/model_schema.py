"""A model file (``obliq fit``'s JSON, see ``model``) checked as a whole before use.

A model file comes from outside: a colleague's disk, a download, an edit by hand. Three
gates stand before anything is built from it, each failure one ObliqError naming the
field (``load_model`` prefixes the file):

1. the file itself (``read_model_json``): a regular file (a FIFO or ``/dev/zero`` would be
   read forever) of at most ``MAX_BYTES``, UTF-8 JSON nested at most ``MAX_DEPTH`` levels
   (a model is five deep; a nesting bomb would exhaust the parser's recursion);
2. the schema (``check_model``): every field's type and length, names that are strings,
   the preprocessing consistent with the feature count;
3. the ``estimator`` section (``tree.serialize.check_estimator_dict``, beside the tree
   format it holds): classes consistent with the tree's class counts, the qualitative
   coding, column scaling and column spread (``input_std``) consistent with its
   features, and the tree itself
   (``check_tree_dict``, run by ``Tree.from_dict`` too, so a Python user loading a tree
   gets the same checks): indices in range, a tree rooted at 0 with every node reached
   once, finite numbers.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from .data.preprocess import ENCODINGS, MISSING_POLICIES
from .errors import ObliqError
from .fields import REQUIRED, Key, in_scope
from .parameters import several_problems
from .tree.serialize import _fail, _shown, _type_name, check_estimator_dict

MAX_BYTES = 512 << 20
"""Largest model file read: a tree of a million nodes on 50 features is ~400 MiB of JSON."""

MAX_DEPTH = 32
"""Deepest nesting of JSON arrays and objects accepted (obliq writes five levels)."""

def read_model_json(path: Path):
    """The parsed JSON of the model file ``path`` after the file checks (module doc)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ObliqError(f"{path}: no such model file") from None
    except OSError as exc:
        raise ObliqError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        what = ("a folder" if stat.S_ISDIR(info.st_mode) else "a pipe"
                if stat.S_ISFIFO(info.st_mode) else "a device or special file")
        raise ObliqError(f"{path}: not a model file ({what}, not a regular file)")
    if info.st_size > MAX_BYTES:
        raise ObliqError(f"{path}: not read: {info.st_size} bytes, more than the "
                         f"{MAX_BYTES >> 20} MiB a model file may hold")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)  # the file may have grown since stat
    except OSError as exc:
        raise ObliqError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise ObliqError(f"{path}: not read: more than the {MAX_BYTES >> 20} MiB a model "
                         "file may hold")
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ObliqError(f"{path}: not a model file (JSON nested more than {MAX_DEPTH} "
                         "levels)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ObliqError(f"{path}: not a model file ({str(exc).splitlines()[0]})") from None
    if _depth(data) > MAX_DEPTH:
        raise ObliqError(f"{path}: not a model file (JSON nested more than {MAX_DEPTH} "
                         "levels)")
    return data


def _depth(data) -> int:
    """Nesting depth of parsed JSON (1 for a flat list), without recursion; lists of
    numbers (the bulk of a model) are skipped in one test each."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            items = value.values()
        elif isinstance(value, list):
            items = value
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((v, level + 1) for v in items if isinstance(v, (dict, list)))
    return deepest


def _string_list(values, field: str, unique: bool = True, empty: bool = False) -> list:
    if not isinstance(values, list) or (not values and not empty):
        _fail(field, f"must be a {'' if empty else 'non-empty '}list of strings (got "
              f"{'an empty list' if values == [] else _type_name(values)})")
    for i, v in enumerate(values):
        if not isinstance(v, str):
            _fail(f"{field}[{i}]", f"{_shown(v)} is not a string")
    if unique and len(set(values)) != len(values):
        twice = next(v for i, v in enumerate(values) if v in values[:i])
        _fail(field, f"{_shown(twice)} appears twice")
    return values


def _optional_dict(data: dict, key: str) -> dict | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        _fail(key, f"must be an object or null (got {_type_name(value)})")
    return value


def _is_label(value) -> bool:
    """A class label as obliq writes one: a string, a boolean, an integer or a finite
    number (``classes_.tolist()``)."""
    return isinstance(value, (str, bool, int)) or (isinstance(value, float)
                                                   and math.isfinite(value))


def _check_algorithm(data: dict) -> None:
    if not isinstance(data.get("algorithm"), str) or not data["algorithm"]:
        _fail("algorithm", f"must be an algorithm's name (got {_shown(data.get('algorithm'))})")


def _check_params(data: dict) -> None:
    for key in _optional_dict(data, "params") or {}:
        if not key.isidentifier():
            _fail("params", f"{_shown(key)} is not a parameter name")


def _check_pruner(data: dict) -> None:
    pruner = _optional_dict(data, "pruner")
    if pruner is not None:
        if not isinstance(pruner.get("name"), str):
            _fail("pruner.name", f"must be a string (got {_type_name(pruner.get('name'))})")
        if pruner.get("params") is not None and not isinstance(pruner["params"], dict):
            _fail("pruner.params", f"must be an object (got {_type_name(pruner['params'])})")


def _check_trained_on(data: dict) -> None:
    sep = (_optional_dict(data, "trained_on") or {}).get("delimiter")
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1 or sep in "\r\n\""):
        _fail("trained_on.delimiter", f"must be one character (got {_shown(sep)})")


def _check_feature_names(data: dict) -> None:
    _string_list(data.get("feature_names"), "feature_names")


def _check_classes(data: dict) -> None:
    classes = data.get("classes")
    if not isinstance(classes, list) or not classes:
        _fail("classes", f"must be a non-empty list of class labels (got "
              f"{'an empty list' if classes == [] else _type_name(classes)})")
    for i, c in enumerate(classes):
        if not _is_label(c):
            _fail(f"classes[{i}]", f"{_shown(c)} is not a class label")
    if len({(type(c), c) for c in classes}) != len(classes):
        _fail("classes", "a class appears twice")


# The keys of a model file (``model.model_dict`` writes them), declared once (fields.Key:
# scope, about, check): each ``check`` here is the function that checks the key's value on
# its own (raising the ObliqError of its first problem); ``estimator`` and ``preprocess``
# are checked against the others once those hold (``check_model``). The format and its
# version are ``model.load_model``'s gate, before this one.
MODEL_KEYS: tuple[Key, ...] = (
    Key("format", "model", "always obliq-model", takes="obliq-model", default=REQUIRED),
    Key("format_version", "model", "the layout's version (2 added preprocess)",
        takes="1 or 2", default=REQUIRED),
    Key("obliq_version", "model", "the obliq that wrote it", takes="a version"),
    Key("algorithm", "model", "the registered algorithm", _check_algorithm,
        takes="an algorithm's name", default=REQUIRED),
    Key("params", "model", "its constructor parameters", _check_params,
        takes="an object of parameter names, or null"),
    Key("pruner", "model", "the pruner and its parameters", _check_pruner,
        takes="{name, params}, or null"),
    Key("trained_on", "model", "where it was fitted (dataset, seed, the file's options)",
        _check_trained_on, takes="an object, or null"),
    Key("feature_names", "model", "the columns the tree splits on", _check_feature_names,
        takes="a non-empty list of distinct strings", default=REQUIRED),
    Key("classes", "model", "the class labels, in the tree's order", _check_classes,
        takes="a non-empty list of distinct labels", default=REQUIRED),
    Key("preprocess", "model", "the fit's preprocessing of the raw file (version 2)",
        takes="a Preprocessor.to_dict object, or null"),
    Key("estimator", "model", "the tree (TreeClassifier.export_json)",
        takes="an estimator object", default=REQUIRED),
)


def check_model(data) -> None:
    """Check a parsed model file's content (module doc): every key of MODEL_KEYS with a
    check on its own, then (those holding) the estimator against the classes, the feature
    names against its features and the preprocessing against the names. An ObliqError
    with a line per problem, each naming the field (without the file)."""
    if not isinstance(data, dict):
        _fail("model", f"must be a JSON object (got {_type_name(data)})")
    problems = []
    for key in in_scope(MODEL_KEYS, "model").values():
        if key.check is not None:
            try:
                key.check(data)
            except ObliqError as exc:
                problems.append(str(exc))
    if not problems:
        try:
            n_features = check_estimator_dict(data.get("estimator"), data["classes"])
            names = data["feature_names"]
            if len(names) != n_features:
                _fail("feature_names", f"{len(names)} names for a tree of {n_features} "
                      "features")
            if data.get("preprocess") is not None:
                _check_preprocess(data["preprocess"], names)
        except ObliqError as exc:
            problems.append(str(exc))
    if problems:
        raise several_problems(problems)


def _check_preprocess(prep, feature_names: list) -> None:
    """A stored ``Preprocessor.to_dict`` whose output columns must be ``feature_names``."""
    if not isinstance(prep, dict):
        _fail("preprocess", f"must be an object or null (got {_type_name(prep)})")
    names = _string_list(prep.get("input_names"), "preprocess.input_names")
    nominal = _string_list(prep.get("nominal") or [], "preprocess.nominal", empty=True)
    for i, n in enumerate(nominal):
        if n not in names:
            _fail(f"preprocess.nominal[{i}]", f"{_shown(n)} is not one of input_names")
    for key, allowed in (("missing", MISSING_POLICIES), ("encoding", ENCODINGS)):
        if key in prep and prep[key] not in allowed:
            _fail(f"preprocess.{key}", f"{_shown(prep[key])} is not one of "
                  f"{', '.join(allowed)}")
    cats = prep.get("categories")
    if cats is not None:
        if not isinstance(cats, dict):
            _fail("preprocess.categories", f"must be an object or null (got "
                  f"{_type_name(cats)})")
        for n in nominal:
            _string_list(cats.get(n), f"preprocess.categories.{n}")
    fill = prep.get("fill")
    if fill is not None:
        if not isinstance(fill, dict):
            _fail("preprocess.fill", f"must be an object or null (got {_type_name(fill)})")
        for n in names:
            v = fill.get(n)
            if n in nominal and cats is not None:
                if v not in cats[n]:
                    _fail(f"preprocess.fill.{n}", f"{_shown(v)} is not one of the column's "
                          "levels")
            elif type(v) not in (int, float) or not math.isfinite(v):
                _fail(f"preprocess.fill.{n}", f"{_shown(v)} is not a finite number")
    _string_list(prep.get("output_names"), "preprocess.output_names")
    if prep["output_names"] != list(feature_names):
        _fail("preprocess.output_names", "are not the model's feature_names")
