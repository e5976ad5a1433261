"""Bad input: one line naming file and field, exit code 2, nothing written."""

import pytest
from click.testing import CliRunner

from obliq_cli.cli import main

BASE = """
name: bad
datasets: [heart]
algorithms:
  - name: cart-ap
    pruner: {name: cc}
protocol: {name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}
"""


def run_cli(args):
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.output.strip().splitlines(), result.exception


def check_error(path, out, expected_fragments):
    code, lines, exc = run_cli(["run", str(path), "-o", str(out), "--no-progress"])
    assert code == 2, (code, lines, exc)
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for fragment in expected_fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert not out.exists(), "nothing may be written on bad input"


@pytest.mark.parametrize("change,fragments", [
    (("    pruner: {name: cc}", "    parms: {max_depth: 2}"),
     ["algorithms[0].parms: unknown key", "did you mean 'params'"]),
    (("datasets: [heart]", "datasets: [hart]"),
     ["datasets[0]", "unknown dataset 'hart'", "did you mean 'heart'"]),
    (("  - name: cart-ap", "  - name: cart-zz"),
     ["algorithms[0].name", "unknown algorithm 'cart-zz'"]),
    (("folds: 3", "folds: 1"), ["protocol.folds", "integer >= 2"]),
    (("prune_fraction: 0.1", "prune_fraction: 1.5"),
     ["protocol.prune_fraction", "strictly between 0 and 1"]),
    (("prune_fraction: 0.1", "prune_fraction: 0"), ["protocol.prune_fraction"]),
    (("    pruner: {name: cc}", "    params: {criterion: gni}"),
     ["algorithms[0].params", "gni"]),
    (("    pruner: {name: cc}", "    pruner: {name: cc, params: {se_rul: 1}}"),
     ["algorithms[0].pruner.params.se_rul", "did you mean 'se_rule'"]),
    (("name: bad", "name: bad\nseeed: 3"), ["seeed: unknown key", "did you mean 'seed'"]),
    (("kfold", "kfolds"), ["protocol.name", "did you mean 'kfold'"]),
])
def test_config_errors(write_config, tmp_path, change, fragments):
    path = write_config(BASE.replace(*change))
    check_error(path, tmp_path / "out", [str(path)] + fragments)


def test_missing_config_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    check_error(missing, tmp_path / "out", [f"{missing}: no such file"])


def test_a_folder_or_device_given_as_config(tmp_path):
    check_error(tmp_path, tmp_path / "out", [f"{tmp_path}: is a folder, not a config file"])
    check_error("/dev/null", tmp_path / "out",
                ["/dev/null: is not a regular file, not a config file"])


def test_yaml_syntax_error_names_the_line(write_config, tmp_path):
    path = write_config("name: x\ndatasets: [heart\nalgorithms: []\n")
    check_error(path, tmp_path / "out", [str(path), "line", "invalid YAML"])


def test_dataset_with_missing_value(write_config, tmp_path):
    data = tmp_path / "mine.csv"
    data.write_text("a,b,class\n1,2,x\n3,,y\n5,6,x\n7,8,y\n")
    path = write_config(BASE.replace("datasets: [heart]",
                                     f"datasets: [{{name: csv, params: {{path: '{data}'}}}}]"))
    check_error(path, tmp_path / "out", [str(path), "datasets[0]", str(data),
                                         "missing value in column 'b', line 3"])


def test_training_fold_with_one_class(write_config, tmp_path):
    # 9 rows of class x and 1 of y: with 2 folds one training part has no y.
    rows = "\n".join([f"{i},x" for i in range(9)] + ["9,y"])
    data = tmp_path / "lopsided.csv"
    data.write_text("a,class\n" + rows + "\n")
    text = BASE.replace("datasets: [heart]",
                        f"datasets: [{{name: csv, params: {{path: '{data}'}}}}]")
    text = text.replace("folds: 3, repeats: 1, prune_fraction: 0.1", "folds: 2, repeats: 1")
    path = write_config(text)
    check_error(path, tmp_path / "out", [str(path), "training part has a single class"])


def test_existing_results_need_resume_or_force(small_config, tmp_path):
    assert run_cli(["run", str(small_config), "--no-progress"])[0] == 0
    code, lines, _ = run_cli(["run", str(small_config), "--no-progress"])
    assert code == 2 and "--resume" in lines[-1]


def test_table_errors(tmp_path):
    code, lines, _ = run_cli(["table", str(tmp_path / "none")])
    assert code == 2 and lines == [f"error: {tmp_path / 'none'}: no such results directory"]
    (tmp_path / "empty").mkdir()
    code, lines, _ = run_cli(["table", str(tmp_path / "empty")])
    assert code == 2 and "no runs.csv" in lines[0]


@pytest.mark.parametrize("algorithm,fragment", [
    ("fdt", "fdt handles two classes only (got 3)"),
    ("umt", "umt handles two classes, got 3"),
    ("apdt", "APDT handles 2 classes (got 3)"),
    ("gepsvm", "gepsvm separates two classes (got 3 classes)"),
])
def test_a_two_class_method_on_a_multiclass_dataset(write_config, tmp_path, algorithm,
                                                   fragment):
    text = BASE.replace("datasets: [heart]", "datasets: [wine]").replace(
        "  - name: cart-ap\n    pruner: {name: cc}", f"  - name: cart-ap\n  - name: {algorithm}")
    out = tmp_path / "out"
    check_error(write_config(text), out, ["algorithms[1]", f"({algorithm}) on wine", fragment])


def test_apdt_one_vs_rest_accepts_a_multiclass_dataset(write_config, tmp_path):
    text = BASE.replace("datasets: [heart]", "datasets: [wine]").replace(
        "  - name: cart-ap\n    pruner: {name: cc}",
        "  - name: apdt\n    params: {multiclass: ovr, alopex_iterations: 20}")
    out = tmp_path / "out"
    code, lines, exc = run_cli(["run", str(write_config(text)), "-o", str(out),
                                "--no-progress", "-j", "1"])
    assert code == 0, (code, lines, exc)
