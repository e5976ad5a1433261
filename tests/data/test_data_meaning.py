"""A user's file that cannot mean what it says is refused before the run, in one line
naming the file: labels that parse into one class, a target that looks
continuous, no feature columns, the wrong delimiter, an ARFF without data, a symlink loop."""

import os

import numpy as np
import pytest

from obliq_cli import load_dataset
from obliq_cli.config import load_config
from obliq_cli.data.files import (
    MAX_NUMERIC_CLASSES,
    check_looks_like_classes,
    distinct_canonical_labels,
)
from obliq_cli.errors import ConfigError, DataError


def _load(tmp_path, text: str, name: str = "d.csv", **params):
    path = tmp_path / name
    path.write_text(text)
    return load_dataset("csv", path=str(path), **params)


def test_twenty_digit_codes_that_are_one_float_are_refused(tmp_path):
    rows = "".join(f"{i},{12345678901234567890 + i % 2}\n" for i in range(6))
    with pytest.raises(DataError, match=r"d\.csv: the class labels '12345678901234567890' and "
                                        r"'12345678901234567891' are different numbers"):
        _load(tmp_path, "a,class\n" + rows)
    # the same codes with a letter in front are two classes
    _, y, info = _load(tmp_path, "a,class\n" + rows.replace(",1", ",c1"))
    assert info["classes"] == ["c12345678901234567890", "c12345678901234567891"]


def test_the_same_number_written_twice_is_still_one_class():
    y = np.array(["1", "1.0", "2", "2e0", "1.00"])
    assert distinct_canonical_labels(y, "f").tolist() == ["1", "1", "2", "2", "1"]
    # distinct beyond 2**53 only when they are different numbers
    big = np.array(["9007199254740993", "9007199254740993.0"])
    assert np.unique(distinct_canonical_labels(big, "f")).size == 1


def test_a_continuous_target_is_refused_unless_declared_a_label(tmp_path):
    text = "a,price\n" + "".join(f"{i % 4},{i * 1.25}\n" for i in range(40))
    with pytest.raises(DataError, match=r"'price' looks continuous \(40 distinct numbers in "
                                        r"40 rows\).*target_is_label: true"):
        _load(tmp_path, text)
    _, y, _ = _load(tmp_path, text, target_is_label=True)
    assert np.unique(y).size == 40


def test_the_continuity_rule_counts_distinct_numbers():
    many = np.array([str(i % (MAX_NUMERIC_CLASSES + 1)) for i in range(1000)])
    with pytest.raises(DataError, match="31 distinct numbers in 1000 rows"):
        check_looks_like_classes(many, "t", "f")
    check_looks_like_classes(np.array([str(i % MAX_NUMERIC_CLASSES) for i in range(1000)]),
                             "t", "f")  # 30 classes repeated: labels
    check_looks_like_classes(np.array([f"c{i}" for i in range(1000)]), "t", "f")  # text
    check_looks_like_classes(np.array(["0.5", "1", "2", "0.5", "1", "2"]), "t", "f")
    with pytest.raises(DataError, match="10 distinct numbers in 12 rows"):
        check_looks_like_classes(np.array([str(i % 10) for i in range(12)]), "t", "f")


def test_a_file_with_only_the_target_has_no_features(tmp_path):
    with pytest.raises(DataError, match=r"d\.csv: no feature columns besides the target "
                                        r"'class'$"):
        _load(tmp_path, "class\n" + "x\ny\n" * 5)


def test_the_delimiter_that_reads_as_a_table_is_named(tmp_path):
    semis = "a;b;class\n" + "".join(f"{i};{i % 3};{'xy'[i % 2]}\n" for i in range(10))
    with pytest.raises(DataError, match=r"no target column 'class'.*with delimiter ';' it "
                                        r"reads as a table of 3 columns"):
        _load(tmp_path, semis, target="class")
    with pytest.raises(DataError, match=r"no feature columns.*with delimiter ';'"):
        _load(tmp_path, semis)
    X, _, _ = _load(tmp_path, semis, delimiter=";")
    assert X.shape == (10, 2)
    # a ragged comma file that no other delimiter makes a table: no hint
    with pytest.raises(DataError) as info:
        _load(tmp_path, "a,b,class\n1,2,x\n3,y\n")
    assert str(info.value).endswith("line 3 has 2 fields, the header has 3")


def test_an_arff_without_a_data_section_is_one_line(tmp_path):
    with pytest.raises(DataError, match=r"d\.arff: no @data section"):
        _load(tmp_path, "@relation x\n@attribute a numeric\n@attribute c {x,y}\n", "d.arff")


def test_a_symlink_loop_is_named_in_either_form(tmp_path, write_config):
    os.symlink(tmp_path / "b.csv", tmp_path / "a.csv")
    os.symlink(tmp_path / "a.csv", tmp_path / "b.csv")
    with pytest.raises(DataError, match=r"a\.csv: a symbolic link that leads to no file"):
        load_dataset("csv", path=str(tmp_path / "a.csv"))
    path = write_config("name: loop\ndatasets: [{name: mine, path: a.csv, target: class}]\n"
                        "algorithms: [cart-ap]\nprotocol: {name: kfold}\n")
    with pytest.raises(ConfigError, match=r"datasets\[0\]\.path: .*a\.csv: a symbolic link "
                                          r"loop"):
        load_config(path)
