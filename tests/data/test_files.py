"""The user's own files: CSV and ARFF round trips, clear errors for bad files."""

import csv

import numpy as np
import pandas as pd
import pytest

from obliq_cli import load_dataset
from obliq_cli.errors import DataError


def test_csv_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"])
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    X, y, info = load_dataset("csv", path=str(path), target="label")
    np.testing.assert_array_equal(X, frame[["a", "b", "c"]].to_numpy())
    np.testing.assert_array_equal(y, frame["label"].to_numpy())
    assert info["feature_names"] == ["a", "b", "c"]


@pytest.mark.parametrize("content,message", [
    ("", "the file is empty"),
    ("a,b,class\n1,2,x\n3,4\n", "line 3 has 2 fields, the header has 3"),
    ("a,b,class\n1,2,x\n3,abc,y\n", "non-numeric value 'abc' in column 'b', line 3"),
    ("a,b,class\n1,2,x\n3,?,y\n", "missing value in column 'b', line 3"),
    ("a,b,class\n1,2,x\n3,4,x\n", "single class"),
    ("a,b,label\n1,2,x\n3,4,y\n", "no target column 'class'; columns are a, b, label"),
])
def test_bad_csv_gives_one_line_with_file(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError) as info:
        load_dataset("csv", path=str(path), target="class")
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text


def test_arff_round_trip_with_a_nominal_attribute(tmp_path):
    limit = csv.field_size_limit()
    path = tmp_path / "mine.arff"
    path.write_text(
        "% a comment\n@relation mine\n@attribute width numeric\n"
        "@attribute colour {red,green}\n@attribute class {yes,no}\n@data\n"
        "1.5,red,yes\n2.25,green,no\n% between rows\n3.0,red,no\n0.125,green,yes\n"
    )
    X, y, info = load_dataset("file", path=str(path), categorical=["colour"])
    np.testing.assert_array_equal(X, [[1.5, 1], [2.25, 0], [3.0, 1], [0.125, 0]])
    np.testing.assert_array_equal(y, ["yes", "no", "no", "yes"])
    assert info["categorical"] == [1] and info["feature_names"] == ["width", "colour"]
    # scipy's reader raises csv's field limit for the process; ours puts it back
    assert csv.field_size_limit() == limit


def test_arff_non_numeric_without_categorical_names_the_line(tmp_path):
    path = tmp_path / "mine.arff"
    path.write_text("@relation m\n@attribute c {a,b}\n@attribute class {x,y}\n@data\n"
                    "a,x\nb,y\n")
    with pytest.raises(DataError, match=r"non-numeric value 'a' in column 'c', line 5"):
        load_dataset("file", path=str(path))


def test_csv_categorical_columns_become_codes(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("size,colour,class\n1,blue,a\n2,red,b\n3,blue,a\n4,green,b\n")
    X, y, info = load_dataset("file", path=str(path), categorical=["colour"])
    np.testing.assert_array_equal(X[:, 1], [0, 2, 0, 1])  # blue, green, red in order
    assert info["categorical"] == [1]


def test_config_names_a_users_file_directly(write_config, tmp_path):
    from obliq_cli.config import load_config

    data = tmp_path / "data" / "mine.csv"
    data.parent.mkdir()
    data.write_text("a,colour,label\n1,x,p\n2,y,q\n3,x,p\n4,y,q\n")
    path = write_config("""
        name: own
        datasets: [{name: mine, path: data/mine.csv, target: label, categorical: [colour]}]
        algorithms: [cart-ap]
        protocol: {name: kfold, folds: 2}
        """)
    spec = load_config(path).datasets[0]
    assert (spec.name, spec.label) == ("file", "mine")
    assert spec.params == {"path": str(data), "target": "label", "categorical": ["colour"]}


def test_numeric_labels_written_differently_are_one_class(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("a,class\n1,1\n2,1.0\n3,1.00\n4,2\n5,2e0\n6,0.50\n7,.5\n")
    X, y, info = load_dataset("csv", path=str(path))
    assert y.tolist() == ["1", "1", "1", "2", "2", "0.5", "0.5"]
    assert info["classes"] == ["0.5", "1", "2"]
    # one class however it is written: refused as a single class
    path.write_text("a,class\n1,1\n2,1.0\n3,1.00\n")
    with pytest.raises(DataError, match="single class"):
        load_dataset("csv", path=str(path))


def test_text_labels_are_kept_as_written(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("a,class\n1,1\n2,1.0\n3,one\n")  # not all numbers: nothing merged
    _, y, _ = load_dataset("csv", path=str(path))
    assert y.tolist() == ["1", "1.0", "one"]
