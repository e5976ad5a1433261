"""Protocol sizes, a dataset's own sizes in either form, ``output`` and ``--seed``: each is
used as written or refused in one line before the run."""

import numpy as np
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import ConfigError

ROWS = "a,b,class\n" + "".join(f"{i % 7},{(i * 3) % 11},{'xy'[i % 7 < 3]}\n" for i in range(40))

SHORT = """
name: sizes
datasets: [{name: small, path: small.csv, target: class, protocol: PROTOCOL}]
algorithms: [cart-ap]
protocol: {name: random_split, train_size: 0.5}
"""
LONG = SHORT.replace("{name: small, path: small.csv, target: class, protocol: PROTOCOL}",
                     "{name: file, label: small, params: {path: PATH, target: class}, "
                     "protocol: PROTOCOL}")


def _write(write_config, tmp_path, text: str, protocol: str):
    (tmp_path / "small.csv").write_text(ROWS)
    return write_config(text.replace("PROTOCOL", protocol)
                        .replace("PATH", str(tmp_path / "small.csv")))


@pytest.mark.parametrize("form", [SHORT, LONG], ids=["shorthand", "long"])
def test_a_datasets_own_train_size_is_used_in_either_form(write_config, tmp_path, form):
    config = load_config(_write(write_config, tmp_path, form, "{train_size: 30}"))
    own = config.datasets[0].protocol
    assert own is not None and own.train_size == 30 and own.name == "random_split"
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(config.path), "-o", str(out),
                                       "--no-progress"])
    assert result.exit_code == 0, result.output
    roles = np.load(out / "folds" / "small.npz")["roles"]
    assert (roles == 1).sum() == 30 and (roles == 3).sum() == 10  # 30 grow, 10 test


@pytest.mark.parametrize("form", [SHORT, LONG], ids=["shorthand", "long"])
@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "0", "1.5", "abc"])
def test_a_datasets_own_bad_size_is_refused_in_either_form(write_config, tmp_path, form,
                                                          value):
    path = _write(write_config, tmp_path, form, f"{{train_size: {value}}}")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: datasets[0].protocol.train_size: ")


@pytest.mark.parametrize("form", [SHORT, LONG], ids=["shorthand", "long"])
def test_the_shorthand_refuses_what_the_long_form_refuses(write_config, tmp_path, form):
    path = _write(write_config, tmp_path, form, "{folds: 3}")
    with pytest.raises(ConfigError, match=r"datasets\[0\]\.protocol\.folds: unknown key"):
        load_config(path)


@pytest.mark.parametrize("key, value", [("train_size", ".nan"), ("test_size", ".nan"),
                                        ("train_size", ".inf"), ("test_size", "-.inf")])
def test_the_experiments_sizes_are_finite(write_config, tmp_path, key, value):
    text = SHORT.replace(", protocol: PROTOCOL", "").replace(
        "train_size: 0.5}", "train_size: 0.5, test_size: 0.25}").replace(
        f"{key}: 0.5" if key == "train_size" else f"{key}: 0.25", f"{key}: {value}")
    path = _write(write_config, tmp_path, text, "")
    with pytest.raises(ConfigError, match=rf"protocol\.{key}: must be a fraction in \(0, 1\) "
                                          rf"or a row count >= 1 \(got -?(nan|inf)\)"):
        load_config(path)


@pytest.mark.parametrize("value", ["null", "", "[a, b]", "true"])
def test_output_must_be_a_folder(write_config, tmp_path, value):
    text = SHORT.replace(", protocol: PROTOCOL", "") + f"output: {value}\n"
    path = _write(write_config, tmp_path, text, "")
    with pytest.raises(ConfigError, match=r"output: must be a folder path"):
        load_config(path)


def test_output_left_out_is_results_under_the_name(write_config, tmp_path):
    path = _write(write_config, tmp_path, SHORT.replace(", protocol: PROTOCOL", ""), "")
    assert load_config(path).output == "results/sizes"


@pytest.mark.parametrize("command", [
    ["fit", "--dataset", "heart", "--algorithm", "cart-ap", "-o", "m.json"],
    ["plot", "boundary", "--dataset", "twonorm_gen", "--algorithm", "cart-ap"],
    ["plot", "pruning", "--dataset", "heart", "--algorithm", "apdt"],
])
def test_a_negative_seed_is_one_line_exit_2(tmp_path, command):
    result = CliRunner().invoke(main, [*command, "--seed", "-1"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["error: --seed: must be an integer >= 0 "
                                                  "(got -1)"]
