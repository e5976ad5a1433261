"""What a user bringing their own CSV trips over: a text column not declared nominal,
numbers written with decimal commas, one algorithm wanting codes where the others take
one-hot columns. Each file here is small enough to work by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import obliq_cli
from obliq_cli.cli import main
from obliq_cli.config import AlgorithmSpec, load_config
from obliq_cli.errors import ConfigError, DataError
from obliq_cli.experiment.fit import fit_task
from obliq_cli.experiment.tasks import algorithm_identity


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def write(path, text):
    path.write_text(text)
    return path


# six rows: colour decides the class except for one blue 'a'
COLOURS = ("size,colour,class\n1.5,red,a\n2.5,blue,b\n3.5,red,a\n4.5,blue,b\n"
           "5.5,red,a\n6.5,blue,a\n")


# ------------------------------------------------ 1. a text column not declared
def test_a_text_column_not_declared_nominal_says_how_to_declare_it(tmp_path):
    path = write(tmp_path / "colours.csv", COLOURS)
    with pytest.raises(DataError) as err:
        obliq_cli.load_dataset("file", path=str(path))
    assert str(err.value) == (
        f"{path.resolve()}: non-numeric value 'red' in column 'colour', line 2; if 'colour' "
        f"is a nominal column, declare it: categorical: [colour] in the dataset "
        f"(--categorical colour on the command line)")
    result = invoke(["datasets", "show", "--data", path])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "--categorical colour" in result.output
    # declared, it loads: codes of the sorted levels (blue 0, red 1)
    X, _, info = obliq_cli.load_dataset("file", path=str(path), categorical=["colour"])
    assert X[:, 1].tolist() == [1, 0, 1, 0, 1, 0]
    assert info["categories"] == [["blue", "red"]]


# ------------------------------------------------------ 2. decimal commas
COMMAS = "a;b;class\n1,5;2;x\n2,25;3;y\n-0,5;4;x\n7;1,0;y\n"


def test_decimal_commas_get_a_hint_and_read_with_decimal_comma(tmp_path):
    path = write(tmp_path / "commas.csv", COMMAS)
    with pytest.raises(DataError) as err:
        obliq_cli.load_dataset("file", path=str(path), delimiter=";")
    assert str(err.value) == (
        f"{path.resolve()}: non-numeric value '1,5' in column 'a', line 2; the numbers look "
        f"written with decimal commas: give decimal: \",\" in the dataset (--decimal , on "
        f"the command line)")
    X, y, info = obliq_cli.load_dataset("file", path=str(path), delimiter=";", decimal=",")
    assert X.tolist() == [[1.5, 2.0], [2.25, 3.0], [-0.5, 4.0], [7.0, 1.0]]
    assert y.tolist() == ["x", "y", "x", "y"] and info["decimal"] == ","
    # the same file through the command line
    result = invoke(["datasets", "show", "--data", path, "--delimiter", ";",
                     "--decimal", ","])
    assert result.exit_code == 0, result.output


def test_a_point_in_a_decimal_comma_file_is_no_number(tmp_path):
    path = write(tmp_path / "mixed.csv", "a;class\n1,5;x\n2.5;y\n3;x\n")
    with pytest.raises(DataError, match=r"non-numeric value '2\.5' in column 'a', line 3"):
        obliq_cli.load_dataset("file", path=str(path), delimiter=";", decimal=",")


def test_each_column_gets_the_hint_that_fits_it(tmp_path):
    """A file with decimal commas and a text column: the first bad cell's column says
    decimal commas; once they are read, the text column says categorical."""
    path = write(tmp_path / "both.csv", "a;colour;class\n1,5;red;x\n2;blue;y\n")
    with pytest.raises(DataError, match=r"'1,5' in column 'a', line 2; the numbers look "):
        obliq_cli.load_dataset("file", path=str(path), delimiter=";")
    with pytest.raises(DataError, match=r"'red' in column 'colour', line 2; if 'colour' is "
                                        r"a nominal column, declare it: categorical: "):
        obliq_cli.load_dataset("file", path=str(path), delimiter=";", decimal=",")


def test_decimal_in_a_config_entry_and_its_one_line_error(tmp_path):
    write(tmp_path / "commas.csv", COMMAS)
    config = write(tmp_path / "c.yaml", """name: c
datasets:
  - {name: mine, path: commas.csv, target: class, delimiter: ";", decimal: ","}
algorithms: [cart-ap]
protocol: {name: kfold, folds: 2}
""")
    spec = load_config(config).datasets[0]
    assert spec.params["decimal"] == ","
    config.write_text(config.read_text().replace('decimal: ","', 'decimal: ";"'))
    with pytest.raises(ConfigError) as err:
        load_config(config)
    assert str(err.value).startswith(f"{config}: datasets[0].decimal:")
    assert len(str(err.value).splitlines()) == 1


# ------------------------------------------- 3. nominal: per algorithm
def test_an_algorithms_nominal_overrides_the_datasets(tmp_path):
    path = write(tmp_path / "colours.csv", COLOURS)
    X, y, info = obliq_cli.load_dataset("file", path=str(path), categorical=["colour"])
    rows = np.arange(len(y))

    def prep(**spec):
        algo = AlgorithmSpec("cart-ap", "t", {"max_depth": 2}, **spec)
        names = (0, "c", 0, 0, "t")
        return fit_task(algo, "colours", X, y, info, rows, rows[:0], names).preprocess

    assert prep().output_names_ == ["size", "colour=blue", "colour=red"]  # the dataset's
    codes = prep(nominal="codes")
    assert codes.encoding == "codes" and codes.output_names_ == ["size", "colour"]
    # an algorithm that takes nominal columns itself keeps doing so
    native = fit_task(AlgorithmSpec("hhcart-d", "h", {"max_depth": 2}, nominal="codes"),
                      "colours", X, y, info, rows, rows[:0], (0, "c", 0, 0, "h")).preprocess
    assert native.encoding == "native"
    # the override is part of the task's identity, and absent when not given (old runs
    # keep their identities)
    plain = algorithm_identity(AlgorithmSpec("cart-ap", "t"), "colours")
    assert "nominal" not in plain
    assert algorithm_identity(AlgorithmSpec("cart-ap", "t", nominal="codes"),
                              "colours") == {**plain, "nominal": "codes"}


RUN = """name: per-algorithm
datasets:
  - {{name: mine, path: {path}, target: class, categorical: [colour]}}
algorithms:
  - {{name: cart-ap, label: oh, params: {{max_depth: 2}}}}
  - {{name: cart-ap, label: cd, params: {{max_depth: 2}}, nominal: {nominal}}}
protocol: {{name: kfold, folds: 2, stratified: true}}
metrics: [test_accuracy]
output: {out}
"""


def test_a_run_applies_and_records_each_algorithms_nominal(tmp_path):
    path = write(tmp_path / "colours.csv", COLOURS)
    out = tmp_path / "out"
    config = write(tmp_path / "x.yaml", RUN.format(path=path, nominal="codes", out=out))
    result = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 0, result.output
    entry = json.loads((out / "meta.json").read_text())["history"][-1]
    assert entry["data"]["mine"]["nominal"] == {"oh": "onehot", "cd": "codes"}
    config.write_text(RUN.format(path=path, nominal="dummies", out=tmp_path / "o2"))
    result = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 2 and not (tmp_path / "o2").exists()
    line = result.output.strip()  # the file dataset's declaration of nominal says it
    assert line.startswith(f"error: {config}: algorithms[1].nominal: must be a str among ")
    assert "'onehot'" in line and "'codes'" in line and line.endswith("(got 'dummies') (line 6)")


# --------------------------------------- 4. predict: unseen levels, row keys
# colour alone decides the class: red a, blue b
PURE = "size,colour,class\n1.5,red,a\n2.5,blue,b\n3.5,red,a\n4.5,blue,b\n5.5,red,a\n6.5,blue,b\n"


@pytest.fixture
def colour_model(tmp_path):
    train = write(tmp_path / "train.csv", PURE)
    model = tmp_path / "m.json"
    result = invoke(["fit", "--data", train, "--categorical", "colour", "--algorithm",
                     "cart-ap", "-o", model])
    assert result.exit_code == 0, result.output
    return model


def test_an_unseen_level_leaves_its_row_unpredicted_with_a_note(tmp_path, colour_model):
    rows = write(tmp_path / "new.csv", "id,size,colour\nk1,1,red\nk2,2,green\nk3,3,blue\n")
    out = tmp_path / "pred.csv"
    result = invoke(["predict", colour_model, rows, "--id", "id", "-o", out])
    assert result.exit_code == 0, result.output
    assert out.read_text() == ("id,prediction,note\nk1,a,\n"
                               "k2,,column colour: unseen category 'green'\nk3,b,\n")
    # without --id the key is the 1-based row number; probabilities stay empty there
    result = invoke(["predict", colour_model, rows, "--proba", "-o", out])
    assert result.exit_code == 0, result.output
    assert out.read_text() == ("row,prediction,proba:a,proba:b,note\n1,a,1.0,0.0,\n"
                               "2,,,,column colour: unseen category 'green'\n3,b,0.0,1.0,\n")


def test_predict_file_is_what_obliq_predict_prints(tmp_path, colour_model):
    # the command's body is obliq_cli.predict_file: the same text, and the counts it logs
    rows = write(tmp_path / "new.csv", "id,size,colour\nk1,1,red\nk2,2,green\nk3,3,blue\n")
    found = obliq_cli.predict_file(colour_model, rows, proba=True, id_column="id")
    assert (found.rows, found.unpredicted) == (3, 1)
    assert found.text == ("id,prediction,proba:a,proba:b,note\nk1,a,1.0,0.0,\n"
                          "k2,,,,column colour: unseen category 'green'\nk3,b,0.0,1.0,\n")
    result = invoke(["predict", colour_model, rows, "--proba", "--id", "id"])
    assert result.exit_code == 0 and result.stdout == found.text
    with pytest.raises(DataError, match="unseen category 'green'"):
        obliq_cli.predict_file(colour_model, rows, strict=True)


def test_strict_stops_at_an_unseen_level_and_a_bad_id_is_one_line(tmp_path, colour_model):
    rows = write(tmp_path / "new.csv", "id,size,colour\nk1,1,red\nk2,2,green\n")
    out = tmp_path / "pred.csv"
    result = invoke(["predict", colour_model, rows, "--strict", "-o", out])
    assert result.exit_code == 2 and not out.exists()
    assert result.output.strip() == (
        f"error: {rows}: line 3, column colour: unseen category 'green' (the model knows "
        f"blue, red; without --strict the row is left unpredicted with a note)")
    result = invoke(["predict", colour_model, rows, "--id", "key", "-o", out])
    assert result.exit_code == 2 and not out.exists()
    assert result.output.strip() == (f"error: {rows}: --id key: no such column (the "
                                     f"file's: id, size, colour)")


def test_every_row_unseen_writes_every_row_unpredicted(tmp_path, colour_model):
    rows = write(tmp_path / "new.csv", "size,colour\n1,green\n2,pink\n")
    result = invoke(["predict", colour_model, rows, "-o", tmp_path / "p.csv"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "p.csv").read_text() == (
        "row,prediction,note\n1,,column colour: unseen category 'green'\n"
        "2,,column colour: unseen category 'pink'\n")


def test_predict_reads_decimal_commas_as_the_model_was_trained(tmp_path):
    train = write(tmp_path / "train.csv", "size;class\n1,5;a\n2,5;a\n3,5;b\n4,5;b\n")
    model = tmp_path / "m.json"
    assert invoke(["fit", "--data", train, "--delimiter", ";", "--decimal", ",",
                   "--algorithm", "cart-ap", "-o", model]).exit_code == 0
    assert json.loads(model.read_text())["trained_on"]["decimal"] == ","
    rows = write(tmp_path / "new.csv", "size\n1,0\n4,25\n")
    result = invoke(["predict", model, rows, "-o", tmp_path / "p.csv"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "p.csv").read_text() == "row,prediction,note\n1,a,\n2,b,\n"


def test_onehot_on_a_catalog_dataset_without_levels_is_refused_before_the_run(tmp_path):
    """australian keeps its nominal columns as codes without their levels: an algorithm's
    nominal: onehot has no columns to make there, and says so before any task runs."""
    out = tmp_path / "out"
    config = write(tmp_path / "a.yaml", f"""name: a
datasets: [australian]
algorithms:
  - {{name: cart-ap, nominal: onehot}}
protocol: {{name: kfold, folds: 2}}
output: {out}
""")
    result = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 2 and not out.exists()
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.strip().endswith(
        "nominal: onehot for algorithm 'cart-ap' (algorithms[0]), but the dataset keeps its "
        "nominal columns as codes without their levels; use codes")
